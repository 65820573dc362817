import Foundation
import OrderfileSupport

/// Why a recording without a rebuild failed.
public enum BreakpointRecordingError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The tracer could not start the program, or lost it; `message` says what failed and
  /// whether the program was detached or killed; `errno` is the failed call's.
  case tracer(program: String, message: String, errno: Int32)
  /// The program ran but no trace came of it; `reasons` are the warnings that say why
  /// (its executable has no usable symbols).
  case nothingRecorded(program: String, reasons: [String])
  /// A `--until` name matches no function of the program's executable or of the libraries
  /// it links; `nearest` are names of functions like it.
  case untilMatchesNothing(name: String, program: String, nearest: [String])

  public var errorDescription: String? {
    switch self {
    case .tracer(_, let message, _):
      return message
    case .nothingRecorded(let program, let reasons):
      let why = reasons.isEmpty ? "it exited before calling any of its functions" : reasons.joined(separator: "; ")
      return "\(program): no function of the program was recorded: \(why)"
    case .untilMatchesNothing(let name, let program, let nearest):
      let hint =
        nearest.isEmpty
        ? "give a linkage name or a demangled one, as report and symbolize print them"
        : "nearest: " + nearest.map { "'\($0)'" }.joined(separator: ", ")
      return "--until '\(name)' names no function of \(program) or of the libraries it links: \(hint)"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .tracer(_, _, let error):
      if error == EPERM { return .unavailable }
      let launch = ExitStatus.ofLaunch(errno: error)
      return launch == .ioError ? .internalError : launch
    case .nothingRecorded: return .dataError
    case .untilMatchesNothing: return .usage
    }
  }
}

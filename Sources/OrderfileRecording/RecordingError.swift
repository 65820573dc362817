import Foundation
import OrderfileSupport

/// Why a recording run produced no usable trace.
public enum RecordingError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The program ran but wrote no trace for its own pid.
  case noTrace(program: String, status: Int32)
  /// The scratch directory for the run could not be made.
  case scratch(message: String)

  public var errorDescription: String? {
    switch self {
    case .noTrace(let program, let status):
      return
        "\(program) exited with status \(status) and wrote no trace: is it compiled with -finstrument-functions and linked with the runtime (see 'orderfile flags --instrument')?"
    case .scratch(let message):
      return "cannot create a scratch directory: \(message)"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .noTrace: return .dataError
    case .scratch: return .ioError
    }
  }
}

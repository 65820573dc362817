import Foundation
import OrderfileSupport

/// Why a profile could not be exported.
public enum ProfileError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// Folded stacks need every call, which only a full-mode trace records.
  case notFullMode(trace: String)
  /// Launches summarized together must be of one program; `other` is of another.
  case differentPrograms(first: String, firstProgram: String, other: String, otherProgram: String)

  public var errorDescription: String? {
    switch self {
    case .notFullMode(let trace):
      return
        "\(trace): --folded needs a full-mode trace, which records every call: record with ORDERFILE_MODE=full (see Docs/Runtime.md)"
    case .differentPrograms(let first, let firstProgram, let other, let otherProgram):
      return
        "\(other): a launch of '\(otherProgram)', not of '\(firstProgram)' as '\(first)' is: give traces of one program"
    }
  }

  /// The flag is fine; the trace lacks what it needs, or the traces are of different
  /// programs: bad input data either way.
  public var exitStatus: ExitStatus { .dataError }
}

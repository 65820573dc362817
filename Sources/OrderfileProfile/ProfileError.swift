import Foundation
import OrderfileSupport

/// Why a profile could not be exported.
public enum ProfileError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// Folded stacks need every call, which only a full-mode trace records.
  case notFullMode(trace: String)

  public var errorDescription: String? {
    switch self {
    case .notFullMode(let trace):
      return
        "\(trace): --folded needs a full-mode trace, which records every call: record with ORDERFILE_MODE=full (see Docs/Runtime.md)"
    }
  }

  /// Asking for stacks of a trace that cannot have them is a usage error.
  public var exitStatus: ExitStatus { .usage }
}

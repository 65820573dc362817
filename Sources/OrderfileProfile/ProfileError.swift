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

  /// The flag is fine; the trace lacks what it needs: bad input data.
  public var exitStatus: ExitStatus { .dataError }
}

import Foundation
import OrderfileSupport

/// Why a layout could not be estimated or verified.
public enum LayoutError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The orderfile has no entries.
  case emptyOrderfile(path: String)

  public var errorDescription: String? {
    switch self {
    case .emptyOrderfile(let path):
      return "\(path): the orderfile has no entries"
    }
  }

  public var exitStatus: ExitStatus { .dataError }
}

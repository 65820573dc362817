import Foundation

/// Failures of the file and process helpers every command shares.
public enum SupportError: LocalizedError, Equatable, Sendable {
  /// A system call failed on a file: the call, the path and errno's text.
  case system(call: String, path: String, message: String)
  /// A program could not be started at all.
  case launchFailed(program: String, message: String)

  public var errorDescription: String? {
    switch self {
    case .system(let call, let path, let message):
      return "\(path): \(call) failed: \(message)"
    case .launchFailed(let program, let message):
      return "cannot run '\(program)': \(message)"
    }
  }

  /// The error for the current `errno`.
  static func fromErrno(_ call: String, path: String) -> SupportError {
    .system(call: call, path: path, message: String(cString: strerror(errno)))
  }
}

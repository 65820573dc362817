import Foundation

/// Failures of the file and process helpers every command shares.
public enum SupportError: LocalizedError, Equatable, Sendable {
  /// A system call failed on a file: the call, the path and errno's text.
  case system(call: String, path: String, message: String)
  /// A program could not be started at all.
  case launchFailed(program: String, message: String)
  /// A path that must name a regular file names something else: its path and what it is
  /// ("a FIFO", "a character device", ...).
  case notRegularFile(path: String, kind: String)
  /// A file holds more than the tool reads from one: its path and the limit it passed.
  case tooLarge(path: String, limit: String)

  public var errorDescription: String? {
    switch self {
    case .system(_, let path, _), .notRegularFile(let path, _), .tooLarge(let path, _):
      return "\(path): \(reason)"
    case .launchFailed(let program, let message):
      return "cannot run '\(program)': \(message)"
    }
  }

  /// The message without the path, for an error of another module that names the path itself.
  public var reason: String {
    switch self {
    case .system(let call, _, let message): return "\(call) failed: \(message)"
    case .launchFailed(_, let message): return message
    case .notRegularFile(_, let kind): return "is \(kind), not a regular file"
    case .tooLarge(_, let limit): return "more than \(limit), the most the tool reads from one file"
    }
  }

  /// The error for the current `errno`.
  static func fromErrno(_ call: String, path: String) -> SupportError {
    .system(call: call, path: path, message: String(cString: strerror(errno)))
  }
}

import Foundation

/// Failures of the file and process helpers every command shares.
public enum SupportError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// An input could not be opened or read: its path, the system call and errno's text
  /// (or "is a directory").
  case cannotRead(path: String, call: String, message: String)
  /// An output could not be created or written: its path, the system call and errno's text.
  case cannotWrite(path: String, call: String, message: String)
  /// A program could not be started at all.
  case launchFailed(program: String, message: String)

  public var errorDescription: String? {
    switch self {
    case .cannotRead(let path, let call, let message), .cannotWrite(let path, let call, let message):
      return "\(path): \(call) failed: \(message)"
    case .launchFailed(let program, let message):
      return "cannot run '\(program)': \(message)"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .cannotRead: return .noInput
    case .cannotWrite, .launchFailed: return .ioError
    }
  }

  /// Reading `path` failed in `call`, for the current `errno`.
  static func reading(_ call: String, path: String) -> SupportError {
    .cannotRead(path: path, call: call, message: String(cString: strerror(errno)))
  }

  /// Writing `path` failed in `call`, for the current `errno`.
  public static func writing(_ call: String, path: String) -> SupportError {
    .cannotWrite(path: path, call: call, message: String(cString: strerror(errno)))
  }
}

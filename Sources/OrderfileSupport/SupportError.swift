import Foundation

/// Failures of the file and process helpers every command shares.
public enum SupportError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// An input could not be opened or read: its path, the system call and errno's text
  /// (or "is a directory").
  case cannotRead(path: String, call: String, message: String)
  /// An output could not be created or written: its path, the system call and errno's text.
  case cannotWrite(path: String, call: String, message: String)
  /// A program could not be started at all; `errno` is the failed call's (0 when none).
  case launchFailed(program: String, message: String, errno: Int32 = 0)
  /// A path that must name a regular file names something else: its path and what it is
  /// ("a FIFO", "a character device", ...).
  case notRegularFile(path: String, kind: String)
  /// A file holds more than the tool reads from one: its path and the limit it passed.
  case tooLarge(path: String, limit: String)
  /// A text file is not valid UTF-8: its path, the 1-based line, and the first byte that
  /// is wrong, with its 1-based column in bytes.
  case invalidUTF8(path: String, line: Int, column: Int, byte: UInt8)

  public var errorDescription: String? {
    switch self {
    case .cannotRead(let path, _, _), .cannotWrite(let path, _, _), .notRegularFile(let path, _),
      .tooLarge(let path, _), .invalidUTF8(let path, _, _, _):
      return "\(path): \(reason)"
    case .launchFailed(let program, let message, _):
      return "cannot run '\(program)': \(message)"
    }
  }

  /// The message without the path, for an error of another module that names the path itself.
  public var reason: String {
    switch self {
    case .cannotRead(_, let call, let message), .cannotWrite(_, let call, let message):
      return "\(call) failed: \(message)"
    case .launchFailed(_, let message, _): return message
    case .notRegularFile(_, let kind): return "is \(kind), not a regular file"
    case .tooLarge(_, let limit): return "more than \(limit), the most the tool reads from one file"
    case .invalidUTF8(_, let line, let column, let byte):
      return "line \(line) is not valid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: false)) at column \(column))"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .cannotRead, .notRegularFile: return .noInput
    case .tooLarge, .invalidUTF8: return .dataError
    case .cannotWrite: return .ioError
    case .launchFailed(_, _, let error): return ExitStatus.ofLaunch(errno: error)
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

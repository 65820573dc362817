#if canImport(Glibc)
  import Glibc
#endif

/// How the tool ends, after sysexits(3); Docs/Reference.md publishes the table.
///
/// A struct rather than an enum: `record` ends with whatever status the recorded program
/// returned.
public struct ExitStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let success = ExitStatus(rawValue: 0)
  /// A gate the user asked for failed (`Gate`: `--min-match`, `--min-in-order`, `--max-page-growth`,
  /// `--max-cold-growth`, or one of a `regenerate` configuration's `gates`).
  public static let gateFailed = ExitStatus(rawValue: 1)
  /// EX_USAGE: a bad flag, value or combination of them.
  public static let usage = ExitStatus(rawValue: 64)
  /// EX_DATAERR: an input exists but its contents are wrong (a corrupt trace, a non-ELF binary).
  public static let dataError = ExitStatus(rawValue: 65)
  /// EX_NOINPUT: an input does not exist or cannot be read.
  public static let noInput = ExitStatus(rawValue: 66)
  /// EX_UNAVAILABLE: the program could not be traced (ptrace forbidden, or already traced).
  public static let unavailable = ExitStatus(rawValue: 69)
  /// EX_SOFTWARE: a failure the tool did not expect.
  public static let internalError = ExitStatus(rawValue: 70)
  /// EX_IOERR: an output could not be written.
  public static let ioError = ExitStatus(rawValue: 74)

  public var description: String { String(rawValue) }

  /// The status for a program that could not be started, by the errno of the failed call:
  /// a program that does not exist or cannot be read is a missing input, one that is no
  /// executable format is bad data; anything else is an I/O failure.
  public static func ofLaunch(errno error: Int32) -> ExitStatus {
    switch error {
    case ENOENT, EACCES, ENOTDIR, ELOOP, ENAMETOOLONG: return .noInput
    case ENOEXEC: return .dataError
    default: return .ioError
    }
  }
}

/// An error that says which exit status it ends the tool with.
///
/// Every error type of the libraries conforms, so the status is decided where the failure
/// is understood (reading an input or writing an output) and never guessed from a message.
/// An error that does not conform is an internal error.
public protocol ExitStatusProviding: Error {
  var exitStatus: ExitStatus { get }
}

extension ExitStatus {
  /// The status `error` ends the tool with: its own, or internal error for one that has none.
  public static func of(_ error: any Error) -> ExitStatus {
    (error as? any ExitStatusProviding)?.exitStatus ?? .internalError
  }
}

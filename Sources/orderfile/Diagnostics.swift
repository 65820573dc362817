import ArgumentParser
import Foundation
import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Exit statuses, after sysexits(3).
enum ExitStatus {
  static let gateFailed: Int32 = 1
  static let usage: Int32 = 64
  static let dataError: Int32 = 65
  static let noInput: Int32 = 66
  static let internalError: Int32 = 70
  static let ioError: Int32 = 74
}

/// Writes diagnostics to stderr, never to the report on stdout.
enum Diagnostics {
  static func note(_ message: String) { write("orderfile: " + message) }
  static func warning(_ message: String) { write("orderfile: warning: " + message) }

  static func write(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Maps a library error to its message and exit status.
  static func fail(_ error: Error) -> Error {
    let status: Int32
    switch error {
    case is ExitCode, is CleanExit, is ValidationError: return error
    case let error as TraceError:
      if case .unreadable = error { status = ExitStatus.noInput } else { status = ExitStatus.dataError }
    case let error as MergeError:
      status = error.exitStatus
    case let error as SymbolizationError:
      _ = error
      status = ExitStatus.dataError
    case is OrderingError, is RecordingError, is LayoutError:
      status = ExitStatus.dataError
    case let error as SupportError:
      if case .system(let call, _, _) = error, call == "open" || call == "stat" {
        status = ExitStatus.noInput
      } else {
        status = ExitStatus.ioError
      }
    default:
      status = ExitStatus.internalError
    }
    write("orderfile: error: " + ((error as? LocalizedError)?.errorDescription ?? "\(error)"))
    return ExitCode(status)
  }
}

/// Runs `body`, turning library errors into one error line and an exit status.
func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch {
    throw Diagnostics.fail(error)
  }
}

extension OrderfileFormat: ExpressibleByArgument {}
extension InstrumentingCompiler: ExpressibleByArgument {}

/// Output shape shared by reporting commands.
struct OutputOptions: ParsableArguments {
  @Flag(name: .long, help: "Print the report as JSON (field names are documented in Docs/Reference.md).")
  var json = false
}

func printJSON<T: Encodable>(_ value: T) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  let data = try encoder.encode(value)
  print(String(decoding: data, as: UTF8.self))
}

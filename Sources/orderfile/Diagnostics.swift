import ArgumentParser
import Foundation
import OrderfileBuild
import OrderfileOrdering
import OrderfileSupport

/// Writes diagnostics to stderr, never to the report on stdout.
enum Diagnostics {
  static func note(_ message: String) { write("orderfile: " + message) }
  static func warning(_ message: String) { write("orderfile: warning: " + message) }

  static func write(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Prints a library error as one line and turns it into its exit status.
  static func fail(_ error: Error) -> Error {
    switch error {
    case is ExitCode, is CleanExit, is ValidationError: return error
    default:
      write("orderfile: error: " + ((error as? LocalizedError)?.errorDescription ?? "\(error)"))
      return ExitCode(ExitStatus.of(error).rawValue)
    }
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

/// Writes a rendered document to stdout as it is.
func printReport(_ text: String) {
  FileHandle.standardOutput.write(Data(text.utf8))
}

func printJSON<T: Encodable>(_ value: T) throws {
  printReport(try JSONRenderer().render(value))
}

import ArgumentParser
import OrderfileCommands

/// Writes what a command returns: its report to stdout, its diagnostics to stderr, and
/// ends with its exit status.
enum Terminal {
  /// Runs `command`; an error it throws becomes one error line and the error's status.
  static func run(_ command: () throws -> CommandOutput) throws {
    ToolProcess.prepare()
    let output: CommandOutput
    do {
      output = try command()
    } catch {
      output = CommandOutput(error: error)
    }
    output.emit()
    if output.status != .success { throw ExitCode(output.status.rawValue) }
  }
}

import ArgumentParser

@main
struct OrderfileCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "orderfile",
    abstract: "Record which functions a program runs at launch and lay them out together.",
    discussion: """
      An orderfile puts the code a program runs at startup side by side, so
      the launch touches fewer pages of the executable and takes fewer faults.

      1. Build instrumented:  orderfile flags --instrument
      2. Record one launch:   orderfile record -o launch.trace -- ./app
      3. Write the orderfile: orderfile generate launch.trace -o app.order
      4. Relink for release:  orderfile flags --release app.order
      Every day, all of it:   orderfile regenerate --config orderfile.yml

      Exit status: 0 success, 1 a gate failed (--min-match), 2 a command
      regenerate runs failed, 64 usage error,
      65 bad input data, 66 input not found, 70 internal error, 74 I/O error.
      """,
    version: "0.1.0",
    subcommands: [FlagsCommand.self, RecordCommand.self, GenerateCommand.self, MergeCommand.self, DiffCommand.self, EstimateCommand.self, VerifyCommand.self, BoltCommand.self, ReportCommand.self, SymbolizeCommand.self, RegenerateCommand.self]
  )
}

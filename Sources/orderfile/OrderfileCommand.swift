import ArgumentParser

@main
struct OrderfileCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "orderfile",
    abstract: "Record which functions a program runs at launch and lay them out together.",
    discussion: """
      An orderfile puts the code a program runs at startup side by side, so
      the launch touches fewer pages of the executable and takes fewer faults.

      1. Build the release:   orderfile flags   (one section per function)
      2. Record one launch:   orderfile record -o launch.trace -- ./app
      3. Write the orderfile: orderfile generate launch.trace -o app.order
      4. Relink for release:  orderfile flags --release app.order
      5. Check the layout:    orderfile verify --binary ./app --order app.order
      Every day, all of it:   orderfile regenerate --config orderfile.yml

      'record' traces the release binary itself, with no rebuild. A build
      instrumented with 'orderfile flags --instrument' records through the
      runtime instead ('record --instrumented'): full profiles, and where
      ptrace is not allowed.

      Exit status: 0 success, 1 a gate failed (--min-match, --min-in-order,
      --max-page-growth, --max-cold-growth, or one under regenerate's gates),
      2 a command regenerate runs failed, 64 usage error, 65 bad input data,
      66 input not found, 70 internal error, 74 I/O error.
      """,
    version: "0.1.0",
    subcommands: [
      FlagsCommand.self, RecordCommand.self, GenerateCommand.self, MergeCommand.self, DiffCommand.self,
      EstimateCommand.self, VerifyCommand.self, BoltCommand.self, ReportCommand.self, SymbolizeCommand.self,
      RegenerateCommand.self,
    ]
  )
}

import ArgumentParser
import OrderfileCommands

struct GenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Symbolize a launch trace and write the linker orderfile.",
    discussion: """
      Each recorded module (the executable, each instrumented shared library)
      gets its own orderfile. With -o, the main executable's (or --module's)
      is written; with --output-dir, one per module, named <module>.<ext>
      (<module>-<index>.<ext> for a second module of the same file name).
      Without either, the orderfile goes to stdout and the report to stderr.

      Binaries are found by the path recorded in the trace or by GNU build-id
      in --search-path and --debug-dir; a build-id mismatch is an error.

      With --release-binary (one per module), entries are looked up in the binary
      that will be linked: those it lacks, inlined in the release build, are
      named and left out, and the match rate (and --min-match) is against it.

      Given several traces, generate merges them (see 'orderfile merge --help').

      Examples:
        orderfile generate launch.trace -o app.order
        orderfile generate launch.trace --output-dir orders --format gold
        orderfile generate launch.trace -o ui.order --module libui.so \\
          --search-path build/lib
        orderfile generate launch.trace -o app.order --min-match 0.95 --json
        orderfile generate launch.trace --output-dir orders \\
          --release-binary build-release/app --release-binary build-release/libui.so
      """
  )

  // A transform, not ExpressibleByArgument: a bad weight is reported with its reason.
  @Argument(
    help: ArgumentHelp(
      "The trace written by 'orderfile record' or the runtime; several traces are merged as 'orderfile merge' does (TRACE:WEIGHT weights one).",
      valueName: "trace"),
    transform: WeightedTrace.init(argument:))
  var traces: [WeightedTrace]

  @OptionGroup var orderfiles: OrderfileOptionGroup

  @Flag(help: "List every entry with its first-call time, thread, demangled name and source line.")
  var list = false

  @OptionGroup var output: OutputFormatOptions<JSONFlag>

  func run() throws {
    try Terminal.run {
      try GenerateRequest(traces: traces, orderfiles: orderfiles.options, list: list, reportFormat: output.format).run()
    }
  }
}

import ArgumentParser
import OrderfileCommands

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare two orderfiles for a merge request: what changed, and what it costs in launch pages.",
    discussion: """
      Prints Markdown for a merge request (GitHub and GitLab render its
      tables): entries added, removed and moved, the rank correlation of the
      two orders, and the largest changes, [NEW] and [DEL] entries and signed
      moves, largest first, the rest folded into [N others]. A moved entry is
      one out of the order both files share, and its move is the number of
      shared entries it jumped over (negative: earlier in the launch); an
      entry only pushed down by an insertion is not moved.

      With --trace and --binary, also the launch pages under each orderfile at
      4 KiB and 16 KiB, with signed deltas: the numbers 'orderfile estimate
      --order' prints for each. --max-page-growth exits 1 when the head needs
      more than that many percent more pages than the base.

      With --base-binary and --head-binary (the program linked with each
      orderfile), each also runs once with the arguments after '--' under the
      page probe of 'estimate --measure', and the pages each really touched
      are reported beside the estimate. Two copies of a shared library (an
      app's own libapp.so) are measured in a run of the program after '--',
      the loader pointed at each copy in turn (LD_LIBRARY_PATH).

      With --measure-cold as well, each program also runs once cold, as
      'estimate --measure-cold' runs it, and what it read of its own file is
      compared by section kind (major faults with perf, else pages read).
      --max-cold-growth exits 1 when the head's total grows by more than that
      many percent of the base's.

      Examples:
        orderfile diff app.order new/app.order > report.md
        orderfile diff app.order new/app.order --base-binary old/app \\
          --head-binary new/app -- --version
        orderfile diff libapp.order new/libapp.order --base-binary old/libapp.so.1 \\
          --head-binary new/libapp.so.1 -- ./app --version
        orderfile diff app.order new/app.order --trace launch.trace \\
          --binary build/release/app --max-page-growth 2
        orderfile diff app.order new/app.order --base-binary old/app \\
          --head-binary new/app --measure-cold --max-cold-growth 2 -- --version
        orderfile diff app.order new/app.order --csv > changes.csv
      """
  )

  @Argument(
    help: ArgumentHelp("The orderfile before, e.g. the committed one (an empty file is fine).", valueName: "base"))
  var base: String

  @Argument(help: ArgumentHelp("The orderfile after.", valueName: "head"))
  var head: String

  @Option(
    help: ArgumentHelp(
      "A launch trace, to estimate the pages under each orderfile (with --binary).", valueName: "trace"))
  var trace: String?

  @Option(
    help: ArgumentHelp(
      "The binary whose layout to estimate, linked without an orderfile (the release or the instrumented build; with --trace).",
      valueName: "path"))
  var binary: String?

  @OptionGroup var traceModule: TraceModuleOptions

  @Option(
    name: .customLong(Gate.maxPageGrowth.name),
    help: ArgumentHelp(
      "Exit 1 when the head needs more than this many percent more launch pages than the base, at 4 KiB or 16 KiB: 2 or 2%.",
      valueName: "pct"))
  var maxPageGrowth: Percentage?

  @Option(
    help: ArgumentHelp("Changes listed in the Markdown before the rest are folded into one row.", valueName: "rows"))
  var limit: Int = 20

  @Option(help: ArgumentHelp("How to name the base in the report (default: its path).", valueName: "name"))
  var baseLabel: String?

  @Option(help: ArgumentHelp("How to name the head in the report (default: its path).", valueName: "name"))
  var headLabel: String?

  @OptionGroup var output: OutputFormatOptions<JSONOrCSVFlag>

  @Option(
    help: ArgumentHelp(
      "The program or shared library linked with the base orderfile, to measure (a library is loaded by the program after '--').",
      valueName: "path"))
  var baseBinary: String?

  @Option(
    help: ArgumentHelp(
      "The program or shared library linked with the head orderfile, to measure.", valueName: "path"))
  var headBinary: String?

  @OptionGroup var program: ProgramOptions<Self>

  @OptionGroup var cold: ColdLaunchOptions

  @Option(
    name: .customLong(Gate.maxColdGrowth.name),
    help: ArgumentHelp(
      "With --measure-cold: exit 1 when the head's cold launch reads more than this many percent more of its file (majors with perf, else pages read): 2 or 2%.",
      valueName: "pct"))
  var maxColdGrowth: Percentage?

  var timeLimit: Int? { program.timeLimit }

  func validate() throws {
    if (baseBinary == nil) != (headBinary == nil) {
      throw ValidationError("--base-binary and --head-binary go together: give both or neither")
    }
    if baseBinary == nil && (timeLimit != nil || !program.command.isEmpty) {
      throw ValidationError("--time-limit and the arguments after '--' need --base-binary and --head-binary")
    }
    if (trace == nil) != (binary == nil) {
      throw ValidationError("--trace and --binary go together: give both or neither")
    }
    if maxPageGrowth != nil && trace == nil {
      throw ValidationError("\(Gate.maxPageGrowth.option) needs --trace and --binary to estimate pages")
    }
    if cold.measureCold && baseBinary == nil {
      throw ValidationError("--measure-cold needs --base-binary and --head-binary: the programs to run cold")
    }
    if !cold.measureCold && (cold.coldMethod != .automatic || maxColdGrowth != nil) {
      throw ValidationError("--cold-method and \(Gate.maxColdGrowth.option) need --measure-cold")
    }
    if limit < 1 { throw ValidationError("--limit must be at least 1") }
  }

  func run() throws {
    try Terminal.run {
      try DiffRequest(
        base: base, head: head, baseLabel: baseLabel, headLabel: headLabel,
        pages: trace.flatMap { trace in binary.map { traceModule.layout(trace: trace, binary: $0) } },
        maxPageGrowth: maxPageGrowth, reportFormat: output.format, limit: limit,
        measure: baseBinary.flatMap { base in
          headBinary.map {
            DiffRequest.MeasuredBinaries(
              base: base, head: $0, arguments: program.words, timeLimitMilliseconds: timeLimit,
              cold: cold.method, maxColdGrowth: maxColdGrowth)
          }
        }
      ).run()
    }
  }
}

extension DiffCommand: RunsProgram {
  static let timeLimitHelp =
    "With --base-binary: count only pages first touched within this many milliseconds of the start."
  static let programHelp = "With --base-binary and --head-binary: the arguments both run with, after '--'."
  static let programValueName = "arguments"
  static let programParsing = ArgumentArrayParsingStrategy.postTerminator
}

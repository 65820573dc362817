import ArgumentParser
import OrderfileCommands

struct EstimateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "estimate",
    abstract: "Count the pages a launch touches in a binary now, and under an orderfile.",
    discussion: """
      Takes the launch functions from the trace (in first-call order) and the
      binary's real layout (address and size of each function), and reports
      the distinct pages the launch touches now, in the layout the orderfile
      would produce (simulated: ordered functions first, each at its size and
      alignment), and the lower bound. Without --order, the trace's own launch
      order is simulated. Faults are counted with Linux fault-around, which
      maps an aligned window (64 KiB by default) per fault.

      Simulate on a binary linked without an orderfile: the functions an
      orderfile leaves out keep the binary's order, and in a binary already
      linked with another orderfile that order is no longer the link order.

      With --measure, the binary also runs once, as the command after '--',
      under a page probe (libOrderfilePageProbe.so, preloaded) that counts
      the pages of its code the launch really executes. The measured pages
      are printed beside the estimate's "now"; a difference of more than 3
      pages and 3% is a warning that names the likely cause. --until and
      --time-limit end the count as they end a recording. The program's
      stdout goes to stderr, so the report stays alone on stdout. A program
      of another machine runs under --emulator, as 'record' runs it, with the
      page probe built for that machine (lib/<triple>/ beside the tool's
      libraries, where Scripts/install puts it when a cross compiler is there).

      With --measure-cold, the program runs once cold instead (or as well):
      the executable, --binary and the program's own shared libraries are
      dropped from the page cache, and what the launch read of each is
      counted by section kind (code, relocations, symbols, unwind, metadata,
      read-only and writable data) and by section: major faults with
      'perf trace -F maj' where perf is installed and permitted (root), and
      pages read (mincore: read-ahead included) always. --cold-method forces
      one. The counts depend on the device's read-ahead, which the report
      names; see Docs/Reference.md for a loop device with 16 KiB read-ahead.

      Examples:
        orderfile estimate --trace launch.trace --binary build/release/app
        orderfile estimate --trace launch.trace --binary app \\
          --measure -- ./app --version
        orderfile estimate --trace launch.trace --binary app --order app.order \\
          --markdown > estimate.md
        orderfile estimate --trace launch.trace --binary app --svg pages.svg
        orderfile estimate --trace launch.trace --binary app \\
          --measure-cold -- ./app --version
        orderfile estimate --trace launch.trace --binary arm64/app --measure \\
          --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' -- arm64/app
      """
  )

  @Option(help: ArgumentHelp("The launch trace.", valueName: "trace"))
  var trace: String

  @Option(help: ArgumentHelp("The binary whose layout to measure (usually the release build).", valueName: "path"))
  var binary: String

  @Option(help: ArgumentHelp("The orderfile to simulate (lld or gold format).", valueName: "orderfile"))
  var order: String?

  @OptionGroup var traceModule: TraceModuleOptions

  @Option(
    help: ArgumentHelp(
      "The fault-around window in KiB (Linux default 64; fault_around_bytes in debugfs).", valueName: "KiB"))
  var faultAround: Int = 64

  @Option(
    help: ArgumentHelp(
      "Also draw the text segment as a strip of pages, before and after ordering, into this SVG file.",
      valueName: "file"))
  var svg: String?

  @Option(
    help: ArgumentHelp("Also write a self-contained HTML page with the totals and the page strip.", valueName: "file"))
  var html: String?

  @OptionGroup var output: OutputFormatOptions<MarkdownOrJSONFlag>

  @Flag(help: "Also run the binary once (the command after '--') and count the pages it really touches.")
  var measure = false

  @OptionGroup var cold: ColdLaunchOptions

  @OptionGroup var launch: LaunchOptions<Self>

  @OptionGroup var emulator: EmulatorOptions

  var words: [String] { launch.words }
  var until: [String] { launch.until }
  var timeLimit: Int? { launch.timeLimit }

  func validate() throws {
    try RunWhenAsked.check(
      words: words, timeLimit: timeLimit, running: measure ? "--measure" : cold.measureCold ? "--measure-cold" : nil,
      flags: ["--measure", "--measure-cold"])
    if !measure && !until.isEmpty {
      throw ValidationError("--until needs --measure (a cold run ends at exit or --time-limit)")
    }
    if !measure && emulator.text != nil { throw ValidationError("--emulator needs --measure") }
    if !cold.measureCold && cold.coldMethod != .automatic {
      throw ValidationError("--cold-method needs --measure-cold")
    }
    if faultAround <= 0 || faultAround & (faultAround - 1) != 0 {
      throw ValidationError("--fault-around must be a power of two number of KiB, e.g. 64")
    }
  }

  func run() throws {
    try Terminal.run {
      try EstimateRequest(
        layout: traceModule.layout(trace: trace, binary: binary), order: order, faultAroundKiB: faultAround,
        reportFormat: output.format, svg: svg, html: html,
        measure: measure
          ? MeasureRequest(command: words, until: until, timeLimitMilliseconds: timeLimit, emulator: emulator.words)
          : nil,
        measureCold: cold.method.map { ColdLaunchRequest(command: words, timeLimitMilliseconds: timeLimit, method: $0) }
      ).run()
    }
  }
}

extension EstimateCommand: EndsAtFunction {
  static let timeLimitHelp =
    "With --measure or --measure-cold: count only pages touched within this many milliseconds of the start."
  static let untilHelp =
    "With --measure: end the count at the first call of this function (linkage or demangled name; repeatable)."
  static let programHelp = "With --measure or --measure-cold: the program and its arguments, after '--'."
  static let programParsing = ArgumentArrayParsingStrategy.postTerminator
}

import ArgumentParser
import OrderfileCommands

struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Explain a launch: phases, first calls per thread and module, and exports.",
    discussion: """
      Splits the launch at process start, the first hook, main, each mark the
      program set with orderfile_mark() and the end of the launch window. What
      follows the window (an app idling, a server serving) is one folded line,
      and the HTML bar and the Chrome trace are scaled to the launch. For each
      phase it shows the duration, the functions first called in it and the
      new pages they touched. In full mode (ORDERFILE_MODE=full when
      recording) it also lists the slowest first calls and can export folded
      stacks.

      The time before main is split into the loader's work, the runtime's own
      start-up (overhead) and each module's static initializers, then shown by
      module in load order (relocations, constructors, first calls); main to
      the launch's end is shown by module too. Every time has the recorder's
      own time taken out; a trace recorded with 'record --timing-launch' shows
      the times of that second launch instead, which trapped only the
      functions that mark the phases (--own-times: the recording's). Process start
      is exact when `orderfile record` started the program, else estimated
      from /proc to a clock tick; the report says which. Given several traces
      of one program, it prints each phase's median and spread instead.

      With --measure-cold, the program after '--' also runs once cold and
      what it read of its files (the executable, --pages-binary and its own
      shared libraries) is shown by section kind and by section, as in
      'orderfile estimate --measure-cold', in every format and on the HTML page.

      Examples:
        orderfile report launch.trace
        orderfile report launch.trace --chrome-trace launch.json  # Perfetto
        orderfile report launch.trace --folded launch.folded      # flamegraph.pl
        orderfile report launch.trace --html launch.html
        orderfile report launch-*.trace               # medians of several launches
        orderfile report launch.trace --measure-cold -- ./app --version
      """
  )

  @Argument(
    help:
      "The trace; several traces of one program print each phase's median and spread. With --measure-cold, then '--' and the program and its arguments."
  )
  var traces: [String]

  @OptionGroup var search: SearchPathOptions

  @Option(help: ArgumentHelp("Write Chrome trace-event JSON (Perfetto, chrome://tracing).", valueName: "file"))
  var chromeTrace: String?

  @Option(help: ArgumentHelp("Write folded stacks for flamegraph.pl (full mode traces).", valueName: "file"))
  var folded: String?

  @Flag(help: "With --folded: start each stack with its thread.")
  var perThread = false

  @Option(help: ArgumentHelp("Write a self-contained HTML report.", valueName: "file"))
  var html: String?

  @Option(help: ArgumentHelp("With --html: the release binary whose page strip to include.", valueName: "path"))
  var pagesBinary: String?

  @Flag(
    help:
      "Show the recording's own times, its recorder's time taken out, even when a timing launch ('record --timing-launch', <trace>.timing) is beside it."
  )
  var ownTimes = false

  @OptionGroup var output: OutputFormatOptions<MarkdownOrJSONFlag>

  @OptionGroup var cold: ColdLaunchOptions

  @OptionGroup var limit: TimeLimitOption<Self>
  var timeLimit: Int? { limit.timeLimit }

  /// The words after the command line's first `--`. The traces are an array of positional
  /// arguments, after which argument parser allows no second one, so the words after `--` end
  /// up in `traces` and are told apart here.
  var words: [String] {
    let arguments = CommandLine.arguments
    guard let terminator = arguments.firstIndex(of: "--") else { return [] }
    return Array(arguments[(terminator + 1)...])
  }

  /// The traces given, without the program after `--`.
  var traceFiles: [String] { Array(traces.dropLast(min(words.count, traces.count))) }

  func validate() throws {
    if pagesBinary != nil && html == nil { throw ValidationError("--pages-binary only applies to --html") }
    let traces = traceFiles
    if traces.isEmpty { throw ValidationError("give a trace to report on") }
    try RunWhenAsked.check(
      words: words, timeLimit: timeLimit, running: cold.measureCold ? "--measure-cold" : nil,
      flags: ["--measure-cold"])
    if !cold.measureCold && cold.coldMethod != .automatic {
      throw ValidationError("--cold-method needs --measure-cold")
    }
    if traces.count > 1 {
      let exports = [("--chrome-trace", chromeTrace), ("--folded", folded), ("--html", html)].filter { $0.1 != nil }
      if let export = exports.first {
        throw ValidationError("\(export.0) exports one launch: give one trace, not \(traces.count)")
      }
      if cold.measureCold {
        throw ValidationError("--measure-cold reports with one launch: give one trace, not \(traces.count)")
      }
    }
  }

  func run() throws {
    try Terminal.run {
      try ReportRequest(
        traces: traceFiles, searchPaths: search.searchPaths, reportFormat: output.format, chromeTrace: chromeTrace,
        folded: folded, perThread: perThread, html: html, pagesBinary: pagesBinary, usesTimingLaunch: !ownTimes,
        measureCold: cold.method.map { ColdLaunchRequest(command: words, timeLimitMilliseconds: timeLimit, method: $0) }
      ).run()
    }
  }
}

extension ReportCommand: LimitsLaunch {
  static let timeLimitHelp = "With --measure-cold: count only pages read within this many milliseconds of the start."
}

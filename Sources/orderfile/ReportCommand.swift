import ArgumentParser
import Foundation
import OrderfileLayout
import OrderfileProfile
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Explain a launch: phases, first calls per thread and module, and exports.",
    discussion: """
      Splits the launch at process start, the first hook, main, each mark the
      program set with orderfile_mark(), the end of the launch window and
      exit. For each phase it shows the duration, the functions first called
      in it and the new pages they touched. In full mode (ORDERFILE_MODE=full
      when recording) it also lists the slowest first calls and can export
      folded stacks.

      Examples:
        orderfile report launch.trace
        orderfile report launch.trace --chrome-trace launch.json   # Perfetto
        orderfile report launch.trace --folded launch.folded       # flamegraph.pl
        orderfile report launch.trace --html launch.html
      """
  )

  @Argument(help: "The trace.")
  var trace: String

  @Option(name: .customLong("binary"), help: ArgumentHelp("A binary or a directory of binaries to match by build-id (repeatable).", valueName: "path"))
  var binaries: [String] = []

  @Flag(help: "Print the report as Markdown.")
  var markdown = false

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

  @OptionGroup var output: OutputOptions

  func validate() throws {
    if markdown && output.json { throw ValidationError("give --json or --markdown, not both") }
    if pagesBinary != nil && html == nil { throw ValidationError("--pages-binary only applies to --html") }
  }

  func run() throws {
    try reportingErrors {
      let trace = try TraceReader.read(path: self.trace)
      let symbols = SymbolTable(trace: trace, binaries: BinaryResolver(searchPaths: binaries))
      for module in symbols.unavailable { Diagnostics.warning("not symbolized: \(module.module): \(module.reason)") }
      let profile = ProfileBuilder().build(trace: trace, symbols: symbols)

      if let chromeTrace {
        try AtomicFile.write(ChromeTraceExporter(trace: trace, symbols: symbols).render(profile), to: chromeTrace)
      }
      if let folded {
        guard !trace.threads.isEmpty else {
          throw ValidationError(
            "--folded needs a full-mode trace: record with ORDERFILE_MODE=full (see Docs/Runtime.md)")
        }
        try AtomicFile.write(FoldedStacksExporter(symbols: symbols, perThread: perThread).render(trace), to: folded)
      }
      if let html {
        let estimate = try pagesBinary.map {
          try LaunchEstimation(tracePath: self.trace, binaryPath: $0, searchPaths: binaries).run()
        }
        try AtomicFile.write(ProfileHTMLRenderer(pages: estimate).render(profile), to: html)
      }
      if output.json {
        try printJSON(profile)
      } else if markdown {
        printReport(ProfileMarkdownRenderer().render(profile))
      } else {
        printReport(ProfileTextRenderer().render(profile))
      }
    }
  }
}

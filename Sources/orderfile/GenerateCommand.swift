import ArgumentParser
import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

struct GenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Symbolize a launch trace and write the linker orderfile.",
    discussion: """
      Each recorded module (the executable, each instrumented shared library)
      gets its own orderfile. With -o, the main executable's (or --module's)
      is written; with --output-dir, one per module, named <module>.<ext>.
      Without either, the orderfile goes to stdout and the report to stderr.

      Binaries are found by the path recorded in the trace or by GNU build-id
      in --binary and --debug-dir; a build-id mismatch is an error.

      Given several traces, generate merges them (see 'orderfile merge --help').

      Examples:
        orderfile generate launch.trace -o app.order
        orderfile generate launch.trace --output-dir orders --format gold
        orderfile generate launch.trace -o ui.order --module libui.so \\
          --binary build/lib
        orderfile generate launch.trace -o app.order --min-match 0.95 --json
      """
  )

  @Argument(help: ArgumentHelp("The trace written by 'orderfile record' or the runtime; several traces are merged as 'orderfile merge' does (TRACE:WEIGHT weights one).", valueName: "trace"))
  var traces: [String]

  @Option(name: .shortAndLong, help: ArgumentHelp("Write the orderfile of one module here.", valueName: "orderfile"))
  var output: String?

  @Option(help: ArgumentHelp("Write one orderfile per recorded module into this directory.", valueName: "dir"))
  var outputDir: String?

  @Option(help: ArgumentHelp("The module to write with -o: a path or file name (default: the main executable).", valueName: "name"))
  var module: String?

  @Option(help: "The orderfile format: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", ")) (lld and mold: --symbol-ordering-file, gold: --section-ordering-file, ld64: -order_file).")
  var format: OrderfileFormat = .lld

  @Option(name: .customLong("binary"), help: ArgumentHelp("A binary or a directory of binaries to match by build-id (repeatable).", valueName: "path"))
  var binaries: [String] = []

  @Option(name: .customLong("debug-dir"), help: ArgumentHelp("A debug directory (with .build-id/xx/… files) to search (repeatable).", valueName: "dir"))
  var debugDirectories: [String] = []

  @Option(help: ArgumentHelp("Fail (exit 1) when fewer recorded functions than this share become entries: 0.95 or 95%.", valueName: "rate"))
  var minMatch: String?

  @Flag(help: "Also order functions first called after the launch window closed.")
  var includePostWindow = false

  @Flag(help: "List every entry with its first-call time, thread, demangled name and source line.")
  var list = false

  @OptionGroup var outputOptions: OutputOptions

  func validate() throws {
    if output != nil && outputDir != nil { throw ValidationError("give -o or --output-dir, not both") }
    if outputDir != nil && module != nil { throw ValidationError("--module selects the one module for -o; --output-dir writes them all") }
    if let minMatch, Self.parseRate(minMatch) == nil {
      throw ValidationError("--min-match: '\(minMatch)' is not a rate between 0 and 1 (or 0% and 100%)")
    }
    if traces.count > 1 { _ = try MergeInvocation.parseInputs(traces) }
  }

  static func parseRate(_ text: String) -> Double? {
    let percent = text.hasSuffix("%")
    guard let value = Double(percent ? String(text.dropLast()) : text) else { return nil }
    let rate = percent ? value / 100 : value
    return (0...1).contains(rate) ? rate : nil
  }

  func run() throws {
    if traces.count > 1 {
      try reportingErrors { try MergeInvocation(generate: self, traces: traces).run() }
      return
    }
    try reportingErrors {
      let trace = try TraceReader.read(path: traces[0])
      let selection: ModuleSelection =
        if let module { .named(module) } else if outputDir != nil { .all } else { .mainExecutable }
      let generator = Generator(
        selection: selection, binaries: BinaryResolver(searchPaths: binaries + debugDirectories),
        builder: OrderBuilder(includePostWindow: includePostWindow, resolveSourceLocations: list))
      let generation = try generator.generate(trace)

      var written: [String: String] = [:]
      if let outputDir {
        try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        var used = Set<String>()
        for order in generation.orders {
          var name = (order.module.path as NSString).lastPathComponent
          if name.isEmpty || !used.insert(name).inserted { name += "-\(order.module.index)" }
          let path = outputDir + "/" + name + "." + format.fileExtension
          try AtomicFile.write(format.render(order.functions.map(\.symbol)), to: path)
          written[order.module.path] = path
        }
      } else {
        guard generation.orders.count == 1, let order = generation.orders.first else {
          throw ValidationError(
            "\(generation.orders.count) modules selected: use --module to pick one, or --output-dir for one orderfile each")
        }
        let text = format.render(order.functions.map(\.symbol))
        if let output {
          try AtomicFile.write(text, to: output)
          written[order.module.path] = output
        } else if !outputOptions.json {
          FileHandle.standardOutput.write(Data(text.utf8))
        }
      }

      let report = GenerationReport(generation, format: format, outputs: written, includeFunctions: list)
      if outputOptions.json {
        try printJSON(report)
      } else {
        let text = GenerationTextRenderer(listFunctions: list).render(report)
        // With no output file the orderfile itself is on stdout: keep the report off it.
        if output == nil && outputDir == nil {
          FileHandle.standardError.write(Data(text.utf8))
        } else {
          printReport(text)
        }
      }

      if let minMatch, let rate = Self.parseRate(minMatch), generation.matchRate < rate {
        Diagnostics.write(
          "orderfile: error: match rate \(TextFormatting.percent(generation.matchRate)) is below --min-match \(TextFormatting.percent(rate))"
        )
        throw ExitCode(ExitStatus.gateFailed.rawValue)
      }
    }
  }
}

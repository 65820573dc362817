import ArgumentParser
import Foundation
import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge the traces of several launches into one orderfile.",
    discussion: """
      Each function is placed by the weighted median of its normalized
      first-call rank over the runs (0 = start of the launch, 1 = its end), so
      one run with an unusual thread schedule cannot reorder the file.
      Functions every run recorded come first; functions only some runs
      recorded follow, those seen in the most weight first. Ties are broken by
      the mean rank, then by name: the output does not depend on the order of
      the traces.

      A trace may carry a weight, TRACE:WEIGHT (default 1): a run of weight 2
      counts as two identical runs. Weight launch scenarios by how often users
      meet them, e.g. cold launches 3, launches from a notification 1.

      --previous names the orderfile the merge replaces (or, with --output-dir,
      the directory of them). A function then keeps its previous place when
      that lies within the middle 80% of its runs' ranks, so functions whose
      runs disagree do not move back and forth from one day's merge to the next.

      Modules are matched across runs by file name and must come from one build
      (the same build-id) unless --allow-mixed-builds is given.

      Examples:
        orderfile merge run1.trace run2.trace run3.trace -o app.order
        orderfile merge cold-*.trace:3 notification-*.trace:1 --output-dir orders
        orderfile merge runs/*.trace -o new.order --previous app.order
        orderfile merge runs/*.trace -o app.order --list --json
      """
  )

  @Argument(
    help: ArgumentHelp("Traces to merge, each optionally weighted as TRACE:WEIGHT.", valueName: "trace[:weight]"))
  var traces: [String]

  @Option(
    name: .shortAndLong, help: ArgumentHelp("Write the merged orderfile of one module here.", valueName: "orderfile"))
  var output: String?

  @Option(help: ArgumentHelp("Write one merged orderfile per module into this directory.", valueName: "dir"))
  var outputDir: String?

  @Option(
    help: ArgumentHelp(
      "The module to write with -o: a path or file name (default: the main executable).", valueName: "name"))
  var module: String?

  @Option(help: "The orderfile format: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
  var format: OrderfileFormat = .lld

  @Option(
    name: .customLong("binary"),
    help: ArgumentHelp("A binary or a directory of binaries to match by build-id (repeatable).", valueName: "path"))
  var binaries: [String] = []

  @Option(
    name: .customLong("debug-dir"),
    help: ArgumentHelp("A debug directory (with .build-id/xx/… files) to search (repeatable).", valueName: "dir"))
  var debugDirectories: [String] = []

  @Option(
    help: ArgumentHelp(
      "Fail (exit 1) when any run resolves fewer of its recorded functions than this share: 0.95 or 95%.",
      valueName: "rate"))
  var minMatch: String?

  @Option(
    help: ArgumentHelp(
      "The orderfile this merge replaces (a directory of them with --output-dir): keep functions whose runs agree with it in place.",
      valueName: "path"))
  var previous: String?

  @Flag(help: "Merge runs of different builds of a module, matching functions by name.")
  var allowMixedBuilds = false

  @Flag(help: "Also order functions first called after the launch window closed.")
  var includePostWindow = false

  @Flag(help: "List every entry with its median and mean rank, runs and presence.")
  var list = false

  @OptionGroup var outputOptions: OutputOptions

  func validate() throws {
    if output != nil && outputDir != nil { throw ValidationError("give -o or --output-dir, not both") }
    if outputDir != nil && module != nil {
      throw ValidationError("--module selects the one module for -o; --output-dir writes them all")
    }
    if let minMatch, GenerateCommand.parseRate(minMatch) == nil {
      throw ValidationError("--min-match: '\(minMatch)' is not a rate between 0 and 1 (or 0% and 100%)")
    }
    _ = try MergeInvocation.parseInputs(traces)
  }

  func run() throws {
    try reportingErrors {
      try MergeInvocation(
        inputs: try MergeInvocation.parseInputs(traces), output: output, outputDir: outputDir, module: module,
        format: format, searchPaths: binaries + debugDirectories, minMatch: minMatch.flatMap(GenerateCommand.parseRate),
        includePostWindow: includePostWindow, allowMixedBuilds: allowMixedBuilds, previous: previous, list: list,
        json: outputOptions.json
      ).run()
    }
  }
}

/// One merge as `merge` and a several-trace `generate` run it.
struct MergeInvocation {
  var inputs: [WeightedTrace]
  var output: String?
  var outputDir: String?
  var module: String?
  var format: OrderfileFormat
  var searchPaths: [String]
  var minMatch: Double?
  var includePostWindow: Bool
  var allowMixedBuilds: Bool
  var previous: String? = nil
  var list: Bool
  var json: Bool

  /// Parses `TRACE[:WEIGHT]` arguments, naming the bad one.
  static func parseInputs(_ arguments: [String]) throws -> [WeightedTrace] {
    do {
      return try arguments.map(WeightedTrace.init(argument:))
    } catch let error as MergeError {
      throw ValidationError(error.errorDescription ?? "\(error)")
    }
  }

  func run() throws {
    let selection: ModuleSelection =
      if let module { .named(module) } else if outputDir != nil { .all } else { .mainExecutable }
    let merger = TraceMerger(
      selection: selection, binaries: BinaryResolver(searchPaths: searchPaths),
      builder: OrderBuilder(includePostWindow: includePostWindow), allowMixedBuilds: allowMixedBuilds,
      previousOrder: try previousOrders())
    let merge = try merger.merge(inputs)

    var written: [String: String] = [:]
    if let outputDir {
      // Render everything first: a failure then leaves no orderfile half-way.
      let files = merge.modules.map { module in
        (module, outputDir + "/" + module.name + "." + format.fileExtension, module.render(as: format))
      }
      try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
      for (module, path, text) in files {
        try AtomicFile.write(text, to: path)
        written[module.name] = path
      }
    } else {
      guard merge.modules.count == 1, let module = merge.modules.first else {
        throw MergeError.severalModules(names: merge.modules.map(\.name))
      }
      let text = module.render(as: format)
      if let output {
        try AtomicFile.write(text, to: output)
        written[module.name] = output
      } else if !json {
        FileHandle.standardOutput.write(Data(text.utf8))
      }
    }

    let report = MergeReport(merge, format: format, outputs: written, includeFunctions: list)
    if json {
      try printJSON(report)
    } else {
      let text = MergeTextRenderer(listFunctions: list).render(report)
      // With no output file the orderfile itself is on stdout: keep the report off it.
      if output == nil && outputDir == nil {
        FileHandle.standardError.write(Data(text.utf8))
      } else {
        printReport(text)
      }
    }

    if let minMatch, merge.matchRate < minMatch {
      Diagnostics.write(
        "orderfile: error: match rate \(TextFormatting.percent(merge.matchRate)) (the lowest of any run) is below --min-match \(TextFormatting.percent(minMatch))"
      )
      throw ExitCode(ExitStatus.gateFailed.rawValue)
    }
  }
}

extension MergeInvocation {
  /// The previous order of each module: the file itself, or `<dir>/<module>.<ext>` when
  /// `previous` is a directory (a module without one there has none).
  func previousOrders() throws -> (String) throws -> PreviousOrder? {
    guard let previous else { return { _ in nil } }
    func read(_ path: String) throws -> PreviousOrder {
      PreviousOrder(source: path, names: try Orderfile.read(path: path).names)
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: previous, isDirectory: &isDirectory), isDirectory.boolValue {
      let format = self.format
      return { module in
        let path = previous + "/" + module + "." + format.fileExtension
        return FileManager.default.fileExists(atPath: path) ? try read(path) : nil
      }
    }
    guard outputDir == nil else {
      throw ValidationError(
        "--previous: with --output-dir give the directory of the previous orderfiles, not '\(previous)'")
    }
    let order = try read(previous)
    return { _ in order }
  }

  /// `generate` given several traces: the same options, merged.
  init(generate: GenerateCommand, traces: [String]) throws {
    self.init(
      inputs: try Self.parseInputs(traces), output: generate.output, outputDir: generate.outputDir,
      module: generate.module, format: generate.format, searchPaths: generate.binaries + generate.debugDirectories,
      minMatch: generate.minMatch.flatMap(GenerateCommand.parseRate), includePostWindow: generate.includePostWindow,
      allowMixedBuilds: false, list: generate.list, json: generate.outputOptions.json)
  }
}

import ArgumentParser
import OrderfileCommands

// Library values that parse themselves from an argument.
extension OrderfileFormat: ExpressibleByArgument {}
extension InstrumentingCompiler: ExpressibleByArgument {}
extension BuildSystem: ExpressibleByArgument {}
extension Language: ExpressibleByArgument {}
extension Rate: ExpressibleByArgument {}
extension Percentage: ExpressibleByArgument {}
extension ColdLaunchMethodChoice: ExpressibleByArgument {}

/// Where the binaries a trace recorded are found when they moved: `generate`, `merge`,
/// `report`, `estimate` and `diff` (one name everywhere).
///
/// `--binary` names the one binary a command measures (estimate, diff, verify, bolt,
/// symbolize); places to search have a name of their own.
struct SearchPathOptions: ParsableArguments {
  @Option(
    name: .customLong("search-path"),
    help: ArgumentHelp(
      "Where to find the binaries the trace recorded, if they moved: a binary or a directory of binaries, matched by build-id (repeatable).",
      valueName: "path"))
  var searchPaths: [String] = []
}

/// The options `generate` and `merge` share: where the orderfiles go, which modules, the
/// format, where binaries are found, and the match-rate gate.
struct OrderfileOptionGroup: ParsableArguments {
  @Option(name: .shortAndLong, help: ArgumentHelp("Write the orderfile of one module here.", valueName: "orderfile"))
  var output: String?

  @Option(help: ArgumentHelp("Write one orderfile per recorded module into this directory.", valueName: "dir"))
  var outputDir: String?

  @Option(
    help: ArgumentHelp(
      "The recorded module whose orderfile -o writes, by path, link, copy or file name (its SONAME too; default: the main executable).",
      valueName: "name"))
  var module: String?

  @Option(
    help:
      "The orderfile format: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", ")) (lld and mold: --symbol-ordering-file, gold: --section-ordering-file, ld64: -order_file, lld-script: an lld linker script by input section, which also places code and data without a symbol; it reads the link map BINARY.map). Default: lld-script when the trace holds the launch's data (record --data) and BINARY.map is beside the binary, else lld."
  )
  var format: OrderfileFormat?

  @OptionGroup var search: SearchPathOptions

  @Option(
    name: .customLong("debug-dir"),
    help: ArgumentHelp("A debug directory (with .build-id/xx/… files) to search (repeatable).", valueName: "dir"))
  var debugDirectories: [String] = []

  @Option(
    name: .customLong(Gate.minMatch.name),
    help: ArgumentHelp(
      "Fail (exit 1) when fewer recorded functions than this share become entries (merging: in any run): 0.95 or 95%.",
      valueName: "rate"))
  var minMatch: Rate?

  @Flag(help: "Also order functions first called after the launch window closed.")
  var includePostWindow = false

  @Option(
    name: .customLong("release-binary"),
    help: ArgumentHelp(
      "The binary that will be linked with the orderfile (the SONAME link, the real file or a copy), for the recorded module it is by build-id, real file or file name (repeatable): entries it lacks (inlined in the release build) are left out and \(Gate.minMatch.option) gates on its match rate.",
      valueName: "path"))
  var releaseBinaries: [String] = []

  @Flag(help: "Keep entries a --release-binary lacks in the orderfile (they still count as unmatched).")
  var keepAbsent = false

  func validate() throws {
    if output != nil && outputDir != nil { throw ValidationError("give -o or --output-dir, not both") }
    if keepAbsent && releaseBinaries.isEmpty { throw ValidationError("--keep-absent needs --release-binary") }
    if outputDir != nil && module != nil {
      throw ValidationError("--module selects the one module for -o; --output-dir writes them all")
    }
  }

  var options: OrderfileOptions {
    OrderfileOptions(
      destination: outputDir.map { .directory($0) } ?? output.map { .file($0) } ?? .standardOutput, module: module,
      format: format ?? .lld, searchPaths: search.searchPaths + debugDirectories, minMatch: minMatch,
      includePostWindow: includePostWindow, releaseBinaries: releaseBinaries, keepAbsent: keepAbsent,
      formatGiven: format != nil)
  }
}

/// Which trace module a layout binary corresponds to, and where the binary the trace
/// recorded is: `estimate` and `diff`.
/// `--measure-cold` and `--cold-method`: one cold launch counted by section (`estimate`, `diff`).
struct ColdLaunchOptions: ParsableArguments {
  @Flag(
    help:
      "Also run the program once cold (after '--', or --base-binary and --head-binary) and count what it reads of its files, by section."
  )
  var measureCold = false

  @Option(
    help: ArgumentHelp(
      "With --measure-cold: count major faults with perf trace, or pages read with the page cache alone (auto: perf where permitted).",
      valueName: "method"))
  var coldMethod: ColdLaunchMethodChoice = .automatic

  /// The method asked for, when a cold launch is.
  var method: ColdLaunchMethodChoice? { measureCold ? coldMethod : nil }
}

struct TraceModuleOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The module of the trace that --binary is, by path, link or file name (default: matched by build-id, real file or file name, the SONAME included, else the main executable when --binary holds most of its launch functions; otherwise an error).",
      valueName: "name"))
  var traceModule: String?

  @OptionGroup var search: SearchPathOptions

  /// The estimate's inputs, for `trace` and `binary`.
  func layout(trace: String, binary: String) -> LaunchLayoutInputs {
    LaunchLayoutInputs(
      trace: trace, binary: binary, traceModule: traceModule,
      searchPaths: search.searchPaths)
  }
}

/// A report format a command offers besides its default one, as a flag.
protocol OutputFormatFlag: EnumerableFlag {
  var format: ReportFormat { get }
  /// The format when no flag is given.
  static var defaultFormat: ReportFormat { get }
}

/// The output-format flags of a command; the one place that checks that at most one of
/// them is given.
struct OutputFormatOptions<Choice: OutputFormatFlag>: ParsableArguments {
  @Flag var choices: [Choice] = []

  func validate() throws {
    let given = Set(choices.map(\.format))
    guard given.count > 1 else { return }
    let names = Choice.allCases.filter { given.contains($0.format) }.map { "--\($0)" }
    throw ValidationError("give \(names.joined(separator: " or ")), not both")
  }

  var format: ReportFormat { choices.last?.format ?? Choice.defaultFormat }
}

private let jsonHelp = ArgumentHelp("Print the report as JSON (field names are documented in Docs/Reference.md).")
private let markdownHelp = ArgumentHelp("Print the report as Markdown, for a merge request.")

/// `--json`, text otherwise.
enum JSONFlag: String, OutputFormatFlag {
  case json

  var format: ReportFormat { .json }
  static var defaultFormat: ReportFormat { .text }
  static func help(for value: JSONFlag) -> ArgumentHelp? { jsonHelp }
}

/// `--markdown` or `--json`, text otherwise.
enum MarkdownOrJSONFlag: String, OutputFormatFlag {
  case markdown, json

  var format: ReportFormat { self == .json ? .json : .markdown }
  static var defaultFormat: ReportFormat { .text }
  static func help(for value: MarkdownOrJSONFlag) -> ArgumentHelp? { value == .json ? jsonHelp : markdownHelp }
}

/// `--json` or `--csv`, Markdown otherwise.
enum JSONOrCSVFlag: String, OutputFormatFlag {
  case json, csv

  var format: ReportFormat { self == .json ? .json : .csv }
  static var defaultFormat: ReportFormat { .markdown }
  static func help(for value: JSONOrCSVFlag) -> ArgumentHelp? {
    value == .json ? jsonHelp : "Print the changes as CSV: one row per changed entry, none folded."
  }
}

/// `--emulator` in `record` and `estimate --measure`: the emulator that runs a program of
/// another machine here, one command line split into words.
struct EmulatorOptions: ParsableArguments {
  @Option(
    name: .customLong("emulator"),
    help: ArgumentHelp(
      "Run the program under this emulator, for a program of another machine (e.g. 'qemu-aarch64-static -L /usr/aarch64-linux-gnu'), with the recorder or page probe built for that machine.",
      valueName: "command"))
  var text: String?

  /// The emulator, its words split at blanks (quotes kept); nil without `--emulator`.
  var emulator: Emulator? { text.flatMap(Emulator.init(parsing:)) }

  /// The emulator's words, nil without `--emulator`.
  var words: [String]? { emulator?.command }

  func validate() throws {
    if let text, Emulator(parsing: text) == nil {
      throw ValidationError(
        "--emulator needs a command, e.g. --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu'")
    }
  }
}

import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// What `generate` and `merge` share: where the orderfiles go, which modules, in which
/// format, where binaries are found, and the `--min-match` gate.
public struct OrderfileOptions: Sendable {
  public var destination: OrderfileDestination
  /// The one module to write (path or file name); nil for the module of the one release
  /// binary given, else the main executable, or for every module when writing a directory.
  public var module: String?
  public var format: OrderfileFormat
  /// Whether `format` was asked for; otherwise `choosingFormat(for:)` picks it from the traces.
  public var formatGiven: Bool
  /// Binaries and debug directories to match by build-id.
  public var searchPaths: [String]
  /// Fail (exit 1) when the match rate is below this.
  public var minMatch: Rate?
  /// Also order functions first called after the launch window closed.
  public var includePostWindow: Bool
  /// The binaries that will be linked with the orderfiles, matched to modules by file name:
  /// entries are checked against them and the match rate is theirs.
  public var releaseBinaries: [String]
  /// Keep entries a release binary lacks in the orderfile.
  public var keepAbsent: Bool

  public init(
    destination: OrderfileDestination = .standardOutput, module: String? = nil, format: OrderfileFormat = .lld,
    searchPaths: [String] = [], minMatch: Rate? = nil, includePostWindow: Bool = false, releaseBinaries: [String] = [],
    keepAbsent: Bool = false, formatGiven: Bool = true
  ) {
    self.formatGiven = formatGiven
    self.releaseBinaries = releaseBinaries
    self.keepAbsent = keepAbsent
    self.destination = destination
    self.module = module
    self.format = format
    self.searchPaths = searchPaths
    self.minMatch = minMatch
    self.includePostWindow = includePostWindow
  }

  /// The modules that get an orderfile.
  public var selection: ModuleSelection {
    if let module { return .named(module) }
    if case .directory = destination { return .all }
    // One orderfile, for the one binary it will be linked into: an app's library as well
    // as its executable.
    if releaseBinaries.count == 1 { return .named(releaseBinaries[0]) }
    return .mainExecutable
  }

  /// These options with the format `traces` call for when none was given, and a note saying
  /// which and why.
  ///
  /// A trace that holds the launch's data (`record --data`) gets an lld script when every
  /// module it touched data of has its link map beside it: a symbol list places only named
  /// data, and literals, jump tables and metadata, which have no symbol, are most of what a
  /// launch reads. Otherwise the symbol list, which every ELF linker but gold reads.
  func choosingFormat(for traces: [Trace]) -> (options: OrderfileOptions, note: String?) {
    guard !formatGiven else { return (self, nil) }
    var paths: [String] = []
    for trace in traces {
      for index in Set(trace.dataTouches.map(\.module)).sorted() where trace.modules.indices.contains(index) {
        let module = trace.modules[index]
        guard !module.isSystemLibrary else { continue }
        paths.append((try? binaries.locate(recordedPath: module.path, buildID: module.buildID)) ?? module.path)
      }
    }
    guard !paths.isEmpty else { return (self, nil) }
    let withoutMap = Set(paths).sorted().filter {
      !FileManager.default.fileExists(atPath: ELFSymbolizer.defaultLinkMap(of: $0))
    }
    guard withoutMap.isEmpty else {
      return (
        self,
        "the trace holds the launch's data, but \(withoutMap.map { "\($0).map" }.joined(separator: ", ")) is missing: writing a symbol list, which places only named data (link with -Wl,-Map=BINARY.map for an lld script that places all of it)"
      )
    }
    var chosen = self
    chosen.format = .lldScript
    chosen.formatGiven = true
    return (
      chosen,
      "the trace holds the launch's data and the link map is beside the binary: writing an lld script, which places data without a symbol too (--format lld writes a symbol list)"
    )
  }

  var binaries: BinaryResolver { BinaryResolver(searchPaths: searchPaths) }

  var release: ReleaseBinaries? {
    releaseBinaries.isEmpty ? nil : ReleaseBinaries(paths: releaseBinaries, keepAbsent: keepAbsent)
  }

  /// Renders the report built from where `orderfiles` go, writes them, then checks the gate.
  ///
  /// The report goes to stdout, unless the orderfile itself is printed there: then the
  /// report goes to stderr (and JSON replaces the orderfile on stdout).
  ///
  /// - Parameter matchRateNote: what the gate's message says after the match rate, such
  ///   as which run's rate it is.
  func finish<Report: Encodable>(
    _ orderfiles: [ModuleOrderfile], reportFormat: ReportFormat, text: some Renderer<Report>,
    report: (_ written: [String?]) -> Report, matchRate: Double, matchRateNote: String = ""
  ) throws -> CommandOutput {
    // Every output is made before any is written: a report that cannot be rendered leaves
    // the orderfiles as they were.
    let writer = OrderfileWriter(format: format, destination: destination)
    let report = report(try writer.paths(for: orderfiles).paths)
    let rendered = try reportFormat.renderer(text: text).render(report)
    // A failed gate writes nothing: an orderfile that is already there stays as it was.
    let gateFailed = minMatch.map { matchRate < $0.value } ?? false
    let written = gateFailed ? nil : try writer.write(orderfiles)
    var output = CommandOutput()
    if reportFormat == .json {
      output.print(rendered)
    } else if let orderfile = written?.standardOutput {
      output.print(orderfile)
      output.printToStandardError(rendered)
    } else if written == nil && destination == .standardOutput {
      output.printToStandardError(rendered)
    } else {
      output.print(rendered)
    }
    if let minMatch, gateFailed {
      output.fail(
        "match rate \(TextFormatting.percent(matchRate))\(matchRateNote) is below \(Gate.minMatch.option) \(TextFormatting.percent(minMatch.value)); no orderfile written, an existing one is left as it was",
        status: .gateFailed)
    }
    return output
  }
}

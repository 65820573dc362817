import Foundation
import OrderfileDiff
import OrderfileLayout
import OrderfileSupport
import OrderfileSymbolization

/// `orderfile diff`: what changed between two orderfiles, and what it costs in launch pages.
public struct DiffRequest {
  /// The orderfile before (an empty file is fine).
  public var base: String
  /// The orderfile after.
  public var head: String
  /// How to name each in the report (default: its path).
  public var baseLabel: String?
  public var headLabel: String?
  /// Also estimate the launch pages under each orderfile, for this trace and binary.
  public var pages: LaunchLayoutInputs?
  /// The `max-page-growth` gate: fail (exit 1) when the head needs more than this many
  /// percent more pages than the base.
  public var maxPageGrowth: Percentage?
  /// Markdown, JSON or CSV.
  public var reportFormat: ReportFormat
  /// Changes listed in the Markdown before the rest are folded into one row.
  public var limit: Int
  /// Also run the base and head binaries (relinked with each orderfile) under the page probe.
  public var measure: MeasuredBinaries?

  /// The two binaries to measure and the arguments both run with.
  public struct MeasuredBinaries {
    public var base: String
    public var head: String
    public var arguments: [String]
    public var timeLimitMilliseconds: Int?
    /// Also run each program once cold and count what it read of its file, by section kind.
    public var cold: ColdLaunchMethodChoice?
    /// The `max-cold-growth` gate: fail (exit 1) when the head's cold launch reads more than
    /// this many percent more of its file.
    public var maxColdGrowth: Percentage?

    public init(
      base: String, head: String, arguments: [String], timeLimitMilliseconds: Int? = nil,
      cold: ColdLaunchMethodChoice? = nil, maxColdGrowth: Percentage? = nil
    ) {
      self.base = base
      self.head = head
      self.arguments = arguments
      self.timeLimitMilliseconds = timeLimitMilliseconds
      self.cold = cold
      self.maxColdGrowth = maxColdGrowth
    }
  }

  public init(
    base: String, head: String, baseLabel: String? = nil, headLabel: String? = nil, pages: LaunchLayoutInputs? = nil,
    maxPageGrowth: Percentage? = nil, reportFormat: ReportFormat = .markdown, limit: Int = 20,
    measure: MeasuredBinaries? = nil
  ) {
    self.base = base
    self.head = head
    self.baseLabel = baseLabel
    self.headLabel = headLabel
    self.pages = pages
    self.maxPageGrowth = maxPageGrowth
    self.reportFormat = reportFormat
    self.limit = limit
    self.measure = measure
  }

  /// The comparison the request describes.
  var comparison: OrderfileComparison {
    OrderfileComparison(
      basePath: base, headPath: head, baseLabel: baseLabel, headLabel: headLabel,
      estimate: pages.map {
        OrderfileComparison.EstimateInputs(
          tracePath: $0.trace, binaryPath: $0.binary, module: $0.traceModule, searchPaths: $0.searchPaths)
      }, maxPageGrowth: maxPageGrowth?.value)
  }

  public func run() throws -> CommandOutput {
    var report = try comparison.run()
    if let measure {
      let probe = PageProbe(library: MeasureRequest.defaultProbeLibrary())
      // A shared library (it has a SONAME) is measured in a run of the program after '--',
      // the loader pointed at that copy; a program runs itself.
      func run(_ binary: String) throws -> MeasuredModule {
        let soname = (try? ELFSymbolizer(path: binary).moduleLoading().soname) ?? nil
        guard soname != nil, let program = measure.arguments.first else {
          let launch = try probe.measure(
            program: binary, arguments: measure.arguments, timeLimitMilliseconds: measure.timeLimitMilliseconds)
          guard let module = launch.module(for: binary) else { throw LayoutError.notMeasured(binary: binary) }
          return module
        }
        let (_, module) = try probe.measure(
          library: binary, program: program, arguments: Array(measure.arguments.dropFirst()),
          timeLimitMilliseconds: measure.timeLimitMilliseconds)
        guard let module else { throw LayoutError.notMeasured(binary: binary) }
        return module
      }
      report.measured = MeasuredComparison(
        baseBinary: measure.base, base: try run(measure.base), headBinary: measure.head, head: try run(measure.head),
        arguments: measure.arguments)
      if let method = measure.cold {
        let referee = ColdLaunchReferee(method: method)
        // Both sides are counted alike: the method is chosen once.
        let chosen = ColdLaunchReferee(method: try referee.chosenMethod() == .perf ? .perf : .pageCache)
        func cold(_ binary: String) throws -> ColdModule {
          if (try? ELFSymbolizer(path: binary).moduleLoading().soname) ?? nil != nil {
            throw LayoutError.coldLibrary(path: binary)
          }
          let launch = try chosen.measure(
            program: binary, arguments: measure.arguments, timeLimitMilliseconds: measure.timeLimitMilliseconds)
          guard let module = launch.module(for: binary) else { throw LayoutError.notMeasured(binary: binary) }
          return module
        }
        report.cold = ColdLaunchComparison(
          baseBinary: measure.base, base: try cold(measure.base), headBinary: measure.head,
          head: try cold(measure.head), method: try chosen.chosenMethod(),
          maxColdGrowth: measure.maxColdGrowth?.value)
      }
    }
    var output = CommandOutput()
    if let caution = report.pages?.reorderedBinary, let binary = pages?.binary {
      output.warning(caution.message(binary: binary))
    }
    // Markdown is the diff's text: it goes into a merge request.
    let renderer = reportFormat.renderer(text: DiffMarkdownRenderer(limit: limit), csv: DiffCSVRenderer())
    output.print(try renderer.render(report))
    if let failure = report.gate?.failure(spelling: \.option) { output.fail(failure, status: .gateFailed) }
    if let failure = report.cold?.gateFailure(spelling: \.option) { output.fail(failure, status: .gateFailed) }
    return output
  }
}

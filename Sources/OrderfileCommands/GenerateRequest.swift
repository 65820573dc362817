import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileSupport
import OrderfileTrace

/// `orderfile generate`: one trace's launch order as orderfiles, or several traces merged.
public struct GenerateRequest: Sendable {
  public var traces: [WeightedTrace]
  public var orderfiles: OrderfileOptions
  /// List every entry in the report.
  public var list: Bool
  /// Text or JSON.
  public var reportFormat: ReportFormat

  public init(
    traces: [WeightedTrace], orderfiles: OrderfileOptions, list: Bool = false, reportFormat: ReportFormat = .text
  ) {
    self.traces = traces
    self.orderfiles = orderfiles
    self.list = list
    self.reportFormat = reportFormat
  }

  public func run() throws -> CommandOutput {
    guard traces.count == 1, let input = traces.first else {
      return try MergeRequest(traces: traces, orderfiles: orderfiles, list: list, reportFormat: reportFormat).run()
    }
    let trace = try TraceReader.read(path: input.path)
    let (orderfiles, formatNote) = orderfiles.choosingFormat(for: [trace])
    let release = orderfiles.release
    try release?.checkMatched(modules: trace.modules, traces: [trace.path], binaries: orderfiles.binaries)
    var generator = Generator(
      selection: orderfiles.selection, binaries: orderfiles.binaries,
      builder: OrderBuilder(
        includePostWindow: orderfiles.includePostWindow, resolveSourceLocations: list,
        placeCodeWithoutSymbol: orderfiles.format.placesCodeWithoutSymbol),
      release: release, assessLayout: LayoutRegressionCheck().worseLayout(of:in:))
    generator.assessCodeWithoutSymbol = LayoutRegressionCheck().costOfCodeWithoutSymbol(_:in:)
    let generation = try generator.generate(trace)
    // --min-match gates each module that gets an orderfile: a high overall rate can hide
    // a module whose own order misses much of its launch.
    let worst = generation.orders.min { $0.matchRate < $1.matchRate }
    let files = generation.orders.map {
      ModuleOrderfile(
        modulePath: $0.module.path, moduleIndex: $0.module.index,
        text: $0.placement.text(orderfiles.format))
    }
    var output = try orderfiles.finish(
      files, reportFormat: reportFormat, text: GenerationTextRenderer(listFunctions: list),
      report: { written in
        var outputs: [String: String] = [:]
        for (order, path) in zip(generation.orders, written) { outputs[order.module.path] = path }
        return GenerationReport(generation, format: orderfiles.format, outputs: outputs, includeFunctions: list)
      }, matchRate: worst?.matchRate ?? generation.matchRate,
      matchRateNote: (worst.map { " of \(PathName.base(of: $0.module.path))" } ?? "")
        + (orderfiles.releaseBinaries.isEmpty ? "" : " (against the release binary)"))
    if let formatNote { output.note(formatNote) }
    return output
  }
}

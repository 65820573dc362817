import Foundation
import OrderfileBuild
import OrderfileLayout
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization

/// `orderfile estimate`: the pages a launch touches now and under an orderfile.
public struct EstimateRequest {
  /// The trace, the binary whose layout is counted, and how the two are paired.
  public var layout: LaunchLayoutInputs
  /// The orderfile to simulate; nil simulates the trace's own launch order.
  public var order: String?
  /// The fault-around window in KiB (Linux default 64).
  public var faultAroundKiB: Int
  /// Text, Markdown or JSON.
  public var reportFormat: ReportFormat
  /// Also draw the page strip into this SVG file.
  public var svg: String?
  /// Also write a self-contained HTML page here.
  public var html: String?
  /// Also measure the binary's pages with the page probe.
  public var measure: MeasureRequest?
  /// Also run the program once cold and count what it read of its files, by section.
  public var measureCold: ColdLaunchRequest?

  public init(
    layout: LaunchLayoutInputs, order: String? = nil, faultAroundKiB: Int = 64, reportFormat: ReportFormat = .text,
    svg: String? = nil, html: String? = nil, measure: MeasureRequest? = nil, measureCold: ColdLaunchRequest? = nil
  ) {
    self.measureCold = measureCold
    self.layout = layout
    self.order = order
    self.faultAroundKiB = faultAroundKiB
    self.measure = measure
    self.reportFormat = reportFormat
    self.svg = svg
    self.html = html
  }

  /// The estimation the request describes.
  var estimation: LaunchEstimation {
    LaunchEstimation(
      tracePath: layout.trace, binaryPath: layout.binary, orderPath: order, module: layout.traceModule,
      searchPaths: layout.searchPaths, estimator: Estimator(faultAroundBytes: UInt64(faultAroundKiB) * 1024))
  }

  public func run() throws -> CommandOutput {
    let estimation = self.estimation
    var estimate = try estimation.run()
    var output = CommandOutput()
    if let measure {
      let (launch, unmatched) = try measure.measure(
        binary: estimation.binaryPath, pageSizes: estimation.estimator.pageSizes)
      for name in unmatched {
        let nearest = UntilFunction.nearest(to: name, binary: estimation.binaryPath)
        output.warning(
          "--until '\(name)' names no function of \(estimation.binaryPath); the pages were counted to exit"
            + (nearest.isEmpty ? "" : " (nearest: " + nearest.map { "'\($0)'" }.joined(separator: ", ") + ")"))
      }
      if !measure.until.isEmpty && unmatched.count < measure.until.count && launch.end != .until {
        output.warning("the measured run never called an --until function; the pages were counted to its end")
      }
      let measurement = PageMeasurement(estimate: estimate, launch: launch)
      if measurement.module == nil {
        output.warning("the measured run never loaded \(estimation.binaryPath): nothing of it was measured")
      } else if !measurement.agrees {
        output.warning(
          "the estimate of \(estimation.binaryPath) differs from its measured pages by more than 3 pages and 3%: "
            + (measurement.causes.first ?? ""))
      }
      estimate.measurement = measurement
    }
    if let measureCold {
      let cold = try measureCold.measure(binary: estimation.binaryPath)
      for module in cold.modules where module.residentBefore > 0 {
        output.warning(
          "\(module.path): \(module.residentBefore) of its pages stayed cached (another process maps them): the launch found them warm"
        )
      }
      estimate.coldLaunch = cold
    }
    if let caution = estimate.reorderedBinary { output.warning(caution.message(binary: estimation.binaryPath)) }
    var files: [OutputFile] = []
    if let svg { files.append(OutputFile(path: svg, text: PageStripRenderer().render(estimate))) }
    if let html { files.append(OutputFile(path: html, text: EstimateHTMLRenderer().render(estimate))) }
    let renderer = reportFormat.renderer(text: EstimateTextRenderer(), markdown: EstimateMarkdownRenderer())
    let report = try renderer.render(estimate)
    try AtomicFile.write(files)
    output.print(report)
    return output
  }
}

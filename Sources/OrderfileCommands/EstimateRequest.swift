import OrderfileLayout
import OrderfileSupport

/// `orderfile estimate`: the pages a launch touches now and under an orderfile.
public struct EstimateRequest {
  public var estimation: LaunchEstimation
  /// Text, Markdown or JSON.
  public var reportFormat: ReportFormat
  /// Also draw the page strip into this SVG file.
  public var svg: String?
  /// Also write a self-contained HTML page here.
  public var html: String?

  public init(estimation: LaunchEstimation, reportFormat: ReportFormat = .text, svg: String? = nil, html: String? = nil) {
    self.estimation = estimation
    self.reportFormat = reportFormat
    self.svg = svg
    self.html = html
  }

  public func run() throws -> CommandOutput {
    let estimate = try estimation.run()
    var output = CommandOutput()
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

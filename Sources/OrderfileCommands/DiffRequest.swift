import Foundation
import OrderfileDiff
import OrderfileLayout
import OrderfileSupport

/// `orderfile diff`: what changed between two orderfiles, and what it costs in launch pages.
public struct DiffRequest {
  public var comparison: OrderfileComparison
  /// Markdown, JSON or CSV.
  public var reportFormat: ReportFormat
  /// Changes listed in the Markdown before the rest are folded into one row.
  public var limit: Int

  public init(comparison: OrderfileComparison, reportFormat: ReportFormat = .markdown, limit: Int = 20) {
    self.comparison = comparison
    self.reportFormat = reportFormat
    self.limit = limit
  }

  public func run() throws -> CommandOutput {
    let report = try comparison.run()
    var output = CommandOutput()
    if let caution = report.pages?.reorderedBinary, let binary = comparison.estimate?.binaryPath {
      output.warning(caution.message(binary: binary))
    }
    // Markdown is the diff's text: it goes into a merge request.
    let renderer = reportFormat.renderer(text: DiffMarkdownRenderer(limit: limit), csv: DiffCSVRenderer())
    output.print(try renderer.render(report))
    if let gate = report.gate, !gate.passed {
      let growth = gate.worstPercent.map { String(format: "%+.1f%%", $0) } ?? "from 0"
      let size = gate.worstPageSize.map { " at \(formatBytes($0)) pages" } ?? ""
      output.fail(
        "launch pages grow \(growth)\(size), more than --fail-if-pages-regress allows (\(TextFormatting.number(gate.thresholdPercent))%)",
        status: .gateFailed)
    }
    return output
  }
}

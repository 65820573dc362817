import OrderfileLayout
import OrderfileSupport

/// The summary on stdout: the outcome in one line, then one line per module.
public struct RegenerationTextRenderer: Renderer {
  public init() {}

  public func render(_ report: RegenerationReport) -> String {
    var lines: [String] = []
    let changed = report.modules.filter(\.changed).count
    switch report.outcome {
    case .noChange:
      lines.append(
        "no change: the committed orderfiles in \(report.orderfileDirectory) are up to date (report: \(report.report))")
    case .replaced:
      lines.append(
        "updated \(changed) orderfile\(changed == 1 ? "" : "s") in \(report.orderfileDirectory) (merge request body: \(report.report))"
      )
    case .changed:
      lines.append(
        "changed: \(changed) orderfile\(changed == 1 ? "" : "s") differ from those in \(report.orderfileDirectory); left as they are (--check) (report: \(report.report))"
      )
    case .gateFailed:
      lines.append(
        "gate failed: the committed orderfiles in \(report.orderfileDirectory) were left as they are (report: \(report.report))"
      )
    }
    for module in report.modules {
      let summary = module.diff.summary
      var line =
        "  \(module.module): \(summary.headEntries) entries, \(summary.added) added, \(summary.removed) removed, \(summary.moved) moved, churn \(TextFormatting.percent(summary.churn)); match \(TextFormatting.percent(module.matchRate)); relinked \(module.verified.inOrder)/\(module.verified.entries) in order"
      for row in module.pages {
        line += "; pages \(formatBytes(row.pageSize)) \(RegenerationMarkdownRenderer.delta(row.pages))"
      }
      for row in module.measuredPages ?? [] {
        line += "; measured \(formatBytes(row.pageSize)) \(RegenerationMarkdownRenderer.delta(row.pages))"
      }
      if let decay = module.decay {
        line += "; previous entries gone \(decay.goneEntries)/\(decay.previousEntries)"
      }
      lines.append(line)
    }
    for failure in report.failedGates {
      lines.append("  gate \(failure.gate.rawValue) failed for \(failure.module): \(failure.message)")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

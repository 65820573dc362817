import Foundation
import OrderfileDiff
import OrderfileLayout
import OrderfileSupport

/// The merge-request body: what changed, per module, with the relinked binary's check, its
/// launch pages against the shipped binary, the decay of the committed orderfile, and each
/// module's diff as `orderfile diff` writes it.
public struct RegenerationMarkdownRenderer: Renderer {
  public var limit: Int

  public init(limit: Int = 20) {
    self.limit = limit
  }

  public func render(_ report: RegenerationReport) -> String {
    var lines = ["## Launch orderfile refresh", ""]
    switch report.outcome {
    case .noChange:
      lines.append("No change: the regenerated orderfiles match the committed ones in `\(report.orderfileDirectory)`.")
    case .replaced:
      lines.append(
        "The launch order changed: this replaces the committed orderfiles in `\(report.orderfileDirectory)`.")
    case .changed:
      lines.append(
        "The launch order changed against the orderfiles in `\(report.orderfileDirectory)`; every gate passed.")
    case .gateFailed:
      lines.append(
        "**A gate failed**: the committed orderfiles in `\(report.orderfileDirectory)` were left as they are.")
      lines.append("")
      for failure in report.failedGates {
        lines.append("- `\(failure.module)` (\(failure.gate.rawValue)): \(failure.message)")
      }
    }
    lines.append("")
    let scenarios = report.scenarios.map { "\($0.name) (weight \(TextFormatting.number($0.weight)))" }.joined(
      separator: ", ")
    let recorded =
      report.recorded == "release" ? "the release binaries as they ship, without a rebuild" : "the instrumented build"
    lines.append(
      "Recorded \(recorded), \(report.runs) runs of each launch scenario: \(scenarios); merged by weighted median first-call rank, kept stable against the committed orderfiles."
    )
    lines.append("")
    lines.append(
      "| module | entries | added | removed | moved | churn | match rate | relinked, in order | launch pages 4 KiB | 16 KiB | previous entries gone |"
    )
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module in report.modules {
      let summary = module.diff.summary
      let pages = [UInt64(4096), 16384].map { size in
        module.pages.first { $0.pageSize == size }.map { Self.delta($0.pages) } ?? "–"
      }
      let decay =
        module.decay.map { "\($0.goneEntries) of \($0.previousEntries) (\(TextFormatting.percent($0.goneShare)))" }
        ?? "–"
      lines.append(
        "| `\(module.module)` | \(summary.headEntries) | \(summary.added) | \(summary.removed) | \(summary.moved) | \(TextFormatting.percent(summary.churn)) | \(TextFormatting.percent(module.matchRate)) | \(module.verified.inOrder) of \(module.verified.entries) | \(pages[0]) | \(pages[1]) | \(decay) |"
      )
    }
    lines.append("")
    lines.append(
      "Launch pages are simulated for the first run's launch on the binary as it shipped (with the committed orderfile) and as relinked with the regenerated one; a negative change is fewer pages. Previous entries gone: entries of the committed orderfile that the shipped binary no longer has."
    )
    let measured = report.modules.filter { $0.measuredPages != nil }
    if !measured.isEmpty {
      lines.append("")
      lines.append(
        "Measured: pages the first scenario really touched, counted by the page probe in each binary as it runs.")
      lines.append("")
      lines.append("| module | measured pages 4 KiB | 16 KiB | simulated 4 KiB | 16 KiB |")
      lines.append("| --- | ---: | ---: | ---: | ---: |")
      for module in measured {
        func cell(_ rows: [RegenerationReport.Pages]?, _ size: UInt64) -> String {
          rows?.first { $0.pageSize == size }.map { Self.delta($0.pages) } ?? "–"
        }
        lines.append(
          "| `\(module.module)` | \(cell(module.measuredPages, 4096)) | \(cell(module.measuredPages, 16384)) | \(cell(module.pages, 4096)) | \(cell(module.pages, 16384)) |"
        )
      }
    }
    for module in report.modules {
      guard let cold = module.coldLaunch else { continue }
      let unit = cold.method.countName
      let kinds = cold.rows.filter { $0.faults.delta != 0 }.map { "\($0.kind.title) \(Self.delta($0.faults))" }
      lines += [
        "",
        "`\(module.module)`: a cold launch of the first scenario, shipped → relinked, \(unit): \(Self.delta(cold.total))"
          + (kinds.isEmpty ? "." : " (\(kinds.joined(separator: ", ")))."),
      ]
    }
    for module in report.modules where module.keptCommitted {
      lines.append("")
      lines.append(
        "`\(module.module)`: a reordering below the configured `ignore-churn-below`: the committed orderfile is kept.")
    }
    for module in report.modules {
      if let decay = module.decay, !decay.gone.isEmpty {
        lines.append("")
        lines.append(
          "`\(module.module)`: gone since the committed orderfile: \(decay.gone.map { "`\($0)`" }.joined(separator: ", "))\(decay.goneEntries > decay.gone.count ? ", …" : "")."
        )
      }
      lines.append("")
      lines.append(DiffMarkdownRenderer(limit: limit).render(module.diff).trimmingCharacters(in: .newlines))
    }
    if let steps = report.steps {
      lines.append("")
      lines.append(
        "Steps: " + steps.map { "\($0.step) \(String(format: "%.1f", $0.seconds)) s" }.joined(separator: ", ") + ".")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `12 → 9 (−3, −25.0%)`.
  static func delta(_ delta: PageComparison.Delta) -> String {
    let percent = delta.deltaPercent.map { String(format: ", %+.1f%%", $0) } ?? ""
    return "\(delta.base) → \(delta.head) (\(delta.delta >= 0 ? "+" : "")\(delta.delta)\(percent))"
  }
}

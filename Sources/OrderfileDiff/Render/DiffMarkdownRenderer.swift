import Foundation
import OrderfileLayout
import OrderfileSupport

/// A diff report as GitHub/GitLab-flavoured Markdown, the body of a merge request.
///
/// Tables and code spans; the only HTML is `<code>` for a name with a `|`, so that no name
/// can split a table cell. The change table follows bloaty: `[NEW]` and `[DEL]` markers, signed moves,
/// largest change first, the tail folded into one `[N others]` row, and a total row.
public struct DiffMarkdownRenderer: Renderer {
  /// Change rows shown before the rest are folded.
  public var limit: Int

  public init(limit: Int = 20) {
    self.limit = limit
  }

  public func render(_ report: DiffReport) -> String {
    var lines: [String] = []
    let summary = report.summary
    lines.append("### Orderfile: \(code(report.base)) → \(code(report.head))")
    lines.append("")
    lines.append("| entries (base → head) | added | removed | moved | unchanged | churn | Kendall τ | Spearman ρ |")
    lines.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    lines.append(
      "| \(summary.baseEntries) → \(summary.headEntries) | \(summary.added) | \(summary.removed) | \(summary.moved) | \(summary.unchanged) | \(TextFormatting.percent(summary.churn)) | \(Self.coefficient(summary.correlation.kendallTau)) | \(Self.coefficient(summary.correlation.spearmanRho)) |"
    )
    lines.append("")
    if summary.isIdentical {
      lines.append("No change: both list the same \(summary.headEntries) entries in the same order.")
    } else {
      lines.append(
        "Moved entries are those out of the order the two files share; the rank correlation is over the \(summary.correlation.commonEntries) entries in both."
      )
    }

    if let pages = report.pages {
      lines.append("")
      lines.append("#### Launch pages (estimated)")
      lines.append("")
      lines.append("| launch | base | head | change |")
      lines.append("| --- | ---: | ---: | ---: |")
      for row in pages.pages {
        lines.append(
          "| \(formatBytes(row.pageSize)) pages | \(row.pages.base) | \(row.pages.head) | \(Self.delta(row.pages)) |")
      }
      lines.append(
        "| faults (\(formatBytes(pages.faultAroundBytes)) fault-around) | \(pages.faults.base) | \(pages.faults.head) | \(Self.delta(pages.faults)) |"
      )
      lines.append("")
      lines.append(
        "Simulated layouts of \(code(pages.binary)) under each orderfile, for the launch in \(code(pages.trace)) (\(pages.matchedFunctions) of \(pages.launchFunctions) launch functions in the binary)."
      )
      if let caution = pages.reorderedBinary {
        lines.append("")
        lines.append("**Caution:** " + TextFormatting.markdownCell(caution.message(binary: pages.binary)) + ".")
      }
      if let gate = report.gate {
        lines.append("")
        let worst =
          gate.worstPageSize.map { size in
            let growth = gate.worstPercent.map { Self.signed($0, suffix: "%") } ?? "from 0"
            return " (largest change \(growth) at \(formatBytes(size)))"
          } ?? ""
        lines.append(
          "Gate \(Gate.maxPageGrowth.name): launch pages may grow by at most \(TextFormatting.number(gate.maxPageGrowth))%: **\(gate.passed ? "passed" : "failed")**\(worst)."
        )
      }
    }

    if let measured = report.measured {
      lines.append("")
      lines.append("#### Launch pages (measured)")
      lines.append("")
      lines.append("| launch | base | head | change |")
      lines.append("| --- | ---: | ---: | ---: |")
      for row in measured.rows {
        lines.append(
          "| \(formatBytes(row.pageSize)) pages | \(row.pages.base) | \(row.pages.head) | \(Self.delta(row.pages)) |")
      }
      lines.append("")
      lines.append(
        "Pages of \(code(measured.baseBinary)) and \(code(measured.headBinary)) the launch really executed (\(code(TextFormatting.markdownCell((["…"] + measured.arguments).joined(separator: " "))))), counted by the page probe."
      )
    }

    if let cold = report.cold {
      let unit = cold.method.countName
      lines += [
        "", "#### Cold launch, \(unit)", "", "| section kind | base | head | change |", "| --- | ---: | ---: | ---: |",
      ]
      for row in cold.rows {
        lines.append("| \(row.kind.title) | \(row.faults.base) | \(row.faults.head) | \(Self.delta(row.faults)) |")
      }
      lines.append("| **all** | \(cold.total.base) | \(cold.total.head) | \(Self.delta(cold.total)) |")
      let device = cold.headDevice.map { " on \($0.name), read-ahead \($0.readAheadKiB) KiB" } ?? ""
      lines += ["", "What a cold launch read of \(code(cold.baseBinary)) and of \(code(cold.headBinary))\(device)."]
      if let gate = cold.gate {
        let growth = gate.worstPercent.map { Self.signed($0, suffix: "%") } ?? "from 0"
        lines += [
          "",
          "Gate \(Gate.maxColdGrowth.name): cold launch \(unit) may grow by at most \(TextFormatting.number(gate.maxColdGrowth))%: **\(gate.passed ? "passed" : "failed")** (\(growth)).",
        ]
      }
    }

    if !summary.isIdentical {
      lines.append("")
      lines.append("#### Largest changes")
      lines.append("")
      lines.append("| change | function | base | head |")
      lines.append("| ---: | --- | ---: | ---: |")
      let shown = report.changes.count > limit ? Array(report.changes.prefix(limit)) : report.changes
      for change in shown {
        let marker: String
        switch change.kind {
        case .new: marker = "[NEW]"
        case .deleted: marker = "[DEL]"
        case .moved: marker = Self.signed(change.move ?? 0)
        }
        lines.append(
          "| \(marker) | \(markdownFunction(change.name)) | \(change.baseRank.map(String.init) ?? "") | \(change.headRank.map(String.init) ?? "") |"
        )
      }
      if report.changes.count > shown.count {
        lines.append("| | [\(report.changes.count - shown.count) others] | | |")
      }
      lines.append(
        "| \(Self.signed(summary.headEntries - summary.baseEntries)) | **total**: \(summary.added) new, \(summary.removed) deleted, \(summary.moved) moved | \(summary.baseEntries) | \(summary.headEntries) |"
      )
    }
    return lines.joined(separator: "\n") + "\n"
  }

  func code(_ text: String) -> String { TextFormatting.markdownCode(text) }

  static func delta(_ delta: PageComparison.Delta) -> String {
    "\(signed(delta.delta)) (\(signedPercent(from: delta.base, to: delta.head)))"
  }

  /// "+54", "-12", "0".
  static func signed(_ value: Int) -> String { value > 0 ? "+\(value)" : "\(value)" }

  static func signed(_ value: Double, suffix: String) -> String {
    (value > 0 ? "+" : "") + String(format: "%.1f", value) + suffix
  }

  static func coefficient(_ value: Double) -> String { String(format: "%.3f", value) }
}

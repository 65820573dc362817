import OrderfileSupport
import OrderfileSymbolization

/// The estimate as a Markdown table, for merge requests.
public struct EstimateMarkdownRenderer: Renderer {
  public init() {}

  public func render(_ estimate: Estimate) -> String {
    var lines: [String] = []
    lines.append("### Launch page estimate for \(TextFormatting.markdownCode(estimate.binary))")
    lines.append("")
    lines.append(
      "\(estimate.matchedFunctions) of \(estimate.launchFunctions) launch functions found in the binary (\(formatBytes(estimate.launchBytes)))."
    )
    lines.append("")
    lines.append("| page size | now | ordered | lower bound | change |")
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for counts in estimate.pages {
      lines.append(
        "| \(formatBytes(counts.pageSize)) | \(counts.current) | \(counts.ordered) | \(counts.lowerBound) | \(signedPercent(from: counts.current, to: counts.ordered)) |"
      )
    }
    lines.append(
      "| faults (\(formatBytes(estimate.faultAroundBytes)) fault-around) | \(estimate.currentFaults) | \(estimate.orderedFaults) | | \(signedPercent(from: estimate.currentFaults, to: estimate.orderedFaults)) |"
    )
    if let fixed = estimate.fixedCode, let first = estimate.pages.first {
      for line in fixed.estimateLines(first) { lines += ["", TextFormatting.markdownCell(line) + "."] }
    }
    if let measurement = estimate.measurement, measurement.module != nil {
      lines.append("")
      lines.append("Measured by the page probe (\(endText(measurement.launch))):")
      lines.append("")
      lines.append("| page size | estimated now | measured | difference |")
      lines.append("| --- | ---: | ---: | ---: |")
      for row in measurement.rows {
        lines.append(
          "| \(formatBytes(row.pageSize)) | \(row.estimated) | \(row.measured) | \(row.estimated - row.measured)\(row.agrees ? "" : " **!**") |"
        )
      }
      if !measurement.agrees {
        lines.append("")
        lines.append(
          "**Warning:** the estimate differs from the measured pages by more than 3 pages and 3%. Likely causes: "
            + measurement.causes.map(TextFormatting.markdownCell).joined(separator: "; ") + ".")
      }
    }
    if let cold = estimate.coldLaunch { lines += cold.markdownLines() }
    if !estimate.missingFunctions.isEmpty {
      lines.append("")
      lines.append(
        "Not in the binary (\(estimate.missingFunctions.count)): "
          + estimate.missingFunctions.prefix(20).map(markdownFunction).joined(separator: ", "))
    }
    if let releaseOnly = estimate.releaseOnly, !releaseOnly.names.isEmpty {
      lines.append("")
      lines.append(
        "Also counted, \(ReleaseLaunchCode.countedSummary(releaseOnly)): "
          + releaseOnly.names.prefix(20).map(markdownFunction).joined(separator: ", "))
    }
    if let worse = estimate.worseThanDefault {
      lines.append("")
      lines.append("**Not recommended:** " + TextFormatting.markdownCell(worse.message) + ".")
    }
    if let caution = estimate.reorderedBinary {
      lines.append("")
      lines.append("**Caution:** " + TextFormatting.markdownCell(caution.message(binary: estimate.binary)) + ".")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// A function's linker name in code, which is what an orderfile holds, and its demangled
/// name beside it: "`_ZN1a1fEv` (`a::f()`)".
public func markdownFunction(_ name: String) -> String {
  let demangled = Demangler.demangle(name)
  let linker = TextFormatting.markdownCode(name)
  return demangled == name ? linker : "\(linker) (\(TextFormatting.markdownCode(demangled)))"
}

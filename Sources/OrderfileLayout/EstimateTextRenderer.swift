import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// The estimate as a plain-text table for a terminal.
public struct EstimateTextRenderer: Renderer {
  public init() {}

  public func render(_ estimate: Estimate) -> String {
    var lines: [String] = []
    lines.append("binary \(estimate.binary)")
    if let trace = estimate.trace { lines.append("trace  \(trace)") }
    lines.append("order  \(estimate.order ?? "the trace's launch order")")
    lines.append(
      "launch functions: \(estimate.matchedFunctions) of \(estimate.launchFunctions) found in the binary, \(formatBytes(estimate.launchBytes))"
    )
    if let releaseOnly = estimate.releaseOnly, !releaseOnly.names.isEmpty {
      let shown = TextFormatting.list(releaseOnly.names.map(Demangler.withLinkerName), limit: 6)
      lines.append("  also counted, \(ReleaseLaunchCode.countedSummary(releaseOnly)) (\(shown))")
    }
    if let releaseOnly = estimate.releaseOnly, !releaseOnly.uncountedColdParts.isEmpty {
      lines.append(
        "  not counted: \(releaseOnly.uncountedColdParts.count) cold parts of recorded functions that the trace did not see run"
      )
    }
    if !estimate.missingFunctions.isEmpty {
      let shown = estimate.missingFunctions.prefix(8).map(Demangler.withLinkerName).joined(separator: ", ")
      let more = estimate.missingFunctions.count > 8 ? ", …" : ""
      lines.append("  not in the binary (\(estimate.missingFunctions.count)): \(shown)\(more)")
    }
    lines.append("")
    let header = ["page size", "now", "ordered", "lower bound", "change", "curve now", "curve ordered"]
    var rows: [[String]] = [header]
    for counts in estimate.pages {
      rows.append([
        formatBytes(counts.pageSize), String(counts.current), String(counts.ordered), String(counts.lowerBound),
        signedPercent(from: counts.current, to: counts.ordered), String(counts.currentCurveArea),
        String(counts.orderedCurveArea),
      ])
    }
    lines += TextFormatting.table(rows)
    if let fixed = estimate.fixedCode, let first = estimate.pages.first {
      lines += fixed.estimateLines(first)
    }
    if !estimate.dataPages.isEmpty { lines += dataLines(estimate.dataPages) }
    if let fragments = estimate.fragments { lines += fragmentLines(fragments) }
    if let measurement = estimate.measurement { lines += measurementLines(measurement) }
    if let cold = estimate.coldLaunch { lines += cold.textLines() }
    lines.append("")
    if let worse = estimate.worseThanDefault { lines.append("warning: " + worse.message) }
    lines.append(
      "faults with fault-around (\(formatBytes(estimate.faultAroundBytes)) window): \(estimate.currentFaults) now, \(estimate.orderedFaults) ordered"
    )
    if let measured = estimate.measured {
      var parts: [String] = []
      if let minor = measured.minorFaults { parts.append("\(minor) minor faults") }
      if let major = measured.majorFaults { parts.append("\(major) major faults") }
      if let rss = measured.textResidentBytes { parts.append("text resident \(formatBytes(rss))") }
      // The runtime ran in the instrumented build: its faults are that build's, not this binary's.
      if !parts.isEmpty {
        lines.append(
          "measured by the runtime in the instrumented build at window end (not this binary's layout): "
            + parts.joined(separator: ", "))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// The estimate's "now" beside the pages the binary touched under the page probe.
private func measurementLines(_ measurement: PageMeasurement) -> [String] {
  var lines = [
    "",
    "measured by the page probe: \(measurement.launch.command.joined(separator: " ")) (\(endText(measurement.launch)))",
  ]
  guard measurement.module != nil else {
    return lines + ["warning: the run never loaded this binary, so nothing of it was measured"]
  }
  var rows: [[String]] = [["page size", "estimated now", "measured", "difference"]]
  for row in measurement.rows {
    rows.append([
      formatBytes(row.pageSize), String(row.estimated), String(row.measured),
      (row.estimated >= row.measured ? "+" : "") + String(row.estimated - row.measured) + (row.agrees ? "" : " !"),
    ])
  }
  lines += TextFormatting.table(rows)
  if measurement.launch.probePageSize > 4096 {
    lines.append(
      "the system's pages are \(formatBytes(measurement.launch.probePageSize)): smaller page sizes cannot be measured here"
    )
  }
  if measurement.agrees {
    lines.append("the estimate agrees with the measured pages (within 3 pages or 3%)")
  } else {
    lines.append("warning: the estimate differs from the measured pages by more than 3 pages and 3%; likely causes:")
    lines += measurement.causes.map { "  - " + $0 }
  }
  return lines
}

/// How the measured run ended, in words.
func endText(_ launch: MeasuredLaunch) -> String {
  let end: String
  switch launch.end {
  case .exit: end = "counted to exit"
  case .until: end = "counted to the first call of --until"
  case .timeLimit: end = "counted to --time-limit"
  }
  return end + (launch.endedByTool ? ", then ended" : ", exit status \(launch.exitStatus)")
}

/// The read-only data pages the trace saw touched (`record --data`), now and ordered.
private func dataLines(_ counts: [DataPageCounts]) -> [String] {
  var rows: [[String]] = [["page size", "data now", "data ordered", "change"]]
  for count in counts {
    rows.append([
      formatBytes(count.pageSize), String(count.current), count.ordered.map(String.init) ?? "-",
      count.ordered.map { signedPercent(from: count.current, to: $0) } ?? "-",
    ])
  }
  var lines = ["", "read-only data pages the launch touched (recorded with --data):"] + TextFormatting.table(rows)
  if counts.contains(where: { $0.ordered == nil }) {
    lines.append("data ordered: no link map of the binary (-Wl,-Map=BINARY.map) says where its input sections lie")
  }
  return lines
}

/// The split functions' lines: what runs against what whole functions would take.
private func fragmentLines(_ fragments: LaunchFragments) -> [String] {
  let bounds = fragments.bounds.map { "\($0.hotBound) vs \($0.wholeFunctionBound) at \(formatBytes($0.pageSize))" }
  return [
    "",
    "split functions: \(fragments.splitFunctions) launch functions have cold parts; the launch runs \(formatBytes(fragments.hotBytes)) of entry parts and skips \(formatBytes(fragments.coldBytes)) of cold parts",
    "lower bound of entry parts vs whole functions: " + bounds.joined(separator: ", "),
    fragments.hotPartsContiguous
      ? "entry parts contiguous: nothing else between them"
      : "entry parts not contiguous: \(fragments.runs) runs; outside the largest: \(fragments.outsideLargestRun.joined(separator: ", "))",
  ]
}

/// "4 KiB", "1.5 MiB", "312 B".
public func formatBytes(_ bytes: UInt64) -> String {
  if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
  if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
  if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
  if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
  return "\(bytes) B"
}

/// "-62.5%", "+3.0%", "0.0%".
public func signedPercent(from old: Int, to new: Int) -> String {
  guard old != 0 else { return new == 0 ? "0.0%" : "+∞" }
  let change = (Double(new) - Double(old)) / Double(old) * 100
  return (change > 0 ? "+" : "") + String(format: "%.1f%%", change)
}

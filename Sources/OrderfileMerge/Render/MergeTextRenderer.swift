import Foundation
import OrderfileSupport

/// A merge report as text for a terminal.
public struct MergeTextRenderer: Renderer {
  /// List every entry with its statistics.
  public var listFunctions: Bool

  public init(listFunctions: Bool = false) {
    self.listFunctions = listFunctions
  }

  public func render(_ report: MergeReport) -> String {
    var lines: [String] = []
    let weights = report.runs.map { TextFormatting.number($0.weight) }
    let weighting = Set(weights).count == 1 ? "weight \(weights[0]) each" : "weights " + weights.joined(separator: ", ")
    lines.append("merged \(report.runs.count) runs (\(weighting))")
    for run in report.runs {
      var notes: [String] = []
      if !run.closed { notes.append("not closed") }
      if run.droppedFirstCalls > 0 { notes.append("\(run.droppedFirstCalls) first calls dropped: raise --capacity") }
      let note = notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"
      lines.append("  \(run.trace): pid \(run.pid), \(run.launchRecords) launch records\(note)")
    }
    for module in report.modules {
      let destination = module.output.map { " -> \($0)" } ?? ""
      lines.append("module \(module.name)\(destination) [\(report.format.rawValue)]")
      lines.append(
        "  \(module.entries) entries: \(module.inAllRuns) in every run, \(module.inSomeRuns) in some runs (placed after)"
      )
      if let previous = module.previous {
        lines.append(
          "  kept stable against \(previous): \(module.keptPreviousPlace) entries kept a previous place other than their median: the runs reversed their previous order only across threads or in under 90% of the weight"
        )
      }
      if module.buildIDs.count > 1 {
        lines.append(
          "  warning: \(module.buildIDs.count) builds merged by function name: \(module.buildIDs.joined(separator: ", "))"
        )
      }
      for run in module.runs {
        let absent = [(run.inlinedInRelease, "inlined"), (run.renamedInRelease, "renamed")].filter { $0.0 > 0 }
          .map { "\($0.0) \($0.1) in the release build" }
        lines.append(
          "  \(run.trace): \(run.entries) entries, \(TextFormatting.percent(run.matchRate)) matched\(absent.isEmpty ? "" : " (\(absent.joined(separator: ", ")))"), agreement with the merged order τ \(String(format: "%.3f", run.kendallTau))"
        )
      }
      for ambiguous in module.ambiguousNames {
        lines.append(
          "  note: \(ambiguous.addresses.count) local functions are named '\(ambiguous.name)'; the linker places all of them at this entry"
        )
      }
      if listFunctions, let functions = module.functions {
        lines.append("  rank  placed  median  10th-90th pct   mean  runs  presence  function")
        for entry in functions {
          lines.append(
            String(
              format: "  %4d  %6.4f  %6.4f  %6.4f-%6.4f  %6.4f  %4d  %7.1f%%  ", entry.rank, entry.placement,
              entry.medianRank, entry.percentile10, entry.percentile90, entry.meanRank, entry.runs,
              entry.presence * 100) + entry.name)
        }
      }
    }
    for skipped in report.skippedModules {
      let why =
        skipped.reason == .systemLibrary
        ? "is a system library your build does not produce; name it with --module to write its orderfile anyway"
        : "is outside the requested module; use --module or --output-dir"
      lines.append("not emitted: \(skipped.path) (\(skipped.launchRecords) launch records over all runs) \(why)")
    }
    let against =
      !report.releaseBinaries.isEmpty
      ? "against the release binaries"
      : report.runs.contains(where: \.fromRuntime)
        ? "against the instrumented binaries: give --release-binary to match against the binaries you link"
        : "against the recorded binaries, recorded without a rebuild"
    lines.append("match rate \(TextFormatting.percent(report.matchRate)) (the lowest of any run, \(against))")
    return lines.joined(separator: "\n") + "\n"
  }
}

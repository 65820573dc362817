import Foundation
import OrderfileSupport

/// What `generate` did, as text for a terminal.
public struct GenerationTextRenderer: Renderer {
  /// List every entry with its first-call time, thread, demangled name and source line.
  public var listFunctions: Bool

  public init(listFunctions: Bool = false) {
    self.listFunctions = listFunctions
  }

  public func render(_ report: GenerationReport) -> String {
    var lines: [String] = []
    let state = report.trace.closed ? "closed" : "not closed: the process crashed, was killed or called _exit"
    lines.append(
      "trace \(report.trace.path): pid \(report.trace.pid), \(report.trace.records) records read (\(report.trace.launchRecords) in the launch window), \(state)"
    )
    if report.trace.uncommittedRecords > 0 {
      lines.append("  \(report.trace.uncommittedRecords) records were reserved but never completed and were skipped")
    }
    if report.trace.droppedFirstCalls > 0 {
      lines.append("  warning: the runtime dropped \(report.trace.droppedFirstCalls) first calls (capacity full)")
    }
    for module in report.modules {
      let destination = module.output.map { " -> \($0)" } ?? ""
      lines.append("module \(module.path)\(destination) [\(report.format.rawValue)]")
      lines.append(
        "  \(module.entries) entries from \(module.recordedFunctions) recorded functions (\(TextFormatting.percent(module.matchRate)) matched)"
      )
      if module.binary != module.path { lines.append("  symbols from \(module.binary)") }
      if module.duplicateRecords > 0 {
        lines.append("  \(module.duplicateRecords) records folded into functions already listed")
      }
      if !module.unresolvedAddresses.isEmpty {
        let shown = module.unresolvedAddresses.prefix(5).joined(separator: ", ")
        lines.append("  \(module.unresolvedAddresses.count) addresses have no function symbol: \(shown)")
      }
      if !module.unplaceable.isEmpty {
        lines.append(
          "  \(module.unplaceable.count) functions no orderfile can move (no size, or outside .text): \(module.unplaceable.prefix(5).joined(separator: ", "))")
      }
      if !module.coldParts.isEmpty {
        lines.append("  \(module.coldParts.count) cold split parts kept out of the order: \(module.coldParts.prefix(5).joined(separator: ", "))")
      }
      for ambiguous in module.ambiguousNames {
        lines.append(
          "  note: \(ambiguous.addresses.count) local functions are named '\(ambiguous.name)'; the linker places all of them at this entry"
        )
      }
      if listFunctions, let functions = module.functions {
        lines.append(
          "  " + ["rank", "first call", "thread", "function", "source"].joined(separator: "  "))
        for entry in functions {
          let ms = String(format: "%9.3f ms", Double(entry.firstCallNanoseconds) / 1e6)
          lines.append(
            "  \(String(entry.rank).leftPad(4))  \(ms)  \(String(entry.thread).leftPad(6))  \(entry.demangled)  \(entry.source ?? "")"
          )
        }
      }
    }
    for skipped in report.skippedModules {
      lines.append(
        "not emitted: \(skipped.path) (\(skipped.launchRecords) launch records) is outside the requested module; use --module or --output-dir"
      )
    }
    lines.append("match rate \(TextFormatting.percent(report.matchRate))")
    return lines.joined(separator: "\n") + "\n"
  }
}

extension String {
  func leftPad(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}

import Foundation
import OrderfileSupport

/// The BOLT step for people: what ran, what moved, and the cost in time and bytes.
public struct BoltTextRenderer: Renderer {
  public init() {}

  public func render(_ report: BoltReport) throws -> String {
    var lines = ["bolt: \(report.binary) -> \(report.output)"]
    let profiled =
      report.profiledFunctions.map { count in
        " ran \(count) of \(report.binaryFunctions.map(String.init) ?? "?") functions"
      } ?? ""
    lines.append("  profile:  \(report.command.joined(separator: " ")) (instrumented)\(profiled)")
    var order = "  order:    \(report.orderedFunctions) functions first, as in \(report.order)"
    var notes: [String] = []
    if !report.absentFunctions.isEmpty { notes.append("\(report.absentFunctions.count) not in the binary") }
    if report.coldPartsLeftToBolt > 0 { notes.append("\(report.coldPartsLeftToBolt) cold parts left to BOLT") }
    if !notes.isEmpty { order += " (\(notes.joined(separator: ", ")))" }
    lines.append(order)
    if let hot = report.hotBytes, let cold = report.coldBytes {
      lines.append("  split:    \(hot) hot bytes kept, \(cold) cold bytes moved out of the functions BOLT split")
    }
    let growth = Int64(report.outputBytes) - Int64(report.inputBytes)
    lines.append(
      "  size:     \(report.inputBytes) -> \(report.outputBytes) bytes (\(growth >= 0 ? "+" : "")\(growth), \(String(format: "%.2f", report.growth))x)"
    )
    let debug = report.debugInfoBytes
    if debug.dropped {
      lines.append(
        "  debug:    \(debug.input) -> \(debug.output) bytes of debug info: dropped (--keep-debug-info keeps it)"
      )
    }
    if let inPlace = report.textInOldPlace {
      lines.append(
        "  old text: "
          + (inPlace
            ? "the new code went where the old text was"
            : "the new code did not fit where the old text was: BOLT wrote a new segment"))
    }
    let seconds = report.seconds
    lines.append(
      "  time:     instrument \(format(seconds.instrument)) s, launch \(format(seconds.launch)) s, optimize \(format(seconds.optimize)) s"
    )
    if !report.warnings.isEmpty {
      lines.append("  warnings: \(report.warnings.count) from llvm-bolt")
      let shown = report.warnings.prefix(Self.warningsShown)
      lines += shown.map { "    " + $0 }
      if report.warnings.count > shown.count {
        lines.append("    and \(report.warnings.count - shown.count) more (--json lists them all)")
      }
    }
    lines.append("  options:  \(report.optimizeOptions.joined(separator: " "))")
    return lines.joined(separator: "\n") + "\n"
  }

  /// BOLT's warnings printed in full before the rest is left to `--json`.
  static let warningsShown = 10

  private func format(_ seconds: Double) -> String {
    String(format: "%.2f", seconds)
  }
}

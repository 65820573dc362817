import Foundation
import OrderfileSymbolization
import OrderfileTrace

/// What `generate` did, as data: rendered as text for people and as JSON for machines.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md).
public struct GenerationReport: Codable, Sendable, Equatable {
  public struct TraceSummary: Codable, Sendable, Equatable {
    public var path: String
    public var pid: UInt32
    public var closed: Bool
    public var windowReason: WindowReason
    public var records: Int
    public var launchRecords: Int
    public var uncommittedRecords: Int
    public var droppedFirstCalls: UInt64
  }

  public struct Entry: Codable, Sendable, Equatable {
    public var rank: Int
    public var name: String
    public var demangled: String
    public var address: String
    public var size: UInt64
    public var section: String
    public var firstCallNanoseconds: UInt64
    public var thread: UInt32
    public var source: String?
  }

  public struct Module: Codable, Sendable, Equatable {
    public var path: String
    public var binary: String
    public var buildID: String
    public var output: String?
    public var recordedFunctions: Int
    public var entries: Int
    public var matchRate: Double
    public var duplicateRecords: Int
    public var foldedAliases: Int
    public var unresolvedAddresses: [String]
    public var coldParts: [String]
    public var unplaceable: [String]
    public var ambiguousNames: [AmbiguousName]
    public var functions: [Entry]?
  }

  public struct Skipped: Codable, Sendable, Equatable {
    public var path: String
    public var launchRecords: Int
  }

  public var trace: TraceSummary
  public var format: OrderfileFormat
  public var matchRate: Double
  public var modules: [Module]
  public var skippedModules: [Skipped]

  public init(_ generation: Generation, format: OrderfileFormat, outputs: [String: String], includeFunctions: Bool) {
    let trace = generation.trace
    self.trace = TraceSummary(
      path: trace.path, pid: trace.header.pid, closed: trace.header.isClosed,
      windowReason: trace.header.windowReason, records: trace.records.count,
      launchRecords: trace.launchRecords.count, uncommittedRecords: trace.uncommittedRecords,
      droppedFirstCalls: trace.header.droppedCount)
    self.format = format
    self.matchRate = generation.matchRate
    self.modules = generation.orders.map { order in
      Module(
        path: order.module.path, binary: order.binaryPath, buildID: order.module.buildIDHex,
        output: outputs[order.module.path], recordedFunctions: order.recordedFunctions,
        entries: order.functions.count, matchRate: order.matchRate, duplicateRecords: order.duplicateRecords,
        foldedAliases: order.foldedAliases,
        unresolvedAddresses: order.unresolvedAddresses.map { "0x" + String($0, radix: 16) },
        coldParts: order.coldParts, unplaceable: order.unplaceable, ambiguousNames: order.ambiguousNames,
        functions: includeFunctions
          ? order.functions.enumerated().map { rank, function in
            Entry(
              rank: rank + 1, name: function.symbol.name, demangled: Demangler.demangle(function.symbol.name),
              address: "0x" + String(function.symbol.address, radix: 16), size: function.symbol.size,
              section: function.symbol.sectionName, firstCallNanoseconds: function.firstCallNanoseconds,
              thread: function.threadID, source: function.source.map { "\($0.file):\($0.line)" })
          } : nil)
    }
    self.skippedModules = generation.skipped.map { Skipped(path: $0.path, launchRecords: $0.launchRecords) }
  }

  public static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }

  /// The human-readable report.
  public func renderText(listFunctions: Bool) -> String {
    var lines: [String] = []
    let state = trace.closed ? "closed" : "not closed: the process crashed, was killed or called _exit"
    lines.append(
      "trace \(trace.path): pid \(trace.pid), \(trace.records) records read (\(trace.launchRecords) in the launch window), \(state)"
    )
    if trace.uncommittedRecords > 0 {
      lines.append("  \(trace.uncommittedRecords) records were reserved but never completed and were skipped")
    }
    if trace.droppedFirstCalls > 0 {
      lines.append("  warning: the runtime dropped \(trace.droppedFirstCalls) first calls (capacity full)")
    }
    for module in modules {
      let destination = module.output.map { " -> \($0)" } ?? ""
      lines.append("module \(module.path)\(destination) [\(format.rawValue)]")
      lines.append(
        "  \(module.entries) entries from \(module.recordedFunctions) recorded functions (\(Self.percent(module.matchRate)) matched)"
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
    for skipped in skippedModules {
      lines.append(
        "not emitted: \(skipped.path) (\(skipped.launchRecords) launch records) is outside the requested module; use --module or --output-dir"
      )
    }
    lines.append("match rate \(Self.percent(matchRate))")
    return lines.joined(separator: "\n")
  }
}

extension String {
  func leftPad(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}

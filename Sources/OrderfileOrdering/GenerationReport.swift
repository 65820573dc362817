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
    /// Whether the program's runtime wrote the trace (an instrumented build), not `record`
    /// without a rebuild.
    public var fromRuntime: Bool
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

  /// A module's entries checked against the release binary (`--release-binary`).
  public struct Release: Codable, Sendable, Equatable {
    public var binary: String
    /// Recorded functions in the release binary under their recorded name.
    public var present: Int
    /// Recorded functions the release build inlined (no function of that name or a clone of it).
    public var inlined: [String]
    /// Recorded functions the release build has as a clone of another name.
    public var renamed: [AbsentFunction]
    /// Whether those stayed in the orderfile (`--keep-absent`).
    public var keptInOrderfile: Bool
    /// The release binary's copies of launch functions placed beside them (`foo.part.0`).
    public var placedCopies: [String]
    /// The release binary's cold parts of launch functions placed last, for a trace of an
    /// instrumented build (which cannot see a cold part run).
    public var placedColdParts: [String]
    /// Rust functions found in the release binary under another hash, entered under it.
    public var rehashed: [ReleaseComparison.Rehash]

    public init(_ comparison: ReleaseComparison, present: Int) {
      binary = comparison.binaryPath
      self.present = present
      inlined = comparison.absent.filter { $0.reason == .inlined }.map(\.name)
      renamed = comparison.absent.filter { $0.reason == .renamed }
      keptInOrderfile = comparison.keptAbsent
      placedCopies = comparison.placedCopies
      placedColdParts = comparison.placedColdParts
      rehashed = comparison.rehashed
    }
  }

  /// What an orderfile places of the launch's read-only data.
  public struct DataSummary: Codable, Sendable, Equatable {
    /// Pages of read-only data the launch touched.
    public var touchedPages: Int
    /// Pieces of data it touched: objects and input sections.
    public var pieces: Int
    /// Lines of the orderfile that place them: named objects in a symbol orderfile, input
    /// sections in an lld script.
    public var lines: Int
    /// Pieces with no symbol, which only an lld script places.
    public var withoutSymbol: Int
    /// The linker's merged sections the launch touched (`.rodata.str1.1`).
    public var mergedSections: [String]

    public init(_ data: LaunchData, format: OrderfileFormat) {
      touchedPages = data.touchedPages
      pieces = data.pieces.filter { $0.size > 0 }.count
      lines = Set(data.pieces.flatMap(format.lines(for:))).count
      withoutSymbol = data.pieces.filter { $0.name == nil && $0.size > 0 }.count
      mergedSections = data.mergedSections
    }
  }

  public struct Module: Codable, Sendable, Equatable {
    public var path: String
    public var binary: String
    public var buildID: String
    public var output: String?
    public var recordedFunctions: Int
    /// Functions in the order.
    public var entries: Int
    /// Lines of the orderfile written for them: fewer when local functions share a name (one
    /// line places them all), more for gold, which names each possible section.
    public var lines: Int
    public var matchRate: Double
    /// The binary's static initializers, placed first in the order the loader runs them.
    public var staticInitializers: [String]
    /// Of those, the ones the trace did not record (clang does not instrument them).
    public var unrecordedInitializers: Int
    /// Set when the order makes the launch touch more pages than the default layout does.
    public var worseThanDefault: WorseLayout?
    public var duplicateRecords: Int
    public var foldedAliases: Int
    public var unresolvedAddresses: [String]
    public var coldParts: [String]
    /// Cold parts the launch ran, placed after the other entries.
    public var placedColdParts: [String]
    public var unplaceable: [String]
    /// Recorded functions left out because lld would refuse them: their names resolve to a
    /// shared library's symbol (an entry for them would warn on every link).
    public var refusedByLinker: [String] = []
    /// Entries lld warns about ("unable to order shared symbol") yet places: the binary's
    /// own copy of a name a shared library also exports with a version.
    public var warnedByLinker: [String] = []
    /// Launch code without a symbol that this format cannot name, and its bytes.
    public var withoutSymbol: [String]
    public var withoutSymbolBytes: UInt64
    /// Launch pages with that code where it is, and with it placed, per page size.
    public var withoutSymbolCost: [CodeWithoutSymbolCost]
    public var ambiguousNames: [AmbiguousName]
    /// The launch's read-only data, when the trace recorded it (`record --data`).
    public var data: DataSummary? = nil
    /// Against the release binary, when one was given; `matchRate` is then the release match rate.
    public var release: Release?
    public var functions: [Entry]?
  }

  public var trace: TraceSummary
  public var format: OrderfileFormat
  public var matchRate: Double
  public var modules: [Module]
  public var skippedModules: [SkippedModule]

  public init(_ generation: Generation, format: OrderfileFormat, outputs: [String: String], includeFunctions: Bool) {
    let trace = generation.trace
    self.trace = TraceSummary(
      path: trace.path, pid: trace.header.pid, closed: trace.header.isClosed,
      windowReason: trace.header.windowReason, records: trace.records.count,
      launchRecords: trace.launchRecords.count, uncommittedRecords: trace.uncommittedRecords,
      droppedFirstCalls: trace.header.droppedCount, fromRuntime: trace.header.isFromRuntime)
    self.format = format
    self.matchRate = generation.matchRate
    self.modules = generation.orders.map { order in
      Module(
        path: order.module.path, binary: order.binaryPath, buildID: order.module.buildIDHex,
        output: outputs[order.module.path], recordedFunctions: order.recordedFunctions,
        entries: order.functions.count, lines: format.lineCount(order.functions.map(\.symbol)),
        matchRate: order.matchRate, staticInitializers: order.staticInitializers,
        unrecordedInitializers: order.unrecordedInitializers, worseThanDefault: order.worseLayout,
        duplicateRecords: order.duplicateRecords,
        foldedAliases: order.foldedAliases,
        unresolvedAddresses: order.unresolvedAddresses.map { "0x" + String($0, radix: 16) },
        coldParts: order.coldParts, placedColdParts: order.placedColdParts, unplaceable: order.unplaceable,
        refusedByLinker: order.refusedByLinker, warnedByLinker: order.warnedByLinker,
        withoutSymbol: order.withoutSymbol, withoutSymbolBytes: order.withoutSymbolBytes,
        withoutSymbolCost: order.withoutSymbolCost,
        ambiguousNames: order.ambiguousNames,
        data: order.data.touchedPages == 0 ? nil : DataSummary(order.data, format: format),
        release: order.release.map { Release($0, present: order.matchedFunctions) },
        functions: includeFunctions
          ? order.functions.enumerated().map { rank, function in
            Entry(
              rank: rank + 1, name: function.symbol.name, demangled: Demangler.demangle(function.symbol.name),
              address: "0x" + String(function.symbol.address, radix: 16), size: function.symbol.size,
              section: function.symbol.sectionName, firstCallNanoseconds: function.firstCallNanoseconds,
              thread: function.threadID, source: function.source.map { "\($0.file):\($0.line)" })
          } : nil)
    }
    self.skippedModules = generation.skipped
  }
}

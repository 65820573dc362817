import OrderfileOrdering
import OrderfileTrace

/// What `merge` did, as data: rendered as text for people and as JSON for machines.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md).
public struct MergeReport: Codable, Sendable, Equatable {
  public struct Run: Codable, Sendable, Equatable {
    public var trace: String
    public var weight: Double
    public var pid: UInt32
    public var closed: Bool
    public var windowReason: WindowReason
    public var launchRecords: Int
    public var droppedFirstCalls: UInt64
    /// Whether the program's runtime wrote the trace (an instrumented build), not `record`
    /// without a rebuild.
    public var fromRuntime: Bool
  }

  public struct ModuleRun: Codable, Sendable, Equatable {
    public var trace: String
    public var weight: Double
    public var entries: Int
    public var recordedFunctions: Int
    public var matchRate: Double
    /// Recorded functions the release binary lacks because the release build inlined them.
    public var inlinedInRelease: Int
    /// Recorded functions the release binary has under another (clone) name.
    public var renamedInRelease: Int
    /// Kendall's τ of this run's order against the merged order.
    public var kendallTau: Double
  }

  /// A merged function with its 1-based rank; encoded flat, as the rank beside the
  /// `MergedEntry` fields.
  @dynamicMemberLookup
  public struct Entry: Codable, Sendable, Equatable {
    public var rank: Int
    public var statistics: MergedEntry

    public init(rank: Int, statistics: MergedEntry) {
      self.rank = rank
      self.statistics = statistics
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<MergedEntry, Value>) -> Value {
      statistics[keyPath: keyPath]
    }

    enum CodingKeys: String, CodingKey { case rank }

    public init(from decoder: Decoder) throws {
      rank = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .rank)
      statistics = try MergedEntry(from: decoder)
    }

    public func encode(to encoder: Encoder) throws {
      try statistics.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(rank, forKey: .rank)
    }
  }

  public struct Module: Codable, Sendable, Equatable {
    public var name: String
    public var path: String
    public var buildIDs: [String]
    public var output: String?
    public var entries: Int
    public var inAllRuns: Int
    public var inSomeRuns: Int
    public var matchRate: Double
    /// The orderfile the merge kept stable against (`--previous`).
    public var previous: String?
    /// Entries placed where the previous orderfile had them rather than at their median.
    public var keptPreviousPlace: Int
    public var runs: [ModuleRun]
    public var ambiguousNames: [AmbiguousName]
    public var functions: [Entry]?
  }

  public var format: OrderfileFormat
  /// The lowest match rate of any run in any merged module; `--min-match` gates on it.
  public var matchRate: Double
  /// The release binaries entries were checked against (`--release-binary`).
  public var releaseBinaries: [String]
  public var runs: [Run]
  public var modules: [Module]
  public var skippedModules: [SkippedModule]

  public init(
    _ merge: Merge, format: OrderfileFormat, outputs: [String: String], includeFunctions: Bool,
    releaseBinaries: [String] = []
  ) {
    self.releaseBinaries = releaseBinaries
    self.format = format
    self.matchRate = merge.matchRate
    self.runs = merge.runs.map { run in
      Run(
        trace: run.input.path, weight: run.input.weight, pid: run.trace.header.pid,
        closed: run.trace.header.isClosed, windowReason: run.trace.header.windowReason,
        launchRecords: run.trace.launchRecords.count, droppedFirstCalls: run.trace.header.droppedCount,
        fromRuntime: run.trace.header.isFromRuntime)
    }
    self.modules = merge.modules.map { module in
      Module(
        name: module.name, path: module.path, buildIDs: module.buildIDs, output: outputs[module.name],
        entries: module.entries.count, inAllRuns: module.entries.filter(\.inAllRuns).count,
        inSomeRuns: module.entries.filter { !$0.inAllRuns }.count, matchRate: module.matchRate,
        previous: module.previous?.source,
        keptPreviousPlace: module.previous == nil ? 0 : module.entries.filter { $0.placement != $0.medianRank }.count,
        runs: module.runs.map {
          ModuleRun(
            trace: $0.trace, weight: $0.weight, entries: $0.order.count, recordedFunctions: $0.recordedFunctions,
            matchRate: $0.matchRate, inlinedInRelease: $0.absentFromRelease.filter { $0.reason == .inlined }.count,
            renamedInRelease: $0.absentFromRelease.filter { $0.reason == .renamed }.count,
            kendallTau: $0.agreement.kendallTau)
        },
        ambiguousNames: module.ambiguousNames,
        functions: includeFunctions
          ? module.entries.enumerated().map { rank, entry in
            Entry(rank: rank + 1, statistics: entry)
          } : nil)
    }
    self.skippedModules = merge.skipped
  }
}

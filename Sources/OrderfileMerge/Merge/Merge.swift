import OrderfileOrdering
import OrderfileSymbolization
import OrderfileTrace

/// The result of merging several runs: one merged order per module.
public struct Merge: Sendable {
  /// One input run as it was read.
  public struct Run: Sendable {
    public var input: WeightedTrace
    public var trace: Trace
  }

  /// How one run saw one module, and how well it agrees with the merged order.
  public struct ModuleRun: Sendable, Equatable {
    public var trace: String
    public var weight: Double
    /// The functions this run recorded in the module, in first-call order.
    public var order: [String]
    /// Distinct functions the run recorded: entries + unresolved addresses + cold parts
    /// (+ functions the release binary lacks, when they were left out).
    public var recordedFunctions: Int
    /// Entries the binary that will be linked has (the release binary's, when given).
    public var matchedFunctions: Int
    /// Recorded functions the release binary lacks.
    public var absentFromRelease: [AbsentFunction]
    public var unresolvedAddresses: Int
    public var coldParts: Int
    /// The run's order against the merged one, over the functions both list.
    public var agreement: RankCorrelation

    /// The share of recorded functions that resolved to entries.
    public var matchRate: Double {
      recordedFunctions == 0 ? 1 : Double(matchedFunctions) / Double(recordedFunctions)
    }
  }

  /// The merged order of one module.
  public struct Module: Sendable {
    /// The module's file name: modules of different runs are matched by it, or by build-id or
    /// real file where runs named one module by two names (`ModuleFile`).
    public var name: String
    /// The path the module was loaded from, as the first run (in canonical order) recorded it.
    public var path: String
    /// The module's index in that run's trace.
    public var index: Int
    /// The name of its orderfile in a directory, without the extension: the file name, or
    /// `<name>-<index>` when another merged module has the same file name.
    public var fileName: String
    /// The distinct build-ids the runs recorded, sorted; more than one only with mixed builds allowed.
    public var buildIDs: [String]
    public var isMainExecutable: Bool
    /// The merged order with each function's statistics.
    public var entries: [MergedEntry]
    /// The symbol of each entry, in the same order, for rendering.
    public var symbols: [FunctionSymbol]
    /// The launch's data over the runs that recorded it (see `TraceMerger.mergeData`).
    public var data: [LaunchDataPiece] = []
    /// The function an lld script puts last, as the first run (in canonical order) that has
    /// one found it (`ModuleOrder.unwoundMain`).
    public var unwoundMain: FunctionSymbol? = nil
    /// What an lld script moves besides, over the runs (`ScriptMoves.merged`).
    public var scriptMoves = ScriptMoves()
    /// The runs that recorded this module, in canonical order.
    public var runs: [ModuleRun]
    /// Local names of entries that other functions of the binary share (from any run).
    public var ambiguousNames: [AmbiguousName]
    /// The order this merge replaced and kept stable against, if one was given.
    public var previous: PreviousOrder?

    /// What the merged orderfile places: what `generate` places from one trace, merged.
    public var placement: LaunchPlacement {
      LaunchPlacement(functions: symbols, data: data, last: unwoundMain, moves: scriptMoves)
    }

    /// The merged order as an orderfile to write.
    public func orderfile(_ format: OrderfileFormat) -> ModuleOrderfile {
      ModuleOrderfile(modulePath: path, moduleIndex: index, text: placement.text(format))
    }

    /// The lowest match rate of any run.
    public var matchRate: Double { runs.map(\.matchRate).min() ?? 1 }
  }

  /// The runs in canonical order (by trace path, then weight).
  public var runs: [Run]
  /// Merged modules: the main executable first, then by name.
  public var modules: [Module]
  /// Recorded modules outside the selection, by name; launch records summed over the runs.
  public var skipped: [SkippedModule]
  /// Traces given but left out: they have no launch records.
  public var withoutLaunchRecords: [String] = []

  /// The lowest match rate of any run in any merged module.
  public var matchRate: Double { modules.map(\.matchRate).min() ?? 1 }
}

import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Reads several traces, symbolizes each and merges their launch orders module by module.
///
/// Modules of different runs are matched by file name. Every run of one module must come
/// from the same build (the same GNU build-id) unless `allowMixedBuilds` is set, in which
/// case functions are matched by name alone. A module's merge counts only the runs that
/// recorded it, so a library that one launch scenario never loads does not make its
/// functions look rare.
public struct TraceMerger {
  public var selection: ModuleSelection
  /// Finds and opens each module's binary, once for all runs.
  public var binaries: BinaryResolver
  public var builder: OrderBuilder
  public var allowMixedBuilds: Bool
  /// Reads a trace; tests replace it to merge traces built in memory.
  public var readTrace: (String) throws -> Trace
  /// The order a module's merge replaces, by the module's orderfile name (see
  /// `Merge.Module.fileName`), if any: functions whose runs agree with their place there
  /// keep it (see `MergeRanker`).
  public var previousOrder: (String) throws -> PreviousOrder?
  /// The binaries that will be linked, to check each run's order against.
  public var release: ReleaseBinaries?

  public init(
    selection: ModuleSelection = .all, binaries: BinaryResolver = BinaryResolver(),
    builder: OrderBuilder = OrderBuilder(), allowMixedBuilds: Bool = false,
    readTrace: @escaping (String) throws -> Trace = { try TraceReader.read(path: $0) },
    previousOrder: @escaping (String) throws -> PreviousOrder? = { _ in nil }, release: ReleaseBinaries? = nil
  ) {
    self.release = release
    self.selection = selection
    self.binaries = binaries
    self.builder = builder
    self.allowMixedBuilds = allowMixedBuilds
    self.readTrace = readTrace
    self.previousOrder = previousOrder
  }

  /// Every weight must be finite and positive, and so must their sum: an infinite total
  /// makes every share NaN (`WeightedTrace(argument:)` checks each weight, but not the sum,
  /// and callers may build inputs directly).
  static func checkWeights(_ inputs: [WeightedTrace]) throws {
    for input in inputs where !(input.weight.isFinite && input.weight > 0) {
      throw MergeError.badWeight(argument: "\(input.path):\(input.weight)", weight: "\(input.weight)")
    }
    guard inputs.reduce(0.0, { $0 + $1.weight }).isFinite else {
      throw MergeError.weightsOverflow(weights: inputs.map { "\($0.path):\($0.weight)" })
    }
  }

  public func merge(_ inputs: [WeightedTrace]) throws -> Merge {
    guard !inputs.isEmpty else { throw MergeError.noTraces }
    try Self.checkWeights(inputs)
    let read = try inputs.sorted(by: WeightedTrace.canonicalOrder).map {
      Merge.Run(input: $0, trace: try readTrace($0.path))
    }
    // A trace without launch records (a system program the launch started: `record` of an
    // older version kept those) adds nothing to any order: it is left out, and said so.
    let ordering = Generator(binaries: binaries, builder: builder)
    let runs = read.filter { ordering.hasLaunchRecords($0.trace) }
    guard !runs.isEmpty else {
      if read.count == 1, let only = read.first { try _ = ordering.generate(only.trace) }
      throw MergeError.noLaunchRecords(traces: read.map(\.input.path))
    }
    try release?.checkMatched(
      modules: runs.flatMap(\.trace.modules), traces: runs.map(\.input.path), binaries: binaries)
    let selections = try runSelections(runs)
    let runKeys = Self.moduleKeys(runs)
    try checkBuilds(runs, keys: runKeys, selections: selections)

    var grouped: [String: [(run: Merge.Run, order: ModuleOrder)]] = [:]
    var skipped: [String: Int] = [:]
    var skippedPaths: [String: String] = [:]
    var skippedReasons: [String: SkippedModule.Reason] = [:]
    for (run, (selection, keys)) in zip(runs, zip(selections, runKeys)) {
      guard let selection else { continue }
      let generator = Generator(selection: selection, binaries: binaries, builder: builder, release: release)
      let generation = try generator.generate(run.trace)
      for order in generation.orders {
        grouped[keys[order.module.index], default: []].append((run, order))
      }
      for module in generation.skipped {
        let key = PathName.base(of: module.path)
        skipped[key, default: 0] += module.launchRecords
        if skippedPaths[key] == nil { skippedPaths[key] = module.path }
        skippedReasons[key] = module.reason
      }
    }

    // Main executable first, then by name; each module's orderfile name follows from that
    // order, and its previous orderfile is looked up under it.
    let keys = grouped.keys.map { key in (key, grouped[key, default: []].contains { $0.order.module.isMainExecutable })
    }
    .sorted { a, b in
      if a.1 != b.1 { return a.1 }
      return a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
    }.map(\.0)
    let fileNames = OrderfileWriter.fileNames(
      keys.map { key in
        grouped[key, default: []].first.map { ($0.order.module.path, $0.order.module.index) } ?? (key, 0)
      })
    let modules = try zip(keys, fileNames).map { key, fileName in
      try mergeModule(key, grouped[key, default: []], fileName: fileName, previous: try previousOrder(fileName))
    }
    let skippedModules = skipped.keys.filter { grouped[$0] == nil }
      .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      .map {
        SkippedModule(
          path: skippedPaths[$0] ?? $0, launchRecords: skipped[$0] ?? 0, reason: skippedReasons[$0] ?? .notSelected)
      }
    var merge = Merge(runs: runs, modules: modules, skipped: skippedModules)
    merge.withoutLaunchRecords = read.filter { !ordering.hasLaunchRecords($0.trace) }.map(\.input.path)
    return merge
  }

  func mergeModule(
    _ key: String, _ orders: [(run: Merge.Run, order: ModuleOrder)], fileName: String, previous: PreviousOrder?
  ) throws -> Merge.Module {
    let runOrders = orders.map {
      RunOrder(
        label: $0.run.input.path, weight: $0.run.input.weight, names: $0.order.functions.map(\.symbol.name),
        threads: $0.order.functions.map(\.threadID))
    }
    let entries = MergeRanker.rank(runOrders, previous: previous?.names)
    // The first run (in canonical order) that lists a name supplies its symbol.
    var symbols: [String: FunctionSymbol] = [:]
    for (_, order) in orders {
      for function in order.functions where symbols[function.symbol.name] == nil {
        symbols[function.symbol.name] = function.symbol
      }
    }
    let merged = entries.map(\.name)
    let moduleRuns = orders.map { run, order in
      Merge.ModuleRun(
        trace: run.input.path, weight: run.input.weight, order: order.functions.map(\.symbol.name),
        recordedFunctions: order.recordedFunctions, matchedFunctions: order.matchedFunctions,
        absentFromRelease: order.release?.absent ?? [], unresolvedAddresses: order.unresolvedAddresses.count,
        coldParts: order.coldParts.count,
        agreement: RankCorrelation(base: merged, head: order.functions.map(\.symbol.name)))
    }
    var ambiguous: [String: AmbiguousName] = [:]
    for (_, order) in orders {
      for name in order.ambiguousNames where ambiguous[name.name] == nil { ambiguous[name.name] = name }
    }
    let first = orders[0].order.module
    return Merge.Module(
      name: key, path: first.path, index: first.index, fileName: fileName,
      buildIDs: Set(orders.map(\.order.module.buildIDHex)).sorted(),
      isMainExecutable: orders.contains { $0.order.module.isMainExecutable },
      entries: entries, symbols: entries.compactMap { symbols[$0.name] },
      data: Self.mergeData(orders.map { (weighted: $0.run.input, data: $0.order.data) }),
      unwoundMain: orders.lazy.compactMap(\.order.unwoundMain).first,
      scriptMoves: ScriptMoves.merged(orders.map(\.order.scriptMoves)), runs: moduleRuns,
      ambiguousNames: ambiguous.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) },
      previous: previous)
  }

  /// The launch's data of one module over its runs (in canonical order), ranked by the rule
  /// that ranks its functions (`MergeRanker`, without a previous order): each piece's first
  /// touch as a share of the way through its run's data, weighted; the pieces every run
  /// touched first, then the others by the weight of the runs that touched them. The merged
  /// literals of the objects that ran are ranked alike, each kind where its run first read it
  /// (`LaunchData.touched`). A run that
  /// recorded no data of the module (recorded without `--data`) takes no part, so its data
  /// is simply absent rather than rare; one run merged alone keeps its order.
  static func mergeData(_ runs: [(weighted: WeightedTrace, data: LaunchData)]) -> [LaunchDataPiece] {
    let recorded = runs.filter { $0.data.touchedPages > 0 }
    // The first run (in canonical order) that touched a piece supplies it.
    var pieces: [String: LaunchDataPiece] = [:]
    let orders = recorded.map { run in
      RunOrder(
        label: run.weighted.path, weight: run.weighted.weight,
        names: run.data.pieces.map { piece in
          let key = dataKey(piece)
          if pieces[key] == nil { pieces[key] = piece }
          return key
        })
    }
    return MergeRanker.rank(orders).compactMap { pieces[$0.name] }
  }

  /// One name for a piece of launch data in every run: its output section, input section and
  /// symbol, which one build gives the same in each run.
  static func dataKey(_ piece: LaunchDataPiece) -> String {
    [piece.outputSection.name, piece.input.map { $0.object + "(" + $0.section + ")" } ?? "", piece.name ?? ""]
      .joined(separator: "\u{0}")
  }

  /// The selection to use for each run; nil for a run that does not record the named module.
  func runSelections(_ runs: [Merge.Run]) throws -> [ModuleSelection?] {
    guard case .named(let name) = selection else { return runs.map { _ in selection } }
    let selections = runs.map { run -> ModuleSelection? in
      let matches = run.trace.modules.contains { $0.isNamed(name) }
      return matches ? selection : nil
    }
    guard selections.contains(where: { $0 != nil }) else {
      let available = Set(runs.flatMap { run in run.trace.modules.map(\.path) })
      throw MergeError.noSuchModule(name: name, available: available.sorted())
    }
    return selections
  }

  /// Refuses runs whose modules of one name come from different builds.
  func checkBuilds(_ runs: [Merge.Run], keys runKeys: [[String]], selections: [ModuleSelection?]) throws {
    guard !allowMixedBuilds else { return }
    var first: [String: (trace: String, buildID: String)] = [:]
    for (run, (selection, keys)) in zip(runs, zip(selections, runKeys)) {
      guard let selection else { continue }
      for module in run.trace.modules where selection.includes(module, of: run.trace) {
        let key = keys[module.index]
        guard let seen = first[key] else {
          first[key] = (run.input.path, module.buildIDHex)
          continue
        }
        if seen.buildID != module.buildIDHex {
          throw MergeError.mixedBuilds(
            module: key, trace: seen.trace, buildID: seen.buildID, otherTrace: run.input.path,
            otherBuildID: module.buildIDHex)
        }
      }
    }
  }

  /// The key each module of each run is merged under: its key in its own trace, or the key
  /// of the module an earlier run recorded under another name that is the same module
  /// (`ModuleFile`: one recorder named a library by its SONAME link, another by its real file).
  static func moduleKeys(_ runs: [Merge.Run]) -> [[String]] {
    var seenKeys = Set<String>()
    // The first module under each key, and its file, read only once a run brings a key not seen.
    var seen: [(key: String, module: TraceModule)] = []
    var seenFiles: [ModuleFile] = []
    return runs.map { run in
      var keys = moduleKeys(run.trace)
      let own = Set(keys)
      for module in run.trace.modules where !seen.isEmpty && !seenKeys.contains(keys[module.index]) {
        seenFiles += seen[seenFiles.count...].map(\.module.file)
        if let match = module.file.firmest(in: seenFiles).first, !own.contains(seen[match].key) {
          keys[module.index] = seen[match].key
        }
      }
      for module in run.trace.modules where seenKeys.insert(keys[module.index]).inserted {
        seen.append((keys[module.index], module))
      }
      return keys
    }
  }

  /// The key each module of `trace` is merged under: its file name, or its full path when
  /// two modules of the trace share a file name.
  static func moduleKeys(_ trace: Trace) -> [String] {
    let names = trace.modules.map { PathName.base(of: $0.path) }
    var counts: [String: Int] = [:]
    for name in names { counts[name, default: 0] += 1 }
    return trace.modules.map { module in
      let name = names[module.index]
      return counts[name] == 1 && !name.isEmpty ? name : module.path
    }
  }
}

/// The order a merge replaces: where it came from and its function names.
public struct PreviousOrder: Sendable, Equatable {
  /// The orderfile's path, for reports.
  public var source: String
  public var names: [String]

  public init(source: String, names: [String]) {
    self.source = source
    self.names = names
  }
}

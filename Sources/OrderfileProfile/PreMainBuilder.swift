import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Splits the time before `main` into the loader's work, the runtime's start-up and each
/// module's static initializers.
///
/// The binaries say which functions are static initializers (`StaticInitializer`), but not
/// every one of them is recorded: clang does not instrument `_GLOBAL__sub_I_*`, only the
/// constructors and the functions they call. So a module's initializers are taken to start
/// at the first recorded call of one of them, or, failing that, at the first recorded call
/// into a module that has initializers and has not run them yet. The loader runs a
/// module's initializers after those of the libraries it needs, and the executable's last,
/// so a call into a library from the executable's initializers does not start that
/// library's, nor, for a library loaded at start (one the load order places), does a
/// late-stamped first call of one of its own initializers (seen with both recorders for
/// `frame_dummy`, which only jumps on). Each module's initializers end where the next
/// module's start, or at `main`.
///
/// Only the main thread counts: the loader runs every initializer there.
struct PreMainBuilder {
  var trace: Trace
  var symbols: SymbolTable
  /// Converts a trace time to nanoseconds from process start.
  var relative: (UInt64) -> UInt64

  func build(main: UInt64) -> StartupProfile.PreMain {
    let preMain = trace.records.filter { $0.threadID == trace.header.pid && relative($0.timeNanoseconds) < main }
      .sorted { $0.timeNanoseconds < $1.timeNanoseconds }
    let mainModule = trace.modules.first(where: \.isMainExecutable)?.index
    var initializerStarts: [Int: Set<UInt64>] = [:]
    for module in trace.modules {
      initializerStarts[module.index] = Set(
        symbols.staticInitializers(module: module.index).map { $0.function?.address ?? $0.address })
    }

    var runs: [StartupProfile.PreMain.Initializers] = []
    var runModules: [Int] = []
    let loadOrder = loadOrder()
    var seenFunctions = Set<FunctionKey>()
    for record in preMain {
      let start = symbols.functionStart(module: record.module, address: record.address)
      guard seenFunctions.insert(FunctionKey(module: record.module, address: start)).inserted else { continue }
      let starts = initializerStarts[record.module] ?? []
      let isInitializer = starts.contains(start)
      let current = runModules.last
      let startsRun: Bool
      if isInitializer {
        // The loader runs the initializers of every library it loaded at start before it
        // jumps to the executable's entry: one of theirs first called after the
        // executable's began is a late time stamp, not a second run of that library.
        startsRun =
          current != record.module
          && !(runModules.contains { $0 == mainModule } && (loadOrder[record.module] ?? 0) > 0)
      } else {
        startsRun = !starts.isEmpty && !runModules.contains(record.module) && current != mainModule
      }
      let time = relative(record.timeNanoseconds)
      let name = symbols.name(module: record.module, address: record.address, in: trace)
      if startsRun {
        if !runs.isEmpty { runs[runs.count - 1].endNanoseconds = time }
        runs.append(
          .init(
            module: trace.modules[record.module].path, startNanoseconds: time, endNanoseconds: main,
            durationNanoseconds: 0, initializers: [], functions: []))
        runModules.append(record.module)
      }
      guard !runs.isEmpty else { continue }
      runs[runs.count - 1].functions.append(name)
      if isInitializer, runModules.last == record.module { runs[runs.count - 1].initializers.append(name) }
    }
    for index in runs.indices {
      runs[index].durationNanoseconds = runs[index].endNanoseconds - runs[index].startNanoseconds
    }

    // The runtime starts at the first instrumented call and records that call once it is
    // up: from then to the first record is its start-up, not the caller's.
    let traceStart = min(relative(trace.header.traceStartNanoseconds), main)
    var runtime: UInt64?
    var loader: UInt64
    let firstRecord = preMain.first.map { relative($0.timeNanoseconds) }
    if let startupEnd = trace.header.startupEndNanoseconds {
      let ready = max(traceStart, min(firstRecord ?? relative(startupEnd), main))
      runtime = ready - traceStart
      loader = traceStart
    } else {
      loader = runs.first?.startNanoseconds ?? firstRecord ?? main
    }
    loader = min(loader, runs.first?.startNanoseconds ?? loader)
    let attributed = loader + (runtime ?? 0) + runs.reduce(0) { $0 + $1.durationNanoseconds }
    return .init(
      mainNanoseconds: main, loaderNanoseconds: loader, runtimeStartupNanoseconds: runtime, modules: runs,
      otherNanoseconds: main > attributed ? main - attributed : 0, programNanoseconds: main - (runtime ?? 0))
  }

  /// Each module that ran code before `main`, and the executable, in the loader's load
  /// order, with its relocations and its initializers' runs (`split.modules`) summed.
  ///
  /// The load order is glibc's: the executable, then the libraries its `DT_NEEDED` entries
  /// name, breadth first, each library's own after those of the one before. Only recorded
  /// binaries can be read, so a recorded library that only an unrecorded one needs (or one
  /// opened with `dlopen`) has no place in it: it follows the others, by its first call.
  func libraries(of split: StartupProfile.PreMain, calls: [Int: StartupProfile.ModuleCalls])
    -> [StartupProfile.PreMain.Library]
  {
    let runs = Dictionary(grouping: split.modules, by: \.module)
    let executable = trace.modules.first(where: \.isMainExecutable)?.index
    // Runs name their module by path: a path recorded twice (two mappings of one file)
    // is one row, the first.
    var paths = Set<String>()
    let present = trace.modules.filter { module in
      (module.index == executable || calls[module.index] != nil || runs[module.path] != nil)
        && paths.insert(module.path).inserted
    }
    let order = loadOrder()
    let listed = present.sorted { left, right in
      switch (order[left.index], order[right.index]) {
      case (let l?, let r?): return l < r
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil):
        return (calls[left.index]?.firstNanoseconds ?? .max, left.index)
          < (calls[right.index]?.firstNanoseconds ?? .max, right.index)
      }
    }
    return listed.map { module in
      let moduleRuns = runs[module.path] ?? []
      return .init(
        module: module.path, loadOrder: order[module.index],
        relocations: symbols.moduleLoading(module: module.index)?.relocations,
        constructorsStartNanoseconds: moduleRuns.map(\.startNanoseconds).min(),
        constructorsNanoseconds: moduleRuns.reduce(0) { $0 + $1.durationNanoseconds },
        constructors: moduleRuns.flatMap(\.initializers), calls: calls[module.index])
    }
  }

  /// Each recorded module's place in the loader's breadth-first walk of `DT_NEEDED` from the
  /// executable, matched by `DT_SONAME` or file name (the loader opens a library by the name
  /// its dependent gives, which a recorder may have written as the real file behind it).
  func loadOrder() -> [Int: Int] {
    guard let executable = trace.modules.first(where: \.isMainExecutable) else { return [:] }
    var byName: [String: Int] = [:]
    for module in trace.modules {
      if let soname = symbols.moduleLoading(module: module.index)?.soname { byName[soname] = module.index }
      byName[PathName.base(of: module.path)] =
        byName[PathName.base(of: module.path)]
        ?? module.index
    }
    var order = [executable.index: 0]
    var queue = [executable.index]
    var seen = Set<String>()
    while !queue.isEmpty {
      let module = queue.removeFirst()
      for name in symbols.moduleLoading(module: module)?.needed ?? [] where seen.insert(name).inserted {
        guard let found = byName[PathName.base(of: name)], order[found] == nil else { continue }
        order[found] = order.count
        queue.append(found)
      }
    }
    return order
  }
}

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
/// library's. Each module's initializers end where the next module's start, or at `main`.
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
    var seenFunctions = Set<FunctionKey>()
    for record in preMain {
      let start = symbols.functionStart(module: record.module, address: record.address)
      guard seenFunctions.insert(FunctionKey(module: record.module, address: start)).inserted else { continue }
      let starts = initializerStarts[record.module] ?? []
      let isInitializer = starts.contains(start)
      let current = runModules.last
      let startsRun: Bool
      if isInitializer {
        startsRun = current != record.module
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
      if isInitializer { runs[runs.count - 1].initializers.append(name) }
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
}

import OrderfileLayout
import OrderfileSymbolization
import OrderfileTrace

/// Builds a `StartupProfile` from a trace and its binaries.
public struct ProfileBuilder {
  /// Page size for "new pages" counts.
  public var pageSize: UInt64
  /// How many of the slowest first calls to keep in full mode.
  public var slowestCount: Int

  public init(pageSize: UInt64 = 4096, slowestCount: Int = 20) {
    self.pageSize = pageSize
    self.slowestCount = slowestCount
  }

  public func build(trace: Trace, symbols: SymbolTable) -> StartupProfile {
    let origin = trace.header.processStartNanoseconds
    func relative(_ time: UInt64) -> UInt64 { time > origin ? time - origin : 0 }
    let mainModule = trace.modules.first(where: \.isMainExecutable)?.index

    var preMain: StartupProfile.PreMain?
    var boundaries: [StartupProfile.Boundary] = [
      .init(kind: .processStart, name: "process start", timeNanoseconds: 0, thread: nil),
      .init(kind: .firstHook, name: "first hook", timeNanoseconds: relative(trace.firstHookNanoseconds), thread: nil),
    ]
    if let mainModule,
      let main = trace.records.first(where: {
        // SwiftPM names its entry <Module>_main and makes `main` a zero-size alias of it.
        $0.module == mainModule
          && symbols.function(module: mainModule, address: $0.address)?.allNames.contains("main") == true
      })
    {
      boundaries.append(
        .init(kind: .main, name: "main", timeNanoseconds: relative(main.timeNanoseconds), thread: main.threadID))
      preMain = PreMainBuilder(trace: trace, symbols: symbols, relative: relative).build(
        main: relative(main.timeNanoseconds))
    }
    for mark in trace.marks {
      boundaries.append(
        .init(kind: .mark, name: mark.name, timeNanoseconds: relative(mark.timeNanoseconds), thread: mark.threadID))
    }
    if let end = trace.header.windowEndNanoseconds, trace.header.windowReason != .exit {
      let name =
        switch trace.header.windowReason {
        case .timeLimit: "launch time limit"
        case .signal: "recording stopped by a signal"
        default: "startup complete"
        }
      boundaries.append(.init(kind: .launchComplete, name: name, timeNanoseconds: relative(end), thread: nil))
    }
    boundaries.append(
      .init(
        kind: .exit, name: trace.header.isClosed ? "exit" : "trace end",
        timeNanoseconds: relative(trace.reportedEndNanoseconds), thread: nil))
    // Stable: equal times keep the order above (process start, first hook, main, marks, ...).
    boundaries = boundaries.enumerated().sorted {
      ($0.element.timeNanoseconds, $0.offset) < ($1.element.timeNanoseconds, $1.offset)
    }.map(\.element)

    // The launch ends where its window does: what follows (an app idling, a server serving)
    // is one folded phase, however many marks it holds, so that it cannot dwarf the launch.
    let launchEnd = boundaries.firstIndex { $0.kind == .launchComplete }
    let launchBoundaries = launchEnd.map { Array(boundaries[...$0]) } ?? boundaries
    var phases = zip(launchBoundaries, launchBoundaries.dropFirst()).map { start, end in
      StartupProfile.Phase(
        name: "\(start.name) → \(end.name)", startNanoseconds: start.timeNanoseconds,
        endNanoseconds: end.timeNanoseconds, firstCalls: 0, newPages: 0, functions: [])
    }
    if let launchEnd, let last = boundaries.last, launchEnd < boundaries.count - 1 {
      phases.append(
        .init(
          name: StartupProfile.Phase.afterLaunchName, startNanoseconds: boundaries[launchEnd].timeNanoseconds,
          endNanoseconds: last.timeNanoseconds, firstCalls: 0, newPages: 0, functions: [], isAfterLaunch: true))
    }
    // The phase that starts where the launch window ends, when it ends before exit.
    let afterWindow = phases.firstIndex(where: \.isAfterLaunch)
    func phaseIndex(_ time: UInt64, inWindow: Bool) -> Int {
      // The last phase that starts at or before `time`.
      var index = 0
      for (candidate, phase) in phases.enumerated() where phase.startNanoseconds <= time { index = candidate }
      // The call that closes the window (--until) happens at the window's end: it belongs to
      // the launch, as `record` counts it.
      if inWindow, let afterWindow, index >= afterWindow { index = max(afterWindow - 1, 0) }
      return index
    }

    var entries: [StartupProfile.FirstCallEntry] = []
    var entryPages: [Int] = []
    var seenFunctions = Set<FunctionKey>()
    var pagesSeen = Set<PageKey>()
    var pagesPerModule: [Int: Int] = [:]
    var callsPerModule: [Int: Int] = [:]
    for record in trace.records {
      let start = symbols.functionStart(module: record.module, address: record.address)
      guard seenFunctions.insert(FunctionKey(module: record.module, address: start)).inserted else { continue }
      let time = relative(record.timeNanoseconds)
      let phase = phases.isEmpty ? 0 : phaseIndex(time, inWindow: record.phase == .launch)
      let name = symbols.name(module: record.module, address: record.address, in: trace)
      entries.append(
        .init(
          name: name, module: record.module, timeNanoseconds: time, thread: record.threadID, phase: phase,
          inLaunchWindow: record.phase == .launch))
      callsPerModule[record.module, default: 0] += 1
      if !phases.isEmpty {
        phases[phase].firstCalls += 1
        phases[phase].functions.append(name)
      }
      let size = symbols.function(module: record.module, address: record.address)?.size ?? 1
      var newPages = 0
      for page in Span(address: start, size: size).pages(pageSize)
      where pagesSeen.insert(PageKey(module: record.module, page: page)).inserted {
        newPages += 1
      }
      pagesPerModule[record.module, default: 0] += newPages
      entryPages.append(newPages)
      if !phases.isEmpty { phases[phase].newPages += newPages }
    }

    var threads: [UInt32: StartupProfile.ThreadSummary] = [:]
    for entry in entries {
      var summary =
        threads[entry.thread]
        ?? .init(
          thread: entry.thread, isMainThread: entry.thread == trace.header.pid, firstCalls: 0,
          firstCallNanoseconds: entry.timeNanoseconds, lastCallNanoseconds: entry.timeNanoseconds,
          firstCallsPerPhase: [Int](repeating: 0, count: phases.count))
      summary.firstCalls += 1
      summary.lastCallNanoseconds = max(summary.lastCallNanoseconds, entry.timeNanoseconds)
      if !phases.isEmpty { summary.firstCallsPerPhase[entry.phase] += 1 }
      threads[entry.thread] = summary
    }

    let modules = trace.modules.map { module in
      StartupProfile.ModuleSummary(
        path: module.path, firstCalls: callsPerModule[module.index] ?? 0, pages: pagesPerModule[module.index] ?? 0,
        symbolized: !symbols.unavailable.contains { $0.module == module.path })
    }

    let mainTime = boundaries.first { $0.kind == .main }?.timeNanoseconds
    if let mainTime, var split = preMain {
      let calls = Self.moduleCalls(
        entries.indices.filter { entries[$0].thread == trace.header.pid && entries[$0].timeNanoseconds < mainTime },
        entries: entries, pages: entryPages, trace: trace)
      split.libraries = PreMainBuilder(trace: trace, symbols: symbols, relative: relative).libraries(
        of: split, calls: calls)
      preMain = split
    }
    let mainToLaunchEnd = mainTime.map { main in
      Self.moduleCalls(
        entries.indices.filter {
          entries[$0].timeNanoseconds >= main && !(phases.isEmpty || phases[entries[$0].phase].isAfterLaunch)
        }, entries: entries, pages: entryPages, trace: trace
      ).values.sorted { ($0.firstNanoseconds, $0.module) < ($1.firstNanoseconds, $1.module) }
    }

    let fullMode = !trace.threads.isEmpty
    return StartupProfile(
      trace: trace.path, pid: trace.header.pid,
      processStartResolutionNanoseconds: trace.header.processStartResolutionNanoseconds,
      processStartSource: trace.header.processStartSource, preMain: preMain,
      recorderOverhead: trace.header.recorderTime.map { .init($0, firstCalls: entries.count) },
      emulated: trace.header.isEmulated,
      boundaries: boundaries, phases: phases,
      threads: threads.values.sorted { ($0.firstCallNanoseconds, $0.thread) < ($1.firstCallNanoseconds, $1.thread) },
      modules: modules, mainToLaunchEnd: mainToLaunchEnd, firstCalls: entries,
      slowestFirstCalls: fullMode ? slowestFirstCalls(trace: trace, symbols: symbols, origin: origin) : nil,
      droppedEvents: fullMode ? trace.threads.reduce(trace.header.unbufferedEvents) { $0 + $1.droppedEvents } : nil,
      unsymbolizedModules: symbols.unavailable.map { "\($0.module): \($0.reason)" })
  }

  /// The given first calls (indices into `entries`) by module: how many, the first and the
  /// last, and the pages they touched first.
  static func moduleCalls(
    _ indices: [Int], entries: [StartupProfile.FirstCallEntry], pages: [Int], trace: Trace
  ) -> [Int: StartupProfile.ModuleCalls] {
    var calls: [Int: StartupProfile.ModuleCalls] = [:]
    for index in indices {
      let entry = entries[index]
      var summary =
        calls[entry.module]
        ?? .init(
          module: trace.modules[entry.module].path, firstCalls: 0, firstNanoseconds: entry.timeNanoseconds,
          lastNanoseconds: entry.timeNanoseconds, newPages: 0)
      summary.firstCalls += 1
      summary.firstNanoseconds = min(summary.firstNanoseconds, entry.timeNanoseconds)
      summary.lastNanoseconds = max(summary.lastNanoseconds, entry.timeNanoseconds)
      summary.newPages += pages[index]
      calls[entry.module] = summary
    }
    return calls
  }

  /// The first call of each function with its inclusive time, slowest first.
  func slowestFirstCalls(trace: Trace, symbols: SymbolTable, origin: UInt64) -> [StartupProfile.TimedCall] {
    var firstSeen = Set<FunctionKey>()
    var calls: [StartupProfile.TimedCall] = []
    for thread in trace.threads {
      for call in CallTree.calls(of: thread, closingAt: CallTree.endTime(of: trace)) {
        let key = FunctionKey(module: call.module ?? -1, address: call.address)
        guard firstSeen.insert(key).inserted else { continue }
        let name =
          call.module.map { symbols.name(module: $0, address: call.address, in: trace) }
          ?? "0x" + String(call.address, radix: 16)
        calls.append(
          .init(
            name: name, thread: thread.threadID,
            startNanoseconds: call.start > origin ? call.start - origin : 0,
            inclusiveNanoseconds: call.end - call.start))
      }
    }
    return Array(
      calls.sorted { ($0.inclusiveNanoseconds, $1.name) > ($1.inclusiveNanoseconds, $0.name) }.prefix(slowestCount))
  }
}

struct FunctionKey: Hashable {
  var module: Int
  var address: UInt64
}

struct PageKey: Hashable {
  var module: Int
  var page: UInt64
}

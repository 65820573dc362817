import Foundation
import OrderfileProfile
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A symbolizer over a hand-written table.
final class TableSymbolizer: Symbolizer, @unchecked Sendable {
  let path = "/app"
  let buildID: BuildID? = nil
  let functions: [FunctionSymbol]
  init(_ names: [String]) {
    functions = names.enumerated().map { index, name in
      FunctionSymbol(
        name: name, address: 0x1000 + UInt64(index) * 0x1000, size: 0x100, binding: .global, sectionName: ".text")
    }
  }
  func address(_ name: String) -> UInt64 { functions.first { $0.name == name }!.address }
  func function(containing address: UInt64) -> FunctionSymbol? { functions.first { $0.contains(address) } }
  func sourceLocation(for address: UInt64) -> OrderfileSymbolization.SourceLocation? { nil }
}

let table = TableSymbolizer(["ctor", "main", "load_config", "parse", "draw", "worker", "after", "leaf"])
let ms: UInt64 = 1_000_000
let start: UInt64 = 1_000 * ms

/// A launch with known times: first hook at 5 ms, main at 6, marks at 8 and 12, startup complete at 15, exit at 20.
func launchTrace(threads: [ThreadEvents] = []) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 1, pid: 100, parentPID: nil, forkRecordIndex: nil, recordCapacity: 64,
    moduleCapacity: 1, processStartNanoseconds: start, processStartResolutionNanoseconds: 10 * ms,
    traceStartNanoseconds: start + 5 * ms, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
    windowReason: .startupComplete, windowEndNanoseconds: start + 15 * ms, endNanoseconds: start + 20 * ms,
    minorFaults: nil, majorFaults: nil)
  let module = TraceModule(
    index: 0, path: "/app", buildID: [], loadBase: 0, textRange: 0..<0x100000, isMainExecutable: true)
  func call(_ name: String, _ at: UInt64, _ thread: UInt32, _ phase: Phase = .launch) -> FirstCall {
    FirstCall(module: 0, address: table.address(name), timeNanoseconds: start + at, threadID: thread, phase: phase)
  }
  let records = [
    call("ctor", 5 * ms, 100), call("main", 6 * ms, 100), call("load_config", 7 * ms, 100),
    call("parse", 9 * ms, 100), call("worker", 10 * ms, 101), call("draw", 13 * ms, 100),
    call("after", 16 * ms, 100, .postWindow),
  ]
  return Trace(
    path: "launch.trace", header: header, modules: [module], records: records,
    marks: [
      Mark(name: "config loaded", timeNanoseconds: start + 8 * ms, threadID: 100),
      Mark(name: "ui ready", timeNanoseconds: start + 12 * ms, threadID: 101),
    ], threads: threads)
}

@Suite("Startup profile")
struct ProfileTests {
  let profile = ProfileBuilder().build(trace: launchTrace(), symbols: SymbolTable(symbolizers: [0: table]))

  @Test("phases run between process start, first hook, main, marks and startup complete; the rest is folded")
  func phases() {
    #expect(
      profile.phases.map(\.name) == [
        "process start → first hook", "first hook → main", "main → config loaded", "config loaded → ui ready",
        "ui ready → startup complete", "after the launch",
      ])
    #expect(profile.phases.map(\.isAfterLaunch) == [false, false, false, false, false, true])
    #expect(profile.phases.map(\.durationNanoseconds) == [5 * ms, 1 * ms, 2 * ms, 4 * ms, 3 * ms, 5 * ms])
  }

  @Test("an image whose first calls came before its trace started (a forked child's) keeps its phases in order")
  func phasesInOrderForInheritedCalls() {
    var trace = launchTrace()
    // The trace of this image started after main was first called.
    trace.header.traceStartNanoseconds = start + 6 * ms + 500_000
    let phases = ProfileBuilder().build(trace: trace, symbols: SymbolTable(symbolizers: [0: table])).phases
    #expect(phases.first?.name == "process start → first hook", "\(phases.map(\.name))")
    #expect(!phases.contains { $0.name == "main → first hook" }, "\(phases.map(\.name))")
    #expect(zip(phases, phases.dropFirst()).allSatisfy { $0.endNanoseconds == $1.startNanoseconds })
  }

  @Test("each first call lands in its phase, on its thread")
  func attribution() {
    #expect(
      profile.phases.map(\.functions) == [
        [], ["ctor"], ["main", "load_config"], ["parse", "worker"], ["draw"], ["after"],
      ])
    let worker = profile.firstCalls.first { $0.name == "worker" }
    #expect(worker?.thread == 101)
    #expect(profile.firstCalls.first { $0.name == "after" }?.inLaunchWindow == false)
    #expect(profile.threads.map(\.thread) == [100, 101])
    #expect(profile.threads.first?.isMainThread == true)
    #expect(profile.threads.first?.firstCallsPerPhase == [0, 1, 2, 1, 1, 1])
    // Each function sits on its own 4 KiB page in the table.
    #expect(profile.phases.map(\.newPages) == [0, 1, 2, 2, 1, 1])
  }

  @Test("the recorder's time is split into arming and traps, and report says what a first call cost")
  func recorderOverheadSaid() {
    var trace = launchTrace()
    trace.header.recorderTime = RecorderTime(totalNanoseconds: 9 * ms, armingNanoseconds: 2 * ms)
    let overhead = ProfileBuilder().build(trace: trace, symbols: SymbolTable(symbolizers: [0: table])).recorderOverhead
    #expect(overhead?.armingNanoseconds == 2 * ms && overhead?.trapsNanoseconds == 7 * ms)
    // 7 first calls (every record) in 7 ms of traps: 1 ms each.
    #expect(overhead?.firstCalls == 7)
    #expect(
      overhead?.summary
        == "recorder overhead, taken out of every time shown: 9.000 ms (arming 2.000 ms, traps 7.000 ms: "
        + "7 first calls, 1000.0 µs each, the kernel's part included)", "\(overhead?.summary ?? "none")")
  }

  @Test("a parent's recorder time keeps its children's part apart: its traps are its own first calls'")
  func childrenOverheadApart() {
    var trace = launchTrace()
    trace.header.recorderTime = RecorderTime(
      totalNanoseconds: 30 * ms, armingNanoseconds: 2 * ms, childrenNanoseconds: 21 * ms)
    let overhead = ProfileBuilder().build(trace: trace, symbols: SymbolTable(symbolizers: [0: table])).recorderOverhead
    #expect(overhead?.trapsNanoseconds == 7 * ms && overhead?.childrenNanoseconds == 21 * ms)
    #expect(overhead?.totalNanoseconds == 30 * ms)
    #expect(
      overhead?.summary
        == "recorder overhead, taken out of every time shown: 30.000 ms (arming 2.000 ms, traps 7.000 ms: "
        + "7 first calls, 1000.0 µs each, the kernel's part included; its children's, while it waited for them, "
        + "21.000 ms)", "\(overhead?.summary ?? "none")")
  }

  @Test("the first-call mode has no slowest calls and no dropped-event count")
  func noFullMode() {
    #expect(profile.slowestFirstCalls == nil)
    #expect(profile.droppedEvents == nil)
  }
}

/// main { load_config { parse } parse draw { leaf } } on thread 100, in microseconds from 6 ms.
func fullModeTrace(dropped: UInt64 = 0) -> Trace {
  let us: UInt64 = 1000
  func event(_ kind: CallEvent.Kind, _ name: String, _ at: UInt64) -> CallEvent {
    CallEvent(kind: kind, module: 0, address: table.address(name), timeNanoseconds: start + 6 * ms + at * us)
  }
  let events = [
    event(.enter, "main", 0),
    event(.enter, "load_config", 10), event(.enter, "parse", 20), event(.exit, "parse", 50),
    event(.exit, "load_config", 60),
    event(.enter, "parse", 70), event(.exit, "parse", 80),
    event(.enter, "draw", 100), event(.enter, "leaf", 110), event(.exit, "leaf", 190), event(.exit, "draw", 200),
    event(.exit, "main", 300),
  ]
  return launchTrace(threads: [ThreadEvents(threadID: 100, events: events, droppedEvents: dropped)])
}

@Suite("Full mode exports")
struct FullModeTests {
  let symbols = SymbolTable(symbolizers: [0: table])

  @Test("folded stacks are exactly the call tree's stacks with self times in nanoseconds")
  func foldedStacks() {
    let folded = FoldedStacksExporter(symbols: symbols).render(fullModeTrace())
    #expect(
      folded == """
        main 140000
        main;draw 20000
        main;draw;leaf 80000
        main;load_config 20000
        main;load_config;parse 30000
        main;parse 10000

        """)
    // Inclusive time of main = sum of every line under it = 300 µs, its whole call.
    let total = folded.split(separator: "\n").compactMap { Int($0.split(separator: " ").last!) }.reduce(0, +)
    #expect(total == 300_000)
  }

  @Test("the slowest first calls are timed from entry to exit, callees included, first calls only")
  func slowest() throws {
    let profile = ProfileBuilder().build(trace: fullModeTrace(dropped: 3), symbols: symbols)
    let slowest = try #require(profile.slowestFirstCalls)
    #expect(slowest.map(\.name) == ["main", "draw", "leaf", "load_config", "parse"])
    #expect(slowest.map(\.inclusiveNanoseconds) == [300_000, 100_000, 80_000, 50_000, 30_000])
    #expect(profile.droppedEvents == 3)
  }

  @Test("the Chrome trace has the required fields, matched B/E pairs per thread and monotonic timestamps")
  func chromeTrace() throws {
    let trace = fullModeTrace()
    let profile = ProfileBuilder().build(trace: trace, symbols: symbols)
    let json = try ChromeTraceExporter(trace: trace, symbols: symbols).render(profile)
    try ChromeTraceValidator.validate(json)
    let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    let events = document?["traceEvents"] as? [[String: Any]] ?? []
    #expect(events.filter { $0["ph"] as? String == "B" }.count == 6)
    #expect(events.contains { $0["ph"] as? String == "i" && $0["name"] as? String == "ui ready" })
    // The phases of the launch, each a complete event; what followed it is one instant.
    #expect(
      events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "phase" }.count
        == profile.launchPhases.count)
    // The time before main on a track of its own: one complete event per part that has a start.
    let preMain = try #require(profile.preMain)
    let parts = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String != "phase" }
    #expect(parts.map { $0["name"] as? String } == preMain.parts.filter { $0.startNanoseconds != nil }.map(\.name))
    #expect(Set(parts.compactMap { $0["tid"] as? Int }).count == 1)
    #expect(!Set(parts.compactMap { $0["tid"] as? Int }).contains(0), "track 0 holds the phases")
  }
}

@Suite("Chrome trace validator")
struct ChromeTraceValidatorTests {
  @Test("it refuses crossed begin/end pairs, time going back, and missing fields")
  func refusesBadDocuments() {
    let crossed = """
      {"traceEvents":[{"ph":"B","pid":1,"tid":1,"name":"a","ts":1.0},{"ph":"B","pid":1,"tid":1,"name":"b","ts":2.0},
      {"ph":"E","pid":1,"tid":1,"name":"a","ts":3.0},{"ph":"E","pid":1,"tid":1,"name":"b","ts":4.0}]}
      """
    let backwards = """
      {"traceEvents":[{"ph":"i","s":"t","pid":1,"tid":1,"name":"a","ts":5.0},{"ph":"i","s":"t","pid":1,"tid":1,"name":"b","ts":4.0}]}
      """
    let noName = #"{"traceEvents":[{"ph":"i","pid":1,"tid":1,"ts":1.0}]}"#
    let open = #"{"traceEvents":[{"ph":"B","pid":1,"tid":1,"name":"a","ts":1.0}]}"#
    for document in [crossed, backwards, noName, open] {
      #expect(throws: ChromeTraceValidator.Invalid.self) { try ChromeTraceValidator.validate(document) }
    }
  }
}

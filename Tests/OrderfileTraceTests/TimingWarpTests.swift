import OrderfileTrace
import Testing

private let ms: UInt64 = 1_000_000

/// A closed trace of /bin/app started at `start`: first calls (address, ms from start), its
/// end `end` ms from start.
private func launch(
  start: UInt64, calls: [(UInt64, UInt64)], end: UInt64, path: String = "/bin/app", traceStart: UInt64? = nil
) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 4, pid: 7, parentPID: nil, forkRecordIndex: nil, recordCapacity: 64,
    moduleCapacity: 2, processStartNanoseconds: start, processStartResolutionNanoseconds: 1_000,
    processStartSource: .spawn, traceStartNanoseconds: start + (traceStart ?? calls[0].1 * ms),
    timeLimitNanoseconds: nil,
    droppedCount: 0, isClosed: true, windowReason: .exit, windowEndNanoseconds: start + end * ms,
    endNanoseconds: start + end * ms, minorFaults: nil, majorFaults: nil)
  let module = TraceModule(
    index: 0, path: path, buildID: [1], loadBase: 0, textRange: 0..<0x10000, isMainExecutable: true)
  return Trace(
    path: "t", header: header, modules: [module],
    records: calls.map {
      FirstCall(module: 0, address: $0.0, timeNanoseconds: start + $0.1 * ms, threadID: 7, phase: .launch)
    })
}

@Suite("a recording's times moved onto its timing launch's")
struct TimingWarpTests {
  // The recording: first hook 0x10 at 4 ms, a function at 6, main 0x20 at 8, another at 20,
  // exit at 40. The timing launch: the first hook at 3 ms, main at 5, exit at 25.
  let recorded = launch(start: 1_000 * ms, calls: [(0x10, 4), (0x18, 6), (0x20, 8), (0x28, 20)], end: 40)
  let timing = launch(start: 9_000 * ms, calls: [(0x10, 3), (0x20, 5)], end: 25)

  @Test("the functions both launches called, process start and the end tie the times")
  func anchors() {
    let warp = TimingWarp(recorded: recorded, timing: timing)
    #expect(warp.calls == 2)
    // The first hook is the first call here: one anchor.
    #expect(warp.anchors.map(\.recorded) == [0, 4 * ms, 8 * ms, 40 * ms])
    #expect(warp.anchors.map(\.timed) == [0, 3 * ms, 5 * ms, 25 * ms])
  }

  @Test("a time between anchors keeps its share of the stretch; after the last it moves as the last did")
  func mapping() {
    let warp = TimingWarp(recorded: recorded, timing: timing)
    #expect(warp.map(2 * ms) == 1_500_000)  // half of 0 → 4 ms: half of 0 → 3 ms
    #expect(warp.map(6 * ms) == 4 * ms)  // half of 4 → 8 ms: half of 3 → 5 ms
    #expect(warp.map(24 * ms) == 15 * ms)  // half of 8 → 40 ms: half of 5 → 25 ms
    #expect(warp.map(20 * ms) == 12_500_000)  // 3/8 of 8 → 40 ms
    #expect(warp.map(41 * ms) == 26 * ms)
  }

  @Test("the moved trace has the timing launch's phase boundaries and its own order of first calls")
  func applied() {
    let moved = TimingWarp(recorded: recorded, timing: timing).apply(to: recorded)
    let origin = recorded.header.processStartNanoseconds
    #expect(moved.records.map { $0.timeNanoseconds - origin } == [3 * ms, 4 * ms, 5 * ms, 12_500_000])
    #expect(moved.header.endNanoseconds == origin + 25 * ms)
    #expect(moved.header.traceStartNanoseconds == origin + 3 * ms)
    #expect(moved.header.processStartNanoseconds == origin)
    #expect(moved.header.recorderTime == recorded.header.recorderTime)
  }

  @Test("a call that would run backwards against the anchors before it ties nothing")
  func backwards() {
    // main came before the first hook's function in the timing launch, whose first hook is then
    // main's call at 2 ms. The recording's first hook (4 ms → 2) and main (8 ms → 2) tie; the
    // first hook's function (4 ms → 3) falls at the hook's recorded time and is left out, so the
    // stretch between them shrinks to nothing rather than run backwards.
    let crossed = launch(start: 0, calls: [(0x20, 2), (0x10, 3)], end: 25)
    let warp = TimingWarp(recorded: recorded, timing: crossed)
    #expect(warp.calls == 1)
    #expect(warp.anchors.map(\.recorded) == [0, 4 * ms, 8 * ms, 40 * ms])
    #expect(warp.anchors.map(\.timed) == [0, 2 * ms, 2 * ms, 25 * ms])
    let moved = warp.apply(to: recorded).records.map(\.timeNanoseconds)
    #expect(moved == moved.sorted())
  }

  @Test("another module's function at the same address ties nothing")
  func otherModule() {
    let other = launch(start: 0, calls: [(0x10, 3), (0x20, 5)], end: 25, path: "/bin/other")
    let warp = TimingWarp(recorded: recorded, timing: other)
    #expect(warp.calls == 0)
    #expect(warp.anchors.count == 3)  // process start, the first hook and the end
  }

  @Test("the first hook is the report's in both: the recorder's start where it came before the first call")
  func firstHook() {
    // The recording's first call came before its recorder's start on its clock (its arming
    // taken out), the timing launch's after: the moved first hook is the timing launch's.
    let early = launch(start: 0, calls: [(0x10, 4), (0x20, 8)], end: 40, traceStart: 4 * ms + 500_000)
    let late = launch(start: 0, calls: [(0x10, 3), (0x20, 5)], end: 25, traceStart: 2 * ms)
    let moved = TimingWarp(recorded: early, timing: late).apply(to: early)
    let hook = min(moved.header.traceStartNanoseconds, moved.records.map(\.timeNanoseconds).min() ?? .max)
    #expect(hook == 2 * ms)
    #expect(moved.records.map(\.timeNanoseconds) == [2 * ms, 5 * ms])
  }
}

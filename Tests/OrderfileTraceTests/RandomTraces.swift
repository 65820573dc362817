import OrderfileTrace
import _OrderfileTestSupport

/// A trace with random contents that the format can hold exactly: every value the
/// reader gives back is one the encoder was given.
func randomTrace(using generator: inout SplitMix64) -> Trace {
  func chance(_ generator: inout SplitMix64) -> Bool { Bool.random(using: &generator) }
  func maybe<T>(_ value: T, _ generator: inout SplitMix64) -> T? { chance(&generator) ? value : nil }
  // Any time the reader accepts. Two threads' calls can stay open until the window end, and
  // the reader bounds their sum (TraceLimits.eventThreadTime): half the latest time each.
  func nonzero(_ generator: inout SplitMix64) -> UInt64 {
    UInt64.random(in: 1...(TraceLimits.latestTime / 2), using: &generator)
  }
  let letters = Array("abcdefghijklmnopqrstuvwxyz/._-é")

  let modules = (0..<Int.random(in: 1...4, using: &generator)).map { index in
    let start = UInt64.random(in: 0x1000...0x10_0000, using: &generator)
    return TraceModule(
      index: index,
      path: "/"
        + String(
          (0..<Int.random(in: 1...200, using: &generator)).map { _ in letters.randomElement(using: &generator)! }),
      buildID: (0..<Int.random(in: 0...20, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
      },
      // Load bases 2^40 apart keep every module's runtime text apart from the others'.
      loadBase: UInt64(index + 1) << 40,
      textRange: start..<(start + UInt64.random(in: 1...0x10_0000, using: &generator)),
      isMainExecutable: index == 0, pathTruncated: chance(&generator),
      textResidentBytes: maybe(UInt64.random(in: 0...(1 << 30), using: &generator), &generator))
  }
  var time = UInt64.random(in: 1...1_000_000, using: &generator)
  func later(_ generator: inout SplitMix64) -> UInt64 {
    time += UInt64.random(in: 0...5_000, using: &generator)
    return time
  }
  let records = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
    let module = modules.randomElement(using: &generator)!
    return FirstCall(
      module: module.index, address: UInt64.random(in: module.textRange, using: &generator),
      timeNanoseconds: later(&generator), threadID: UInt32.random(in: 1...UInt32.max, using: &generator),
      phase: chance(&generator) ? .launch : .postWindow)
  }
  let marks = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
    Mark(
      name: String(
        (0..<Int.random(in: 0...40, using: &generator)).map { _ in
          Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7e, using: &generator)))
        }),
      timeNanoseconds: later(&generator), threadID: UInt32.random(in: 1...UInt32.max, using: &generator))
  }
  let threads = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
    ThreadEvents(
      threadID: UInt32.random(in: 1...UInt32.max, using: &generator),
      events: (0..<Int.random(in: 0...10, using: &generator)).map { _ in
        let kind: CallEvent.Kind = chance(&generator) ? .enter : .exit
        // An event outside every module keeps its absolute address, below every load base.
        guard let module = maybe(modules.randomElement(using: &generator)!, &generator) else {
          return CallEvent(
            kind: kind, module: nil, address: UInt64.random(in: 0x10...0xFFFF, using: &generator),
            timeNanoseconds: later(&generator))
        }
        return CallEvent(
          kind: kind, module: module.index, address: UInt64.random(in: module.textRange, using: &generator),
          timeNanoseconds: later(&generator))
      }, droppedEvents: UInt64.random(in: 0...1000, using: &generator))
  }

  let closed = chance(&generator)
  // A closed trace is cut after its last committed record: it can have no uncommitted slot.
  let uncommitted = closed ? 0 : Int.random(in: 0...3, using: &generator)
  let parentPID = maybe(UInt32.random(in: 1...UInt32.max, using: &generator), &generator)
  let faults = chance(&generator)
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 1, pid: UInt32.random(in: 1...UInt32.max, using: &generator),
    parentPID: parentPID, forkRecordIndex: parentPID.map { _ in Int.random(in: 0...records.count, using: &generator) },
    recordCapacity: records.count + uncommitted + Int.random(in: 0...10, using: &generator),
    moduleCapacity: modules.count + Int.random(in: 0...3, using: &generator),
    processStartNanoseconds: UInt64.random(in: 0...1_000_000, using: &generator),
    processStartResolutionNanoseconds: 10_000_000, traceStartNanoseconds: nonzero(&generator),
    timeLimitNanoseconds: maybe(nonzero(&generator), &generator),
    droppedCount: UInt64.random(in: 0...100, using: &generator),
    // Only a trace with marks or buffers has the extension that holds this count.
    unbufferedEvents: marks.isEmpty && threads.isEmpty ? 0 : UInt64.random(in: 0...100, using: &generator),
    isClosed: closed, windowReason: [.open, .startupComplete, .timeLimit, .exit].randomElement(using: &generator)!,
    windowEndNanoseconds: maybe(nonzero(&generator), &generator),
    endNanoseconds: maybe(nonzero(&generator), &generator),
    minorFaults: faults ? UInt64.random(in: 0...100_000, using: &generator) : nil,
    majorFaults: faults ? UInt64.random(in: 0...1_000, using: &generator) : nil)
  return Trace(
    path: "random.trace", header: header, modules: modules, records: records, uncommittedRecords: uncommitted,
    marks: marks, threads: threads)
}

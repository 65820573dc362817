import OrderfileOrdering
import OrderfileTrace
import Testing

@Suite("A trace with no launch records")
struct EmptyTraceTests {
  /// A trace of one module and no records, as the runtime of an instrumented build writes it
  /// (its start-up end noted), or as the in-process recorder does (the recorder's own time
  /// on the program's clock too).
  private func emptyTrace(instrumented: Bool) -> Trace {
    var header = TraceHeader(
      versionMajor: 1, versionMinor: 3, pid: 1, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 1, processStartNanoseconds: 1000, processStartResolutionNanoseconds: 1,
      traceStartNanoseconds: 1000, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: nil, endNanoseconds: 6000, minorFaults: nil, majorFaults: nil)
    header.startupEndNanoseconds = 2000
    if !instrumented { header.recorderTime = RecorderTime(totalNanoseconds: 500, armingNanoseconds: 200) }
    let module = TraceModule(
      index: 0, path: "/usr/bin/app", buildID: [], loadBase: 0, textRange: 0..<0x1000, isMainExecutable: true)
    return Trace(path: "t.trace", header: header, modules: [module], records: [])
  }

  @Test(
    "the error fits the recorder: an instrumented build's asks about its flags, one recorded without a rebuild about the window",
    arguments: [true, false])
  func message(instrumented: Bool) throws {
    let error = try #require(throws: OrderingError.self) {
      try Generator().generate(emptyTrace(instrumented: instrumented))
    }
    #expect(error == .emptyTrace(trace: "t.trace", instrumented: instrumented))
    let text = error.localizedDescription
    #expect(text.hasPrefix("t.trace: the trace has no launch records"))
    #expect(text.contains("-finstrument-functions") == instrumented, "\(text)")
    #expect(text.contains("launch window") == !instrumented, "\(text)")
  }
}

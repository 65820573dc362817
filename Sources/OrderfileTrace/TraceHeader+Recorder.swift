extension TraceHeader {
  /// The header of a trace that a recorder outside the process wrote in one piece, after the
  /// process ended or was let go: closed, every record committed, nothing dropped. Such a
  /// recorder starts the process itself, so its start is the spawn time unless it says otherwise.
  public static func recorded(
    pid: UInt32, parentPID: UInt32?, forkRecordIndex: Int?, recordCount: Int, moduleCount: Int,
    processStartNanoseconds: UInt64, processStartResolutionNanoseconds: UInt64,
    processStartSource: ProcessStartSource = .spawn, traceStartNanoseconds: UInt64,
    timeLimitNanoseconds: UInt64?, windowReason: WindowReason, windowEndNanoseconds: UInt64?,
    endNanoseconds: UInt64
  ) -> TraceHeader {
    TraceHeader(
      versionMajor: TraceLayout.versionMajor, versionMinor: TraceLayout.versionMinor, pid: pid,
      parentPID: parentPID, forkRecordIndex: forkRecordIndex, recordCapacity: recordCount,
      moduleCapacity: moduleCount, processStartNanoseconds: processStartNanoseconds,
      processStartResolutionNanoseconds: processStartResolutionNanoseconds, processStartSource: processStartSource,
      traceStartNanoseconds: traceStartNanoseconds, timeLimitNanoseconds: timeLimitNanoseconds, droppedCount: 0,
      isClosed: true, windowReason: windowReason, windowEndNanoseconds: windowEndNanoseconds,
      endNanoseconds: endNanoseconds, minorFaults: nil, majorFaults: nil)
  }
}

extension TraceHeader {
  /// Whether the program's own runtime wrote this trace (an instrumented build): only the
  /// runtime notes when its start-up ended. A trace of `record` without a rebuild is not:
  /// the tracer's has no start-up end, and the in-process recorder's (the runtime preloaded
  /// into the release binary) keeps the recorder's own time on the program's clock. Its
  /// binary is the one that was run, release build and all.
  public var isFromRuntime: Bool { startupEndNanoseconds != nil && recorderTime == nil }
}

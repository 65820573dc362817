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

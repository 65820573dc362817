/// Writes a `Trace` in the runtime's binary format.
///
/// The runtime writes traces through a shared mapping; this encoder writes the
/// same bytes from a value, for tools that rewrite traces and for tests that
/// need a trace with exact contents.
public enum TraceEncoder {
  /// The encoded trace. A closed trace is cut after its last record, as the
  /// runtime leaves it; an open one keeps room for `header.recordCapacity` records.
  public static func encode(_ trace: Trace) -> [UInt8] {
    let header = trace.header
    let moduleCapacity = max(header.moduleCapacity, trace.modules.count)
    let recordCapacity = max(header.recordCapacity, trace.records.count + trace.dataTouches.count)
    // Marks and event buffers (format 1.1) sit between the module table and the records.
    let hasExtension = !trace.marks.isEmpty || !trace.threads.isEmpty
    let markCapacity = trace.marks.count
    let threadCapacity = trace.threads.count
    let eventCapacity = trace.threads.map(\.events.count).max() ?? 0
    let placement = TraceLayout.Placement(
      modules: UInt32(moduleCapacity), records: UInt64(recordCapacity), marks: UInt32(markCapacity),
      threads: UInt32(threadCapacity), eventsPerThread: UInt64(eventCapacity))
    let marksOffset = Int(placement.marks)
    let eventsOffset = Int(placement.events)
    let recordsOffset = Int(placement.records)
    let bufferSize = Int(TraceLayout.threadBufferSize(events: UInt64(eventCapacity)))
    let used = recordsOffset + (trace.records.count + trace.dataTouches.count) * TraceLayout.recordSize
    let size = header.isClosed ? used : Int(placement.size)
    var bytes = [UInt8](repeating: 0, count: size)

    bytes.withUnsafeMutableBytes { raw in
      func put<T: FixedWidthInteger>(_ value: T, _ offset: Int) {
        raw.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
      }
      typealias H = TraceLayout.Header
      put(TraceLayout.magic, H.magic)
      put(header.versionMajor, H.versionMajor)
      put(hasExtension ? max(header.versionMinor, 1) : header.versionMinor, H.versionMinor)
      put(UInt32(TraceLayout.headerSize), H.headerSize)
      put(UInt32(TraceLayout.moduleSize), H.moduleEntrySize)
      put(UInt32(TraceLayout.recordSize), H.recordSize)
      put(UInt32(moduleCapacity), H.moduleCapacity)
      put(header.pid, H.pid)
      put(UInt64(recordCapacity), H.recordCapacity)
      put(UInt64(TraceLayout.headerSize), H.moduleTableOffset)
      put(UInt64(recordsOffset), H.recordsOffset)
      put(header.processStartNanoseconds, H.processStart)
      put(header.processStartResolutionNanoseconds, H.processStartResolution)
      put(header.traceStartNanoseconds, H.traceStart)
      put(header.parentPID ?? 0, H.parentPID)
      if header.versionMinor >= 2 { put(header.processStartSource.rawValue, H.processStartSource) }
      put(UInt64(header.forkRecordIndex ?? 0), H.forkRecordIndex)
      put(header.timeLimitNanoseconds ?? 0, H.timeLimit)
      put(TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<H.checksum])), H.checksum)

      put(UInt64(trace.records.count + trace.dataTouches.count + trace.uncommittedRecords), H.recordCount)
      put(header.droppedCount, H.droppedCount)
      put(UInt32(trace.modules.count), H.moduleCount)
      var flags: UInt32 = 0
      if header.isClosed { flags |= TraceLayout.Flag.closed }
      if header.windowEndNanoseconds != nil { flags |= TraceLayout.Flag.windowClosed }
      if header.parentPID != nil { flags |= TraceLayout.Flag.forked }
      if header.minorFaults != nil || header.majorFaults != nil { flags |= TraceLayout.Flag.metrics }
      if header.versionMinor >= 3, header.recorderTime != nil { flags |= TraceLayout.Flag.programClock }
      if header.isEmulated { flags |= TraceLayout.Flag.emulated }
      put(flags, H.flags)
      put(header.windowReason.rawValue, H.windowReason)
      put(header.windowEndNanoseconds ?? 0, H.windowEnd)
      put(header.endNanoseconds ?? 0, H.end)
      put(header.minorFaults ?? 0, H.minorFaults)
      put(header.majorFaults ?? 0, H.majorFaults)
      if header.versionMinor >= 2 { put(header.startupEndNanoseconds ?? 0, H.startupEnd) }
      if header.versionMinor >= 3, let recorder = header.recorderTime {
        put(recorder.totalNanoseconds, H.recorder)
        put(recorder.armingNanoseconds, H.arming)
        if header.versionMinor >= 5 { put(recorder.childrenNanoseconds, H.children) }
      }

      if hasExtension {
        put(UInt64(marksOffset), H.marksOffset)
        put(UInt64(eventsOffset), H.eventsOffset)
        put(UInt64(eventCapacity), H.eventCapacity)
        put(UInt32(markCapacity), H.markCapacity)
        put(UInt32(threadCapacity), H.eventThreadCapacity)
        put(
          TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[H.marksOffset..<H.extensionChecksum])),
          H.extensionChecksum)
        put(UInt32(trace.marks.count), H.markCount)
        put(UInt32(trace.threads.count), H.eventThreadCount)
        put(header.unbufferedEvents, H.unbufferedEvents)
      }
      for (index, mark) in trace.marks.enumerated() {
        typealias F = TraceLayout.MarkField
        let base = marksOffset + index * TraceLayout.markSize
        let name = Array(mark.name.utf8.prefix(TraceLayout.markNameCapacity))
        for (offset, byte) in name.enumerated() { put(byte, base + F.name + offset) }
        put(mark.timeNanoseconds, base + F.time)
        put(mark.threadID, base + F.tid)
        put(UInt16(name.count), base + F.nameLength)
        put(
          TraceLayout.recordCheck(UnsafeRawBufferPointer(rebasing: raw[base..<(base + TraceLayout.markSize)])),
          base + F.check)
      }
      for (index, thread) in trace.threads.enumerated() {
        typealias B = TraceLayout.ThreadBuffer
        let base = eventsOffset + index * bufferSize
        put(thread.threadID, base + B.tid)
        put(UInt64(thread.events.count), base + B.count)
        put(thread.droppedEvents, base + B.dropped)
        for (number, event) in thread.events.enumerated() {
          let offset = base + TraceLayout.threadBufferHeaderSize + number * TraceLayout.eventSize
          let pc = event.module.map { trace.modules[$0].loadBase + event.address } ?? event.address
          put(event.timeNanoseconds, offset + TraceLayout.Event.time)
          put(pc | (event.kind == .exit ? TraceLayout.exitBit : 0), offset + TraceLayout.Event.word)
        }
      }

      for (index, module) in trace.modules.enumerated() {
        typealias M = TraceLayout.Module
        let base = TraceLayout.headerSize + index * TraceLayout.moduleSize
        put(module.loadBase, base + M.loadBase)
        put(module.textRange.lowerBound, base + M.textStart)
        put(module.textRange.upperBound, base + M.textEnd)
        put(module.textResidentBytes ?? 0, base + M.textRSS)
        var moduleFlags: UInt32 = 0
        if module.isMainExecutable { moduleFlags |= TraceLayout.ModuleFlag.mainExecutable }
        if module.pathTruncated { moduleFlags |= TraceLayout.ModuleFlag.pathTruncated }
        if module.textResidentBytes != nil { moduleFlags |= TraceLayout.ModuleFlag.textRSS }
        put(moduleFlags, base + M.flags)
        let path = Array(module.path.utf8.prefix(TraceLayout.pathCapacity))
        put(UInt16(path.count), base + M.pathLength)
        let buildID = module.buildID.prefix(TraceLayout.buildIDCapacity)
        put(UInt8(buildID.count), base + M.buildIDLength)
        for (offset, byte) in buildID.enumerated() { put(byte, base + M.buildID + offset) }
        for (offset, byte) in path.enumerated() { put(byte, base + M.path + offset) }
        put(TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[base..<(base + M.checksum)])), base + M.checksum)
      }

      for (index, record) in trace.records.enumerated() {
        typealias R = TraceLayout.Record
        let base = recordsOffset + index * TraceLayout.recordSize
        put(record.address, base + R.address)
        put(record.timeNanoseconds, base + R.time)
        put(record.threadID, base + R.tid)
        put(UInt16(record.module), base + R.module)
        put(record.phase.rawValue, base + R.kind)
        put(
          TraceLayout.recordCheck(UnsafeRawBufferPointer(rebasing: raw[base..<(base + TraceLayout.recordSize)])),
          base + R.check)
      }
      for (index, touch) in trace.dataTouches.enumerated() {
        typealias R = TraceLayout.Record
        let base = recordsOffset + (trace.records.count + index) * TraceLayout.recordSize
        put(touch.address, base + R.address)
        put(touch.timeNanoseconds, base + R.time)
        put(touch.pageSize, base + R.size)
        put(touch.threadID, base + R.tid)
        put(UInt16(touch.module), base + R.module)
        put(TraceLayout.dataPageKind, base + R.kind)
        put(
          TraceLayout.recordCheck(UnsafeRawBufferPointer(rebasing: raw[base..<(base + TraceLayout.recordSize)])),
          base + R.check)
      }
    }
    return bytes
  }
}

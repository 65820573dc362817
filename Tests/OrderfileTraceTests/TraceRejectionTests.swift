import OrderfileTrace
import OrderfileTraceFormat
import Testing

/// The offset of a field of one of the header's C structures.
func field<Structure>(_ path: PartialKeyPath<Structure>) -> Int {
  guard let offset = MemoryLayout<Structure>.offset(of: path) else {
    preconditionFailure("\(path) is not a stored field")
  }
  return offset
}

/// An encoded trace to damage on purpose. The seal functions recompute a checksum or check
/// byte with the header's own functions, so that only the damage itself is wrong.
struct TraceBytes {
  var bytes: [UInt8]

  init(_ trace: Trace) { bytes = TraceEncoder.encode(trace) }

  var header: oft_header { bytes.withUnsafeBytes { $0.loadUnaligned(as: oft_header.self) } }

  func moduleOffset(_ index: Int) -> Int { Int(header.module_table_offset) + index * Int(OFT_MODULE_SIZE) }
  func recordOffset(_ index: Int) -> Int { Int(header.records_offset) + index * Int(OFT_RECORD_SIZE) }
  func markOffset(_ index: Int) -> Int { Int(header.marks_offset) + index * Int(OFT_MARK_SIZE) }
  func bufferOffset(_ index: Int) -> Int {
    Int(header.events_offset) + index * Int(oft_thread_buffer_size(header.event_capacity))
  }
  func eventOffset(buffer: Int, _ index: Int) -> Int {
    bufferOffset(buffer) + Int(OFT_THREAD_BUFFER_HEADER_SIZE) + index * Int(OFT_EVENT_SIZE)
  }

  mutating func set<T: FixedWidthInteger>(_ value: T, at offset: Int) {
    bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
  }

  /// The FNV-1a checksum of `range`, stored at its end.
  private mutating func seal(_ range: Range<Int>) {
    let sum = bytes.withUnsafeBytes { oft_checksum($0.baseAddress.map { $0 + range.lowerBound }, UInt64(range.count)) }
    set(sum, at: range.upperBound)
  }

  mutating func sealHeader() { seal(0..<field(\oft_header.checksum)) }
  mutating func sealExtension() {
    seal(field(\oft_header.marks_offset)..<field(\oft_header.extension_checksum))
  }
  mutating func sealModule(_ index: Int) {
    seal(moduleOffset(index)..<(moduleOffset(index) + field(\oft_module.checksum)))
  }
  /// The check byte of the record or mark at `offset`, over its first `size - 1` bytes.
  mutating func sealCheckByte(at offset: Int, size: UInt32) {
    let check = bytes.withUnsafeBytes { oft_check_byte($0.baseAddress.map { $0 + offset }, size - 1) }
    set(check, at: offset + Int(size) - 1)
  }
  mutating func sealRecord(_ index: Int) { sealCheckByte(at: recordOffset(index), size: OFT_RECORD_SIZE) }
  mutating func sealMark(_ index: Int) { sealCheckByte(at: markOffset(index), size: OFT_MARK_SIZE) }

  func parse() throws -> Trace { try TraceReader.parse(bytes, path: "bad.trace") }
}

/// Expects `bytes` to be refused with exactly `error`.
func expectRefused(_ bytes: TraceBytes, _ error: TraceError, sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(throws: error, sourceLocation: sourceLocation) { try bytes.parse() }
}

/// Expects `trace` to be refused as a corrupt header at `offset` once `value` is stored
/// there and `seal` has made the checksums match again.
func expectHeaderRefused<T: FixedWidthInteger>(
  _ trace: Trace, _ value: T, at offset: Int, _ reason: String, seal: (inout TraceBytes) -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var bytes = TraceBytes(trace)
  bytes.set(value, at: offset)
  seal(&bytes)
  expectRefused(
    bytes, .corruptHeader(path: "bad.trace", offset: UInt64(offset), reason: reason), sourceLocation: sourceLocation)
}

@Suite("Trace reader refuses impossible traces")
struct TraceRejectionTests {
  @Test("impossible sizes and offsets in the header are refused at their offset")
  func impossibleHeaderFields() {
    func refused<T: FixedWidthInteger>(
      _ value: T, at offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      expectHeaderRefused(
        sampleTrace(), value, at: offset, reason, seal: { $0.sealHeader() }, sourceLocation: sourceLocation)
    }
    refused(UInt32(4097), at: field(\oft_header.header_size), "impossible header size 4097")
    refused(UInt32(1), at: field(\oft_header.module_entry_size), "impossible module entry size 1")
    refused(UInt32(16), at: field(\oft_header.record_size), "impossible record size 16")
    refused(UInt64(0), at: field(\oft_header.module_table_offset), "impossible module table offset 0x0")
    refused(UInt64(0x5020), at: field(\oft_header.records_offset), "impossible records offset 0x5020 for 4 modules")
    refused(UInt64(1) << 33, at: field(\oft_header.record_capacity), "impossible record capacity 8589934592")
  }

  @Test("a changed field under the header checksum is refused as a checksum mismatch")
  func headerChecksum() throws {
    var bytes = TraceBytes(sampleTrace())
    bytes.set(UInt32(1), at: field(\oft_header.pid))
    #expect {
      try bytes.parse()
    } throws: { error in
      guard case .corruptHeader(_, let offset, let reason) = error as? TraceError else { return false }
      return offset == UInt64(field(\oft_header.checksum)) && reason.contains("does not match the header's contents")
    }
  }

  @Test("impossible values in the header's mutable fields are refused at their offset")
  func mutableFields() {
    // Not covered by the checksum: no seal needed, the range checks alone must catch these.
    var modules = TraceBytes(sampleTrace())
    modules.set(UInt32(5), at: field(\oft_header.module_count))
    expectRefused(
      modules,
      .corruptHeader(
        path: "bad.trace", offset: UInt64(field(\oft_header.module_count)),
        reason: "impossible 5 modules in a table of 4"))
    var reason = TraceBytes(sampleTrace())
    reason.set(UInt32(9), at: field(\oft_header.window_reason))
    expectRefused(
      reason,
      .corruptHeader(
        path: "bad.trace", offset: UInt64(field(\oft_header.window_reason)), reason: "unknown window reason 9"))
  }

  @Test("a damaged header extension (format 1.1) is refused at its offset")
  func extensionFields() throws {
    let checksumOffset = UInt64(field(\oft_header.extension_checksum))
    var unsealed = TraceBytes(fullTrace())
    unsealed.set(UInt32(7), at: field(\oft_header.mark_capacity))
    #expect {
      try unsealed.parse()
    } throws: { error in
      guard case .corruptHeader(_, let offset, let reason) = error as? TraceError else { return false }
      return offset == checksumOffset && reason.hasPrefix("extension checksum")
    }

    func refused<T: FixedWidthInteger>(
      _ value: T, at offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      expectHeaderRefused(
        fullTrace(), value, at: offset, reason, seal: { $0.sealExtension() }, sourceLocation: sourceLocation)
    }
    let marks = TraceBytes(fullTrace()).header.marks_offset
    refused(
      marks + 64, at: field(\oft_header.marks_offset), "impossible marks offset 0x\(String(marks + 64, radix: 16))")
    refused(UInt64(8), at: field(\oft_header.events_offset), "impossible events offset 0x8")
    refused(UInt32(70_000), at: field(\oft_header.mark_capacity), "impossible mark capacity 70000")
    refused(UInt32(5_000), at: field(\oft_header.event_thread_capacity), "impossible event thread capacity 5000")
    refused(UInt64(1) << 29, at: field(\oft_header.event_capacity), "impossible event capacity 536870912")
  }

  @Test("an incomplete or impossible module entry is refused, naming the entry")
  func moduleEntries() {
    let base = TraceBytes(sampleTrace()).moduleOffset(1)
    func refused(
      _ offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation,
      damage: (inout TraceBytes) -> Void
    ) {
      var bytes = TraceBytes(sampleTrace())
      damage(&bytes)
      expectRefused(
        bytes, .corruptModule(path: "bad.trace", index: 1, offset: UInt64(base + offset), reason: reason),
        sourceLocation: sourceLocation)
    }
    let checksum = field(\oft_module.checksum)
    refused(checksum, "the entry was never completed") { $0.set(UInt32(0), at: base + checksum) }
    refused(field(\oft_module.path_length), "path length 3985") {
      $0.set(UInt16(3985), at: base + field(\oft_module.path_length))
      $0.sealModule(1)
    }
    refused(field(\oft_module.build_id_length), "build-id length 65") {
      $0.set(UInt8(65), at: base + field(\oft_module.build_id_length))
      $0.sealModule(1)
    }
    refused(field(\oft_module.text_start), "text range 0x5000..<0x4000 is reversed") {
      $0.set(UInt64(0x5000), at: base + field(\oft_module.text_start))
      $0.sealModule(1)
    }
  }

  @Test("a record naming a missing module or an address outside its module's text is refused")
  func records() {
    let base = TraceBytes(sampleTrace()).recordOffset(2)
    func refused<T: FixedWidthInteger>(
      _ value: T, at offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      var bytes = TraceBytes(sampleTrace())
      bytes.set(value, at: base + offset)
      bytes.sealRecord(2)
      expectRefused(
        bytes, .corruptRecord(path: "bad.trace", index: 2, offset: UInt64(base + offset), reason: reason),
        sourceLocation: sourceLocation)
    }
    refused(UInt16(7), at: field(\oft_record.module), "module index 7 but the trace has 2 modules")
    refused(
      UInt64(0x4000), at: field(\oft_record.address), "address 0x4000 is outside module 1's text 0x2000..<0x4000")
    refused(UInt8(9), at: field(\oft_record.kind), "unknown record kind 9")
  }

  @Test("a record kind from a newer minor version is skipped and counted, not refused")
  func newerRecordKind() throws {
    var bytes = TraceBytes(sampleTrace())
    bytes.set(UInt16(OFT_VERSION_MINOR + 1), at: field(\oft_header.version_minor))
    bytes.sealHeader()
    bytes.set(UInt8(9), at: bytes.recordOffset(2) + field(\oft_record.kind))
    bytes.sealRecord(2)
    let trace = try bytes.parse()
    #expect(trace.unknownRecords == 1)
    #expect(trace.records == sampleTrace().records.enumerated().filter { $0.offset != 2 }.map(\.element))
  }

  @Test("a mark whose name is longer than its field is refused")
  func markNameLength() {
    var bytes = TraceBytes(fullTrace())
    let offset = bytes.markOffset(0) + field(\oft_mark.name_length)
    bytes.set(UInt16(OFT_MARK_NAME_CAPACITY + 1), at: offset)
    bytes.sealMark(0)
    expectRefused(bytes, .corruptMark(path: "bad.trace", index: 0, offset: UInt64(offset), reason: "name length 41"))
  }

  @Test("an event buffer with an impossible count or time is refused, naming the buffer")
  func eventBuffers() {
    var count = TraceBytes(fullTrace())
    let countOffset = count.bufferOffset(1) + field(\oft_thread_buffer.count)
    count.set(count.header.event_capacity + 1, at: countOffset)
    expectRefused(
      count,
      .corruptEvents(path: "bad.trace", buffer: 1, offset: UInt64(countOffset), reason: "5 events in a buffer of 4"))

    var backwards = TraceBytes(fullTrace())
    let second = backwards.eventOffset(buffer: 0, 1)
    backwards.set(UInt64(1_500_000), at: second + field(\oft_event.time_ns))
    expectRefused(
      backwards,
      .corruptEvents(
        path: "bad.trace", buffer: 0, offset: UInt64(second), reason: "event 1 has time 1500000 after 1600000"))

    var zero = TraceBytes(fullTrace())
    let first = zero.eventOffset(buffer: 0, 0)
    zero.set(UInt64(0), at: first + field(\oft_event.time_ns))
    expectRefused(
      zero, .corruptEvents(path: "bad.trace", buffer: 0, offset: UInt64(first), reason: "event 0 has time 0 after 0"))
  }

  @Test("every truncation of a trace with marks and event buffers is refused as truncated")
  func truncatedFullTrace() throws {
    let bytes = TraceEncoder.encode(fullTrace())
    for length in stride(from: 0, to: bytes.count, by: 61) {
      #expect {
        try TraceReader.parse(Array(bytes.prefix(length)), path: "cut.trace")
      } throws: { error in
        guard case .truncated(_, let offset, _) = error as? TraceError else { return false }
        return offset == UInt64(length)
      }
    }
  }

  @Test("counts no checksum covers are held to what a launch can produce, alone and summed")
  func uncoveredCounts() {
    let unbuffered = field(\oft_header.unbuffered_events)
    var all = TraceBytes(fullTrace())
    all.set(UInt64.max, at: unbuffered)
    expectRefused(
      all,
      .corruptHeader(
        path: "bad.trace", offset: UInt64(unbuffered), reason: "impossible unbuffered event count \(UInt64.max)"))

    // Each count alone is in range; with buffer 0's 7 dropped events their sum is not. A
    // report adds them up, which trapped on overflow before the reader checked the sum.
    var summed = TraceBytes(fullTrace())
    summed.set(TraceLimits.largestCount - 6, at: unbuffered)
    let dropped = summed.bufferOffset(0) + field(\oft_thread_buffer.dropped)
    expectRefused(
      summed,
      .corruptEvents(
        path: "bad.trace", buffer: 0, offset: UInt64(dropped),
        reason: "7 dropped events bring the trace's dropped and unbuffered events past \(TraceLimits.largestCount)"))
    var justInRange = TraceBytes(fullTrace())
    justInRange.set(TraceLimits.largestCount - 7, at: unbuffered)
    #expect(throws: Never.self) { try justInRange.parse() }

    let droppedCount = field(\oft_header.dropped_count)
    var calls = TraceBytes(sampleTrace())
    calls.set(TraceLimits.largestCount + 1, at: droppedCount)
    expectRefused(
      calls,
      .corruptHeader(
        path: "bad.trace", offset: UInt64(droppedCount),
        reason: "impossible dropped count \(TraceLimits.largestCount + 1)"))
    var faults = TraceBytes(sampleTrace())
    faults.set(UInt64.max, at: field(\oft_header.major_faults))
    expectRefused(
      faults,
      .corruptHeader(
        path: "bad.trace", offset: UInt64(field(\oft_header.major_faults)),
        reason: "impossible major fault count \(UInt64.max)"))
  }

  @Test("times no checksum covers are held to what a clock can read")
  func uncoveredTimes() throws {
    let latest = TraceLimits.latestTime
    func reason(_ time: UInt64) -> String { "impossible time \(time): later than \(latest) ns, 146 years after boot" }

    let windowEnd = field(\oft_header.window_end_ns)
    var window = TraceBytes(sampleTrace())
    window.set(UInt64(1) << 63, at: windowEnd)
    expectRefused(window, .corruptHeader(path: "bad.trace", offset: UInt64(windowEnd), reason: reason(1 << 63)))

    var event = TraceBytes(fullTrace())
    let last = event.eventOffset(buffer: 0, 3)
    event.set(UInt64.max, at: last + field(\oft_event.time_ns))
    expectRefused(
      event, .corruptEvents(path: "bad.trace", buffer: 0, offset: UInt64(last), reason: "event 3: " + reason(.max)))

    var record = TraceBytes(sampleTrace())
    let time = record.recordOffset(1) + field(\oft_record.time_ns)
    record.set(latest + 1, at: time)
    record.sealRecord(1)
    expectRefused(record, .corruptRecord(path: "bad.trace", index: 1, offset: UInt64(time), reason: reason(latest + 1)))

    var mark = TraceBytes(fullTrace())
    let markTime = mark.markOffset(1) + field(\oft_mark.time_ns)
    mark.set(UInt64.max, at: markTime)
    mark.sealMark(1)
    expectRefused(mark, .corruptMark(path: "bad.trace", index: 1, offset: UInt64(markTime), reason: reason(.max)))

    // The latest time itself is a time like any other.
    var edge = TraceBytes(sampleTrace())
    edge.set(latest, at: field(\oft_header.end_ns))
    #expect(try edge.parse().header.endNanoseconds == latest)
  }

  @Test("calls left open until a far window end cannot add up past the events' thread time")
  func eventThreadTime() throws {
    // Give the empty second buffer one event, so two threads have calls open at the end.
    var bytes = TraceBytes(fullTrace())
    let second = bytes.eventOffset(buffer: 1, 0)
    bytes.set(UInt64(1), at: bytes.bufferOffset(1) + field(\oft_thread_buffer.count))
    bytes.set(UInt64(1_700_000), at: second + field(\oft_event.time_ns))
    bytes.set(UInt64(0x5555_0000_1100), at: second + field(\oft_event.word))
    let windowEnd = field(\oft_header.window_end_ns)
    var alone = bytes
    alone.set(TraceLimits.latestTime / 2, at: windowEnd)
    #expect(try alone.parse().threads[1].events.count == 1)

    bytes.set(TraceLimits.latestTime, at: windowEnd)
    expectRefused(
      bytes,
      .corruptEvents(
        path: "bad.trace", buffer: 1, offset: UInt64(second),
        reason:
          "events from 1700000 to the end of the events at \(TraceLimits.latestTime) bring the buffers' thread time past \(TraceLimits.eventThreadTime) ns"
      ))
  }

  @Test("a forked trace cannot say more records were inherited than it can hold")
  func forkRecordIndex() {
    var trace = sampleTrace()
    trace.header.parentPID = 1
    trace.header.forkRecordIndex = 2
    expectHeaderRefused(
      trace, UInt64(65), at: field(\oft_header.fork_record_index), "impossible fork record index 65 for 64 records",
      seal: { $0.sealHeader() })
  }
}

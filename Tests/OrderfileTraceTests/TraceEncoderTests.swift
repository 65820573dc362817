import OrderfileTrace
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

@Suite("Trace encoder")
struct TraceEncoderTests {
  @Test("random traces round-trip through the encoder and the reader", arguments: 0..<200)
  func randomRoundTrip(seed: UInt64) throws {
    var generator = SplitMix64(seed: seed)
    let original = randomTrace(using: &generator)
    let decoded = try TraceReader.parse(TraceEncoder.encode(original), path: "random.trace")
    #expect(decoded.header == original.header)
    #expect(decoded.modules == original.modules)
    #expect(decoded.records == original.records)
    #expect(decoded.uncommittedRecords == original.uncommittedRecords)
    #expect(decoded.marks == original.marks)
    #expect(decoded.threads == original.threads)
    #expect(decoded.unknownRecords == 0)
  }

  @Test("the encoder fills the header's C structures, with the header's checksums", arguments: 0..<20)
  func encoderWritesTheCStructures(seed: UInt64) throws {
    var generator = SplitMix64(seed: seed)
    let trace = randomTrace(using: &generator)
    let bytes = TraceEncoder.encode(trace)
    try bytes.withUnsafeBytes { raw in
      try #require(raw.count >= MemoryLayout<oft_header>.size)
      let header = raw.loadUnaligned(as: oft_header.self)
      #expect(header.magic == OFT_MAGIC)
      #expect(header.pid == trace.header.pid)
      #expect(header.checksum == oft_checksum(raw.baseAddress, UInt64(field(\oft_header.checksum))))
      #expect(header.record_count == UInt64(trace.records.count + trace.uncommittedRecords))
      #expect(header.module_count == UInt32(trace.modules.count))
      #expect(header.dropped_count == trace.header.droppedCount)
      #expect(header.window_reason == trace.header.windowReason.rawValue)
      #expect((header.flags & OFT_FLAG_CLOSED != 0) == trace.header.isClosed)
      #expect((header.flags & OFT_FLAG_FORKED != 0) == trace.header.isForked)
      #expect(header.mark_count == UInt32(trace.marks.count))

      for (index, module) in trace.modules.enumerated() {
        let offset = Int(header.module_table_offset) + index * MemoryLayout<oft_module>.size
        let entry = raw.loadUnaligned(fromByteOffset: offset, as: oft_module.self)
        #expect(entry.load_base == module.loadBase)
        #expect(entry.text_start == module.textRange.lowerBound)
        #expect(entry.text_end == module.textRange.upperBound)
        #expect(Int(entry.path_length) == module.path.utf8.count)
        #expect(Int(entry.build_id_length) == module.buildID.count)
        #expect((entry.flags & OFT_MODULE_MAIN_EXECUTABLE != 0) == module.isMainExecutable)
        #expect(
          entry.checksum
            == oft_checksum(raw.baseAddress.map { $0 + offset }, UInt64(field(\oft_module.checksum))))
      }
      for (index, call) in trace.records.enumerated() {
        let offset = Int(header.records_offset) + index * MemoryLayout<oft_record>.size
        var record = raw.loadUnaligned(fromByteOffset: offset, as: oft_record.self)
        #expect(record.address == call.address)
        #expect(record.time_ns == call.timeNanoseconds)
        #expect(record.tid == call.threadID)
        #expect(Int(record.module) == call.module)
        #expect(record.kind == call.phase.rawValue)
        #expect(record.check == oft_record_check(&record))
      }
      for (index, mark) in trace.marks.enumerated() {
        let offset = Int(header.marks_offset) + index * MemoryLayout<oft_mark>.size
        var entry = raw.loadUnaligned(fromByteOffset: offset, as: oft_mark.self)
        #expect(entry.time_ns == mark.timeNanoseconds)
        #expect(Int(entry.name_length) == mark.name.utf8.count)
        #expect(entry.check == oft_mark_check(&entry))
      }
      let bufferSize = Int(oft_thread_buffer_size(header.event_capacity))
      for (index, thread) in trace.threads.enumerated() {
        let offset = Int(header.events_offset) + index * bufferSize
        let buffer = raw.loadUnaligned(fromByteOffset: offset, as: oft_thread_buffer.self)
        #expect(buffer.tid == thread.threadID)
        #expect(buffer.count == UInt64(thread.events.count))
        #expect(buffer.dropped == thread.droppedEvents)
        for (number, event) in thread.events.enumerated() {
          let stored = raw.loadUnaligned(
            fromByteOffset: offset + MemoryLayout<oft_thread_buffer>.size + number * MemoryLayout<oft_event>.size,
            as: oft_event.self)
          #expect(stored.time_ns == event.timeNanoseconds)
          #expect((stored.word & OFT_EVENT_EXIT != 0) == (event.kind == .exit))
        }
      }
      let end = Int(header.records_offset) + Int(header.record_capacity) * MemoryLayout<oft_record>.size
      let used = Int(header.records_offset) + trace.records.count * MemoryLayout<oft_record>.size
      #expect(raw.count == (trace.header.isClosed ? used : end))
    }
  }

  @Test("a 1.0 trace stays 1.0: without marks or buffers there is no header extension")
  func noExtensionWithoutMarksOrBuffers() throws {
    let trace = sampleTrace()
    #expect(trace.header.versionMinor == 0)
    let bytes = TraceEncoder.encode(trace)
    let header = bytes.withUnsafeBytes { $0.loadUnaligned(as: oft_header.self) }
    #expect(header.version_minor == 0)
    #expect(header.extension_checksum == 0)
    #expect(
      header.records_offset == header.module_table_offset + UInt64(trace.header.moduleCapacity)
        * UInt64(OFT_MODULE_SIZE))
    #expect(try TraceReader.parse(bytes, path: "v10.trace").header.versionMinor == 0)
  }
}

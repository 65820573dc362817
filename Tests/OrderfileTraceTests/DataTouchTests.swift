import OrderfileTrace
import OrderfileTraceFormat
import Testing

/// The sample trace in format 1.4, with first touches of read-only data beside its calls.
private func dataTrace() -> Trace {
  var trace = sampleTrace()
  trace.header.versionMinor = 4
  trace.dataTouches = [
    DataTouch(module: 0, address: 0x9a10, pageSize: 4096, timeNanoseconds: 1_650_000, threadID: 4242),
    DataTouch(module: 1, address: 0x5008, pageSize: 4096, timeNanoseconds: 1_850_000, threadID: 4243),
    DataTouch(module: 0, address: 0xd7f0, pageSize: 16384, timeNanoseconds: 1_900_000, threadID: 4242),
  ]
  return trace
}

@Suite("First touches of read-only data in the trace (format 1.4)")
struct DataTouchTests {
  @Test("data touches round-trip beside the first calls, with the page each was seen at")
  func roundTrip() throws {
    let read = try TraceReader.parse(TraceEncoder.encode(dataTrace()), path: "data.trace")
    #expect(read.dataTouches == dataTrace().dataTouches)
    #expect(read.records == sampleTrace().records)
    #expect(read.unknownRecords == 0)
    #expect(read.dataTouches.map(\.page) == [0x9000..<0xa000, 0x5000..<0x6000, 0xc000..<0x10000])
  }

  @Test("a data touch inside its module's text, or at no page size, is refused at its field")
  func refused() {
    let index = sampleTrace().records.count  // the first data touch follows the calls
    func refused<T: FixedWidthInteger>(
      _ value: T, at offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      var bytes = TraceBytes(dataTrace())
      let base = bytes.recordOffset(index)
      bytes.set(value, at: base + offset)
      bytes.sealRecord(index)
      expectRefused(
        bytes, .corruptRecord(path: "bad.trace", index: index, offset: UInt64(base + offset), reason: reason),
        sourceLocation: sourceLocation)
    }
    refused(UInt64(0x1234), at: field(\oft_record.address), "data page of 0x1234 lies inside module 0's text")
    refused(UInt64(3000), at: field(\oft_record.size), "data page size 3000 at 0x9a10 is no page size")
    refused(UInt64(0), at: field(\oft_record.size), "data page size 0 at 0x9a10 is no page size")
  }
}

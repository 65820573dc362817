import OrderfileTrace
import OrderfileTraceFormat
import Testing

@Suite("Where the process start came from (format 1.2)")
struct ProcessStartSourceTests {
  @Test("a 1.2 trace keeps its source and the runtime's start-up end", arguments: ProcessStartSource.allCases)
  func roundTrip(source: ProcessStartSource) throws {
    var trace = sampleTrace()
    trace.header.versionMinor = 2
    trace.header.processStartSource = source
    trace.header.startupEndNanoseconds = 1_550_000
    let bytes = TraceBytes(trace)
    #expect(bytes.header.process_start_source == source.rawValue)
    #expect(bytes.header.startup_end_ns == 1_550_000)
    let read = try bytes.parse()
    #expect(read.header.processStartSource == source)
    #expect(read.header.startupEndNanoseconds == 1_550_000)
  }

  @Test(
    "before 1.2 the resolution tells the source: 0 the first hook, 1 µs a spawn time, a tick /proc",
    arguments: [(UInt64(0), ProcessStartSource.traceStart), (1_000, .spawn), (10_000_000, .procStat)])
  func olderTraces(resolution: UInt64, source: ProcessStartSource) throws {
    var trace = sampleTrace()
    trace.header.processStartResolutionNanoseconds = resolution
    // Whatever a 1.1 writer left in the bytes 1.2 reads, it is not read.
    var bytes = TraceBytes(trace)
    bytes.set(UInt32(7), at: field(\oft_header.process_start_source))
    bytes.set(UInt64(5), at: field(\oft_header.startup_end_ns))
    bytes.sealHeader()
    let read = try bytes.parse()
    #expect(read.header.processStartSource == source)
    #expect(read.header.startupEndNanoseconds == nil)
  }

  @Test("an unknown source in a 1.2 header is refused at its offset")
  func unknownSource() {
    var trace = sampleTrace()
    trace.header.versionMinor = 2
    expectHeaderRefused(
      trace, UInt32(3), at: field(\oft_header.process_start_source), "unknown process start source 3",
      seal: { $0.sealHeader() })
  }
}

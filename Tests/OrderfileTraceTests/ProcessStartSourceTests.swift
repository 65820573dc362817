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

@Suite("The recorder's own time (format 1.3)")
struct RecorderTimeTests {
  @Test("a 1.3 trace keeps the recorder's time and sets the program-clock flag; without it, neither")
  func roundTrip() throws {
    var trace = sampleTrace()
    trace.header.versionMinor = 3
    trace.header.recorderTime = RecorderTime(totalNanoseconds: 9_000_000, armingNanoseconds: 4_000_000)
    let bytes = TraceBytes(trace)
    #expect(bytes.header.flags & OFT_FLAG_PROGRAM_CLOCK != 0)
    #expect(bytes.header.recorder_ns == 9_000_000)
    #expect(bytes.header.arming_ns == 4_000_000)
    #expect(try bytes.parse().header.recorderTime == trace.header.recorderTime)

    trace.header.recorderTime = nil
    let plain = TraceBytes(trace)
    #expect(plain.header.flags & OFT_FLAG_PROGRAM_CLOCK == 0)
    #expect(try plain.parse().header.recorderTime == nil)
  }

  @Test("a 1.5 trace keeps its children's part of the recorder's time where C puts it; a 1.4 trace reads none")
  func childrenRoundTrip() throws {
    var trace = sampleTrace()
    trace.header.versionMinor = 5
    trace.header.recorderTime = RecorderTime(
      totalNanoseconds: 9_000_000, armingNanoseconds: 4_000_000, childrenNanoseconds: 3_000_000)
    let bytes = TraceBytes(trace)
    #expect(bytes.header.children_ns == 3_000_000)
    #expect(try bytes.parse().header.recorderTime == trace.header.recorderTime)
    // An older minor has reserved bytes there: whatever the bytes, no children's part.
    trace.header.versionMinor = 4
    #expect(try TraceBytes(trace).parse().header.recorderTime?.childrenNanoseconds == 0)
  }

  @Test("arming longer than the recorder's whole time is refused at its offset")
  func armingAboveTotal() {
    var trace = sampleTrace()
    trace.header.versionMinor = 3
    trace.header.recorderTime = RecorderTime(totalNanoseconds: 1_000, armingNanoseconds: 1_000)
    expectHeaderRefused(
      trace, UInt64(2_000), at: field(\oft_header.arming_ns),
      "impossible arming time 2000 ns above the recorder's 1000 ns",
      seal: { $0.sealHeader() })
  }
}

@Suite("Emulated times (OFT_FLAG_EMULATED)")
struct EmulatedTimesTests {
  @Test("the emulated flag is written where C reads it and read back; a native trace has neither")
  func roundTrip() throws {
    var trace = sampleTrace()
    trace.header.isEmulated = true
    let bytes = TraceBytes(trace)
    #expect(bytes.header.flags & OFT_FLAG_EMULATED != 0)
    #expect(try bytes.parse().header.isEmulated)

    trace.header.isEmulated = false
    let native = TraceBytes(trace)
    #expect(native.header.flags & OFT_FLAG_EMULATED == 0)
    #expect(try native.parse().header.isEmulated == false)
  }
}

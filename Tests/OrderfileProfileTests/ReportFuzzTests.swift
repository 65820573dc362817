import Foundation
import OrderfileProfile
import OrderfileSymbolization
import OrderfileTrace
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Fuzzes the trace reader and everything `orderfile report` does with what it accepts.
///
/// Each input is a valid seed trace with one to four mutations, aimed where checksums do
/// not reach: the header's running counts, flags and times, the event buffers' counts and
/// events, and record, mark, module and header fields re-sealed after the change so that
/// only the reader's range checks stand between them and the reports. Some inputs also get
/// raw bit flips or a new length. Every input must be refused with a `TraceError` naming
/// the file, or be read and then survive the whole report pipeline: the profile, its text,
/// Markdown, HTML and JSON renderings, the folded stacks, and for one input in eight the
/// Chrome trace.
///
/// The suite runs a fixed number of inputs from a fixed seed (a few seconds). Input `n` is
/// made from the seed and `n` alone, so a failure is replayed by its number. A long run,
/// optimized (about 0.7 ms an input on one core):
///
///     ORDERFILE_FUZZ_INPUTS=1000000 swift test -c release -Xswiftc -enable-testing \
///       --disable-xctest --filter ReportFuzzTests
///
/// also `ORDERFILE_FUZZ_SEED=<n>` for another seed and `ORDERFILE_FUZZ_FIRST=<n>` to start
/// at input `n`; `ORDERFILE_FUZZ_READER_ONLY=1` stops at the reader and its promises (what
/// Scripts/fuzz-readers runs, a million inputs). An input that takes more than a second
/// counts as a hang and fails the run. An input that traps (an overflow in a report, say) kills the test process
/// at once; the trap handler prints the input's number and seed first.
@Suite("Trace reader and report fuzzing")
struct ReportFuzzTests {
  static let defaultSeed: UInt64 = 0x6F72_6465_7266_696C  // "orderfil"
  static let defaultInputs = 2_000

  @Test("mutated traces are refused with a TraceError or survive every report")
  func fuzz() throws {
    let environment = ProcessInfo.processInfo.environment
    let seed = environment["ORDERFILE_FUZZ_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
    let inputs = environment["ORDERFILE_FUZZ_INPUTS"].flatMap { Int($0) } ?? Self.defaultInputs
    let first = environment["ORDERFILE_FUZZ_FIRST"].flatMap { Int($0) } ?? 0
    let readerOnly = environment["ORDERFILE_FUZZ_READER_ONLY"] == "1"
    let seeds = (0..<6).map { FuzzSeed(index: $0) }

    TrapReporter.install(seed: seed)
    defer { TrapReporter.uninstall() }
    var accepted = 0
    var refusals: [String: Int] = [:]
    var hangs: [Int] = []
    var slowest = 0.0
    let started = Date()
    for number in first..<(first + inputs) {
      TrapReporter.current = number
      let inputStarted = DispatchTime.now().uptimeNanoseconds
      defer {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - inputStarted) / 1e9
        slowest = max(slowest, seconds)
        if seconds > 1 { hangs.append(number) }
      }
      var generator = SplitMix64(seed: seed ^ (UInt64(number) &* 0xD1B5_4A32_D192_ED03))
      let base = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
      var mutator = Mutator(bytes: base.bytes)
      for _ in 0...Int.random(in: 0...3, using: &generator) { mutator.mutate(using: &generator) }
      do {
        let trace = try TraceReader.parse(mutator.bytes, path: "fuzz.trace")
        accepted += 1
        try Self.check(trace)
        if !readerOnly { try Self.report(trace, symbols: base.symbols, chromeTrace: number % 8 == 0) }
      } catch let error as TraceError {
        let message = error.errorDescription ?? ""
        #expect(message.hasPrefix("fuzz.trace: "), "input \(number): \(message)")
        refusals[String(describing: error).prefix { $0 != "(" }.description, default: 0] += 1
      } catch {
        Issue.record("input \(number) of seed \(seed): \(error)")
      }
    }
    let seconds = Date().timeIntervalSince(started)
    print(
      "\(readerOnly ? "reader" : "report") fuzz: \(inputs) inputs from seed \(seed) in \(String(format: "%.1f", seconds)) s: "
        + "\(accepted) read\(readerOnly ? "" : " and reported"), refused \(refusals.sorted { $0.key < $1.key }); "
        + "0 crashes, \(hangs.count) hangs (over 1 s), slowest input \(String(format: "%.3f", slowest)) s")
    #expect(hangs.isEmpty, "inputs over a second: \(hangs.prefix(20))")
    // Both sides must be exercised, or the mutations miss what they aim at.
    #expect(accepted > inputs / 20)
    #expect(inputs - accepted > inputs / 20)
  }

  /// What the reader promises about any trace it accepts.
  static func check(_ trace: Trace) throws {
    let header = trace.header
    let times =
      [header.processStartNanoseconds, header.traceStartNanoseconds, header.processStartResolutionNanoseconds]
      + [header.timeLimitNanoseconds, header.windowEndNanoseconds, header.endNanoseconds].compactMap { $0 }
      + trace.records.map(\.timeNanoseconds) + trace.marks.map(\.timeNanoseconds)
      + trace.threads.flatMap { $0.events.map(\.timeNanoseconds) }
    #expect(times.allSatisfy { $0 <= TraceLimits.latestTime })
    let counts =
      [header.droppedCount, header.unbufferedEvents] + [header.minorFaults, header.majorFaults].compactMap { $0 }
    #expect(counts.allSatisfy { $0 <= TraceLimits.largestCount })
    #expect(trace.records.allSatisfy { $0.module < trace.modules.count })
  }

  /// Everything `orderfile report` makes of a trace, in every format. The Chrome trace
  /// only when asked: serializing it takes three quarters of the time of an input, and
  /// one input in eight gives it plenty to chew on.
  static func report(_ trace: Trace, symbols: SymbolTable, chromeTrace: Bool) throws {
    let profile = ProfileBuilder().build(trace: trace, symbols: symbols)
    _ = ProfileTextRenderer().render(profile)
    _ = ProfileMarkdownRenderer().render(profile)
    _ = ProfileHTMLRenderer().render(profile)
    _ = try JSONEncoder().encode(profile)
    if chromeTrace { _ = try ChromeTraceExporter(trace: trace, symbols: symbols).render(profile) }
    if !trace.threads.isEmpty {
      _ = FoldedStacksExporter(symbols: symbols).render(trace)
      _ = FoldedStacksExporter(symbols: symbols, perThread: true).render(trace)
    }
  }
}

/// A valid trace to mutate: two modules (one symbolized), records in both phases, marks,
/// and full-mode threads whose calls nest, return out of order and stay open at the end.
struct FuzzSeed {
  let bytes: [UInt8]
  let symbols: SymbolTable

  init(index: Int) {
    var generator = SplitMix64(seed: UInt64(index) &+ 1)
    let names = ["start", "main", "init", "load", "parse", "draw", "worker", "leaf"]
    let symbolizer = TableSymbolizer(names)
    symbols = SymbolTable(symbolizers: [0: symbolizer])
    let start: UInt64 = 5_000_000_000 + UInt64(index) * 1_000_000
    let modules = [
      TraceModule(
        index: 0, path: "/app", buildID: [1, 2, 3, 4], loadBase: 0x5555_0000_0000, textRange: 0x1000..<0x9000,
        isMainExecutable: true, textResidentBytes: index.isMultiple(of: 2) ? 0x3000 : nil),
      TraceModule(
        index: 1, path: "/lib/libx.so", buildID: [], loadBase: 0x7f00_0000_0000, textRange: 0x400..<0x2400,
        isMainExecutable: false),
    ]
    var time = start + 2_000_000
    func later() -> UInt64 {
      time += UInt64.random(in: 1...50_000, using: &generator)
      return time
    }
    let windowEnd = start + 40_000_000
    var records: [FirstCall] = []
    for (number, name) in names.enumerated() {
      let inLibrary = number % 3 == 2
      let address = inLibrary ? 0x400 + UInt64(number) * 0x100 : symbolizer.address(name) + 4
      records.append(
        FirstCall(
          module: inLibrary ? 1 : 0, address: address, timeNanoseconds: later(),
          threadID: number == 6 ? 201 : 200, phase: number < 6 ? .launch : .postWindow))
    }
    let marks = (0..<(index % 3)).map { Mark(name: "mark \($0)", timeNanoseconds: later(), threadID: 200) }
    // Every thread runs inside "worker", which never returns: its calls stay open until the
    // events end, and the folded stacks add up such calls of every thread that shares the
    // stack. Seed 5 has five threads with the same calls, which is where those sums grow.
    func threadEvents() -> [CallEvent] {
      var events = [CallEvent(kind: .enter, module: 0, address: symbolizer.address("worker"), timeNanoseconds: later())]
      var open = ["worker"]
      for _ in 0..<Int.random(in: 4...24, using: &generator) {
        if open.count > 1 && Bool.random(using: &generator) {
          // Mostly the innermost call returns; sometimes an outer one (a longjmp).
          let name = Int.random(in: 0...3, using: &generator) == 0 ? open[1] : open.last!
          events.append(CallEvent(kind: .exit, module: 0, address: symbolizer.address(name), timeNanoseconds: later()))
          open.removeSubrange(open.lastIndex(of: name)!...)
        } else {
          let name = names.randomElement(using: &generator)!
          events.append(CallEvent(kind: .enter, module: 0, address: symbolizer.address(name), timeNanoseconds: later()))
          open.append(name)
        }
      }
      return events
    }
    var threads: [ThreadEvents] = []
    if index == 5 {
      let shared = threadEvents()
      threads = (0..<5).map { ThreadEvents(threadID: 200 + UInt32($0), events: shared, droppedEvents: UInt64($0)) }
    } else if index % 3 != 1 {
      threads = (0..<(1 + index % 3)).map {
        ThreadEvents(threadID: 200 + UInt32($0), events: threadEvents(), droppedEvents: UInt64(index * $0))
      }
    }
    let closed = index != 4
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 1, pid: 200, parentPID: index == 5 ? 199 : nil,
      forkRecordIndex: index == 5 ? 3 : nil, recordCapacity: 16, moduleCapacity: 3,
      processStartNanoseconds: start, processStartResolutionNanoseconds: 10_000_000,
      traceStartNanoseconds: start + 1_000_000, timeLimitNanoseconds: index == 3 ? 40_000_000 : nil,
      droppedCount: UInt64(index), unbufferedEvents: threads.isEmpty && marks.isEmpty ? 0 : UInt64(index),
      isClosed: closed, windowReason: closed ? (index == 3 ? .timeLimit : .startupComplete) : .open,
      windowEndNanoseconds: closed ? windowEnd : nil, endNanoseconds: closed ? windowEnd + 10_000_000 : nil,
      minorFaults: closed ? 1_000 : nil, majorFaults: closed ? 12 : nil)
    bytes = TraceEncoder.encode(
      Trace(
        path: "seed.trace", header: header, modules: modules, records: records,
        uncommittedRecords: closed ? 0 : 1, marks: marks, threads: threads))
  }
}

/// Mutations of an encoded trace, most of them past its checksums.
struct Mutator {
  var bytes: [UInt8]

  /// The header as the seed wrote it: where the regions are, before any mutation.
  let layout: oft_header

  init(bytes: [UInt8]) {
    self.bytes = bytes
    layout = bytes.withUnsafeBytes { $0.loadUnaligned(as: oft_header.self) }
  }

  static func offset<S>(_ path: PartialKeyPath<S>) -> Int { MemoryLayout<S>.offset(of: path)! }

  /// Header fields after the checksum: nothing but the reader's checks covers them.
  static let runningFields: [(Int, Int)] = [
    (offset(\oft_header.record_count), 8), (offset(\oft_header.dropped_count), 8),
    (offset(\oft_header.module_count), 4), (offset(\oft_header.flags), 4),
    (offset(\oft_header.window_reason), 4), (offset(\oft_header.window_end_ns), 8),
    (offset(\oft_header.end_ns), 8), (offset(\oft_header.minor_faults), 8), (offset(\oft_header.major_faults), 8),
    (offset(\oft_header.mark_count), 4), (offset(\oft_header.event_thread_count), 4),
    (offset(\oft_header.unbuffered_events), 8),
  ]
  /// Header fields under the checksum, re-sealed after the change.
  static let sealedFields: [(Int, Int)] = [
    (offset(\oft_header.module_capacity), 4), (offset(\oft_header.pid), 4),
    (offset(\oft_header.record_capacity), 8), (offset(\oft_header.records_offset), 8),
    (offset(\oft_header.process_start_ns), 8), (offset(\oft_header.process_start_resolution_ns), 8),
    (offset(\oft_header.trace_start_ns), 8), (offset(\oft_header.parent_pid), 4),
    (offset(\oft_header.fork_record_index), 8), (offset(\oft_header.time_limit_ns), 8),
  ]
  /// Header extension fields, re-sealed with the extension checksum.
  static let extensionFields: [(Int, Int)] = [
    (offset(\oft_header.marks_offset), 8), (offset(\oft_header.events_offset), 8),
    (offset(\oft_header.event_capacity), 8), (offset(\oft_header.mark_capacity), 4),
    (offset(\oft_header.event_thread_capacity), 4),
  ]
  static let recordFields: [(Int, Int)] = [
    (offset(\oft_record.address), 8), (offset(\oft_record.time_ns), 8), (offset(\oft_record.tid), 4),
    (offset(\oft_record.module), 2), (offset(\oft_record.kind), 1),
  ]
  static let markFields: [(Int, Int)] = [
    (offset(\oft_mark.time_ns), 8), (offset(\oft_mark.tid), 4), (offset(\oft_mark.name_length), 2),
  ]
  static let moduleFields: [(Int, Int)] = [
    (offset(\oft_module.load_base), 8), (offset(\oft_module.text_start), 8), (offset(\oft_module.text_end), 8),
    (offset(\oft_module.text_rss_bytes), 8), (offset(\oft_module.flags), 4), (offset(\oft_module.path_length), 2),
    (offset(\oft_module.build_id_length), 1),
  ]

  mutating func mutate(using generator: inout SplitMix64) {
    switch Int.random(in: 0..<100, using: &generator) {
    case 0..<30:
      let (field, width) = Self.runningFields.randomElement(using: &generator)!
      store(value(at: field, width, using: &generator), at: field, width)
    case 30..<50:
      mutateEvents(using: &generator)
    case 50..<60:
      let (field, width) = Self.sealedFields.randomElement(using: &generator)!
      store(value(at: field, width, using: &generator), at: field, width)
      seal(0, Self.offset(\oft_header.checksum))
    case 60..<65:
      let (field, width) = Self.extensionFields.randomElement(using: &generator)!
      store(value(at: field, width, using: &generator), at: field, width)
      seal(Self.offset(\oft_header.marks_offset), Self.offset(\oft_header.extension_checksum))
    case 65..<77:
      mutateSlot(
        of: Int(layout.records_offset), count: min(layout.record_count, layout.record_capacity),
        size: Int(OFT_RECORD_SIZE), fields: Self.recordFields, using: &generator)
    case 77..<82:
      mutateSlot(
        of: Int(layout.marks_offset), count: UInt64(min(layout.mark_count, layout.mark_capacity)),
        size: Int(OFT_MARK_SIZE), fields: Self.markFields, using: &generator)
    case 82..<88:
      guard layout.module_count > 0 else { return }
      let base =
        Int(layout.module_table_offset)
        + Int.random(in: 0..<Int(layout.module_count), using: &generator) * Int(OFT_MODULE_SIZE)
      let (field, width) = Self.moduleFields.randomElement(using: &generator)!
      store(value(at: base + field, width, using: &generator), at: base + field, width)
      seal(base, base + Self.offset(\oft_module.checksum))
    case 88..<95:
      // Raw damage: a checksum or check byte should catch most of it.
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let at = Int.random(in: 0..<bytes.count, using: &generator)
        bytes[at] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
      }
    default:
      if Bool.random(using: &generator) {
        bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
      } else {
        bytes += [UInt8](repeating: 0, count: Int.random(in: 1...4096, using: &generator))
      }
    }
  }

  /// One field of a committed record or mark, re-sealed with its check byte.
  mutating func mutateSlot(
    of region: Int, count: UInt64, size: Int, fields: [(Int, Int)], using generator: inout SplitMix64
  ) {
    guard count > 0 else { return }
    let base = region + Int.random(in: 0..<Int(count), using: &generator) * size
    let (field, width) = fields.randomElement(using: &generator)!
    store(value(at: base + field, width, using: &generator), at: base + field, width)
    sealCheckByte(base, size)
  }

  /// A buffer's count, dropped count or thread id, or one of its events' time or word.
  mutating func mutateEvents(using generator: inout SplitMix64) {
    let threads = Int(min(layout.event_thread_count, layout.event_thread_capacity))
    guard threads > 0 else { return }
    let buffer =
      Int(layout.events_offset)
      + Int.random(in: 0..<threads, using: &generator) * Int(oft_thread_buffer_size(layout.event_capacity))
    let events = Int(clamping: load(at: buffer + Self.offset(\oft_thread_buffer.count), 8))
    switch Int.random(in: 0..<6, using: &generator) {
    case 0:
      let field = buffer + Self.offset(\oft_thread_buffer.count)
      store(value(at: field, 8, using: &generator), at: field, 8)
    case 1:
      let field = buffer + Self.offset(\oft_thread_buffer.dropped)
      store(value(at: field, 8, using: &generator), at: field, 8)
    case 2:
      let field = buffer + Self.offset(\oft_thread_buffer.tid)
      store(value(at: field, 4, using: &generator), at: field, 4)
    default:
      guard events > 0, events <= Int(layout.event_capacity) else { return }
      // The last event more often: its time decides how long open calls last.
      let index = Bool.random(using: &generator) ? events - 1 : Int.random(in: 0..<events, using: &generator)
      let event = buffer + Int(OFT_THREAD_BUFFER_HEADER_SIZE) + index * Int(OFT_EVENT_SIZE)
      let field = event + (Bool.random(using: &generator) ? 0 : 8)
      store(value(at: field, 8, using: &generator), at: field, 8)
    }
  }

  /// A value for the field at `offset`: a boundary, a neighbour of what is there, or noise.
  func value(at offset: Int, _ width: Int, using generator: inout SplitMix64) -> UInt64 {
    let mask: UInt64 = width == 8 ? .max : (1 << UInt64(width * 8)) - 1
    let current = load(at: offset, width)
    let boundaries: [UInt64] = [
      0, 1, 2, 7, 0x7f, 0xff, 0xffff, 1 << 31, 0xffff_ffff, 1 << 32, 1 << 53, (1 << 53) + 1, 1 << 62,
      (1 << 62) + 1, 1 << 63, .max - 1, .max,
    ]
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: return boundaries.randomElement(using: &generator)! & mask
    case 1: return current &+ UInt64.random(in: 1...16, using: &generator) & mask
    case 2: return current &- UInt64.random(in: 1...16, using: &generator) & mask
    default: return UInt64.random(in: 0...UInt64.max, using: &generator) & mask
    }
  }

  func load(at offset: Int, _ width: Int) -> UInt64 {
    guard offset >= 0, offset + width <= bytes.count else { return 0 }
    return (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64($1 * 8) }
  }

  mutating func store(_ value: UInt64, at offset: Int, _ width: Int) {
    guard offset >= 0, offset + width <= bytes.count else { return }
    for byte in 0..<width { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt64(byte * 8)) }
  }

  /// Stores the FNV-1a checksum of `start..<end` at `end`, as a writer seals a structure.
  mutating func seal(_ start: Int, _ end: Int) {
    guard start >= 0, end + 4 <= bytes.count else { return }
    let sum = bytes.withUnsafeBytes { oft_checksum($0.baseAddress! + start, UInt64(end - start)) }
    store(UInt64(sum), at: end, 4)
  }

  mutating func sealCheckByte(_ start: Int, _ size: Int) {
    guard start >= 0, start + size <= bytes.count else { return }
    let check = bytes.withUnsafeBytes { oft_check_byte($0.baseAddress! + start, UInt32(size - 1)) }
    bytes[start + size - 1] = check
  }
}

/// Says which input was running when one traps, then lets the trap take its course.
enum TrapReporter {
  nonisolated(unsafe) static var current = 0
  nonisolated(unsafe) static var seed: UInt64 = 0
  nonisolated(unsafe) static var previous: [Int32: sigaction] = [:]

  static let signals = [SIGILL, SIGTRAP]

  static func install(seed: UInt64) {
    self.seed = seed
    for signal in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        var line =
          "report fuzz: input \(TrapReporter.current) of seed \(TrapReporter.seed) trapped; replay it with "
          + "ORDERFILE_FUZZ_SEED=\(TrapReporter.seed) ORDERFILE_FUZZ_FIRST=\(TrapReporter.current) ORDERFILE_FUZZ_INPUTS=1\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        // Back to the handler before this one; returning runs the trapping instruction again.
        if var old = TrapReporter.previous[signal] { sigaction(signal, &old, nil) }
      }
      var old = sigaction()
      sigaction(signal, &action, &old)
      previous[signal] = old
    }
  }

  static func uninstall() {
    for signal in signals {
      if var old = previous[signal] { sigaction(signal, &old, nil) }
    }
    previous = [:]
  }
}

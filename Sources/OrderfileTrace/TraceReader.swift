import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Reads trace files written by the runtime and validates every structure in them.
///
/// A trace is refused when it cannot be what the runtime wrote: a wrong magic
/// number or major version, a header whose checksum fails, a module entry or
/// record that fails its check, a file shorter than its header promises, or a
/// count or time that no checksum covers and no real launch could produce
/// (`TraceLimits`). A trace whose process died before closing it (crash,
/// SIGKILL, `_exit`) is accepted: its records are read up to the reserved count,
/// and slots that were reserved but never completed are skipped and counted.
public enum TraceReader {
  /// Reads and validates the trace at `path`.
  ///
  /// Only the regions the header declares in use are read - the header, the modules, the
  /// marks, each claimed event buffer up to its count, the reserved records - with `pread`
  /// into memory of the reader's own. A full-mode trace reserves hundreds of MiB of event
  /// buffers that are mostly sparse, and none of that is read. The file is never mapped:
  /// a process that truncates it meanwhile (a runtime starting over at the same path)
  /// makes the read end early, which is an error here, where a mapping would raise
  /// SIGBUS.
  public static func read(path: String) throws -> Trace {
    let source = try FileSource(path: path)
    return try Parser(source: source, path: path).parse()
  }

  /// Validates and decodes trace bytes; `path` is only used in messages.
  public static func parse(_ bytes: [UInt8], path: String) throws -> Trace {
    try Parser(source: MemorySource(bytes: bytes), path: path).parse()
  }
}

/// The largest values the reader accepts in the fields no checksum covers, and in the
/// times, which a checksum cannot vouch for either: a runtime writes what its clock said.
///
/// They are far beyond anything a launch produces, and low enough that sums and
/// differences of them, as every report computes, cannot overflow.
public enum TraceLimits {
  /// The latest time: `CLOCK_MONOTONIC` nanoseconds 2^62, 146 years after boot.
  public static let latestTime: UInt64 = 1 << 62
  /// The largest count of things the file does not hold - dropped first calls, dropped
  /// and unbuffered events (each, and all of them together), page faults, resident bytes:
  /// 2^53, so that every count stays exact as a JSON number.
  public static let largestCount: UInt64 = 1 << 53
  /// The most thread time full-mode events can cover: from each thread's first event to
  /// the end of the events (the window end, or the last event of any thread), summed over
  /// the threads. 2^62 ns; a report that adds up the calls of every thread stays below it.
  public static let eventThreadTime: UInt64 = 1 << 62
  /// The most record slots a trace may hold reserved but never written. A slot is written
  /// right after it is reserved, so only threads caught in between (a crash, SIGKILL) leave
  /// one empty: 2^16, more threads than a launch has.
  public static let uncommittedRecords = 1 << 16
}

/// Bytes read from one stretch of a trace file, addressed by file offset.
struct Region {
  let start: Int
  let bytes: [UInt8]

  var end: Int { start + bytes.count }

  func u8(_ offset: Int) -> UInt8 { bytes[offset - start] }
  func u16(_ offset: Int) -> UInt16 { load(offset) }
  func u32(_ offset: Int) -> UInt32 { load(offset) }
  func u64(_ offset: Int) -> UInt64 { load(offset) }

  private func load<T: FixedWidthInteger>(_ offset: Int) -> T {
    precondition(offset >= start && offset + MemoryLayout<T>.size <= end, "read outside the region")
    return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset - start, as: T.self)) }
  }

  /// The bytes of `range`, given as file offsets inside the region.
  func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
    bytes[(range.lowerBound - start)..<(range.upperBound - start)]
  }

  func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    bytes.withUnsafeBytes {
      body(UnsafeRawBufferPointer(rebasing: $0[(range.lowerBound - start)..<(range.upperBound - start)]))
    }
  }
}

/// Where the parser gets its bytes: `size` is the length when reading began.
protocol TraceSource {
  var size: Int { get }
  /// The bytes of `range`, which lies inside `size`.
  func region(_ range: Range<Int>) throws -> Region
}

struct MemorySource: TraceSource {
  let bytes: [UInt8]
  var size: Int { bytes.count }
  func region(_ range: Range<Int>) throws -> Region { Region(start: range.lowerBound, bytes: Array(bytes[range])) }
}

/// A trace file read with `pread`, never mapped.
final class FileSource: TraceSource {
  let path: String
  let descriptor: Int32
  let size: Int

  init(path: String) throws {
    self.path = path
    do {
      (descriptor, size) = try FileReading.openRegularFile(atPath: path)
    } catch let error as SupportError {
      throw TraceError.unreadable(path: path, message: error.reason)
    }
  }

  deinit { close(descriptor) }

  func region(_ range: Range<Int>) throws -> Region {
    var bytes = [UInt8](repeating: 0, count: range.count)
    var done = 0
    while done < range.count {
      let count = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw TraceError.unreadable(path: path, message: "read failed: " + String(cString: strerror(errno)))
      }
      if count == 0 { throw TraceError.shrank(path: path, offset: UInt64(range.lowerBound + done)) }
      done += count
    }
    return Region(start: range.lowerBound, bytes: bytes)
  }
}

private struct Parser {
  let source: TraceSource
  let path: String
  var size: Int { source.size }

  func parse() throws -> Trace {
    typealias H = TraceLayout.Header
    let head = try source.region(0..<min(size, TraceLayout.headerSize))
    guard size >= H.magicEnd else {
      // Too short for a magic number: a cut-off trace if what is there begins one, else not a trace.
      let magicBytes = withUnsafeBytes(of: TraceLayout.magic.littleEndian) { Array($0) }
      if head.bytes == Array(magicBytes.prefix(size)) {
        throw TraceError.truncated(
          path: path, offset: UInt64(size), expected: "an \(H.magicEnd)-byte magic number")
      }
      let found = head.bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      throw TraceError.badMagic(path: path, found: found)
    }
    let magic = head.u64(H.magic)
    guard magic == TraceLayout.magic else { throw TraceError.badMagic(path: path, found: magic) }
    guard size >= H.versionEnd else {
      throw TraceError.truncated(path: path, offset: UInt64(size), expected: "the format version")
    }
    let major = head.u16(H.versionMajor)
    let minor = head.u16(H.versionMinor)
    guard major == TraceLayout.versionMajor else {
      throw TraceError.unsupportedVersion(path: path, major: major, minor: minor)
    }
    guard size >= TraceLayout.headerSize else {
      throw TraceError.truncated(
        path: path, offset: UInt64(size), expected: "a \(TraceLayout.headerSize)-byte header")
    }
    let stored = head.u32(H.checksum)
    let computed = head.withBytes(0..<H.checksum, TraceLayout.checksum)
    guard stored == computed else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.checksum),
        reason: "checksum \(hex(stored)) does not match the header's contents (\(hex(computed)))")
    }
    try expect(
      head.u32(H.headerSize) == UInt32(TraceLayout.headerSize), H.headerSize, "header size \(head.u32(H.headerSize))")
    try expect(
      head.u32(H.moduleEntrySize) == UInt32(TraceLayout.moduleSize), H.moduleEntrySize,
      "module entry size \(head.u32(H.moduleEntrySize))")
    try expect(
      head.u32(H.recordSize) == UInt32(TraceLayout.recordSize), H.recordSize, "record size \(head.u32(H.recordSize))")

    let moduleCapacity = Int(head.u32(H.moduleCapacity))
    let recordCapacity = head.u64(H.recordCapacity)
    let moduleTable = head.u64(H.moduleTableOffset)
    let recordsOffset = head.u64(H.recordsOffset)
    try expect(
      moduleTable == UInt64(TraceLayout.headerSize), H.moduleTableOffset, "module table offset \(hex(moduleTable))")
    let regions = try extensionRegions(
      head, minor: minor, moduleCapacity: head.u32(H.moduleCapacity), recordCapacity: recordCapacity)
    let expectedRecords =
      regions?.recordsOffset
      ?? TraceLayout.Placement(modules: head.u32(H.moduleCapacity), records: recordCapacity).records
    try expect(
      recordsOffset == expectedRecords, H.recordsOffset,
      "records offset \(hex(recordsOffset)) for \(moduleCapacity) modules")
    try expect(recordCapacity <= 1 << 32, H.recordCapacity, "record capacity \(recordCapacity)")

    let flags = head.u32(H.flags)
    let closed = flags & TraceLayout.Flag.closed != 0
    let forked = flags & TraceLayout.Flag.forked != 0
    let metrics = flags & TraceLayout.Flag.metrics != 0
    let moduleCount = Int(head.u32(H.moduleCount))
    try expect(moduleCount <= moduleCapacity, H.moduleCount, "\(moduleCount) modules in a table of \(moduleCapacity)")
    let reserved = head.u64(H.recordCount)
    // A full trace keeps counting reservations past its capacity; those were dropped.
    let recordCount = Int(min(reserved, recordCapacity))
    guard let windowReason = WindowReason(rawValue: head.u32(H.windowReason)) else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.windowReason), reason: "unknown window reason \(head.u32(H.windowReason))")
    }
    for field in [H.processStart, H.processStartResolution, H.traceStart, H.timeLimit, H.windowEnd, H.end] {
      try expectTime(head.u64(field), field)
    }
    let startSource: ProcessStartSource
    var startupEnd: UInt64?
    var recorderTime: RecorderTime?
    if minor >= 2 {
      guard let source = ProcessStartSource(rawValue: head.u32(H.processStartSource)) else {
        throw TraceError.corruptHeader(
          path: path, offset: UInt64(H.processStartSource),
          reason: "unknown process start source \(head.u32(H.processStartSource))")
      }
      startSource = source
      try expectTime(head.u64(H.startupEnd), H.startupEnd)
      startupEnd = nonzero(head.u64(H.startupEnd))
      if minor >= 3, flags & TraceLayout.Flag.programClock != 0 {
        try expectTime(head.u64(H.recorder), H.recorder)
        try expect(
          head.u64(H.arming) <= head.u64(H.recorder), H.arming,
          "arming time \(head.u64(H.arming)) ns above the recorder's \(head.u64(H.recorder)) ns")
        // A live trace's two stores may be read between them: the children's part is kept
        // within what the arming leaves.
        let children = minor >= 5 ? min(head.u64(H.children), head.u64(H.recorder) - head.u64(H.arming)) : 0
        recorderTime = RecorderTime(
          totalNanoseconds: head.u64(H.recorder), armingNanoseconds: head.u64(H.arming),
          childrenNanoseconds: children)
      }
    } else {
      // Before 1.2 the resolution told it: 0 when the runtime fell back on its own start, a
      // microsecond from a recorder that spawned the process, a clock tick from /proc.
      let resolution = head.u64(H.processStartResolution)
      startSource = resolution == 0 ? .traceStart : resolution <= 1_000 ? .spawn : .procStat
    }
    try expectCount(head.u64(H.droppedCount), H.droppedCount, "dropped count")
    if metrics {
      try expectCount(head.u64(H.minorFaults), H.minorFaults, "minor fault count")
      try expectCount(head.u64(H.majorFaults), H.majorFaults, "major fault count")
    }
    let forkRecordIndex = head.u64(H.forkRecordIndex)
    if forked {
      try expect(
        forkRecordIndex <= recordCapacity, H.forkRecordIndex,
        "fork record index \(forkRecordIndex) for \(recordCapacity) records")
    }

    let modulesEnd = Int(moduleTable) + moduleCount * TraceLayout.moduleSize
    guard size >= modulesEnd else {
      throw TraceError.truncated(
        path: path, offset: UInt64(size), expected: "\(moduleCount) module entries ending at \(hex(modulesEnd))")
    }
    let recordsEnd = Int(recordsOffset) + recordCount * TraceLayout.recordSize
    guard size >= recordsEnd else {
      throw TraceError.truncated(
        path: path, offset: UInt64(size), expected: "\(recordCount) records ending at \(hex(recordsEnd))")
    }

    var modules: [TraceModule] = []
    try forEachChunk(first: Int(moduleTable), count: moduleCount, entrySize: TraceLayout.moduleSize) { bytes, indices in
      for index in indices {
        modules.append(try module(index, at: Int(moduleTable) + index * TraceLayout.moduleSize, in: bytes))
      }
    }

    var records: [FirstCall] = []
    var dataTouches: [DataTouch] = []
    var uncommitted = 0
    var unknown = 0
    try forEachChunk(first: Int(recordsOffset), count: recordCount, entrySize: TraceLayout.recordSize) {
      bytes, indices in
      for index in indices {
        let offset = Int(recordsOffset) + index * TraceLayout.recordSize
        switch try record(index, at: offset, in: bytes, modules: modules, minor: minor) {
        case .committed(let call): records.append(call)
        case .dataPage(let touch): dataTouches.append(touch)
        case .uncommitted: uncommitted += 1
        case .unknownKind: unknown += 1
        }
      }
      // A slot is reserved just before it is written: only threads caught mid-write leave one
      // empty. More than any process has threads is a count the file does not back.
      guard uncommitted <= TraceLimits.uncommittedRecords else {
        throw TraceError.corruptHeader(
          path: path, offset: UInt64(H.recordCount),
          reason:
            "record count \(reserved) claims more than the file holds: more than \(TraceLimits.uncommittedRecords) of its slots were never written"
        )
      }
    }

    var marks: [Mark] = []
    var threads: [ThreadEvents] = []
    var unbufferedEvents: UInt64 = 0
    if let regions {
      unbufferedEvents = head.u64(H.unbufferedEvents)
      try expectCount(unbufferedEvents, H.unbufferedEvents, "unbuffered event count")
      marks = try readMarks(regions)
      threads = try readEvents(
        regions, modules: modules, unbufferedEvents: unbufferedEvents, windowEnd: head.u64(H.windowEnd))
    }

    var header = TraceHeader(
      versionMajor: major, versionMinor: minor, pid: head.u32(H.pid),
      parentPID: forked ? head.u32(H.parentPID) : nil,
      forkRecordIndex: forked ? Int(forkRecordIndex) : nil,
      recordCapacity: Int(recordCapacity), moduleCapacity: moduleCapacity,
      processStartNanoseconds: head.u64(H.processStart),
      processStartResolutionNanoseconds: head.u64(H.processStartResolution),
      processStartSource: startSource,
      traceStartNanoseconds: head.u64(H.traceStart),
      startupEndNanoseconds: startupEnd,
      recorderTime: recorderTime,
      timeLimitNanoseconds: nonzero(head.u64(H.timeLimit)),
      droppedCount: head.u64(H.droppedCount),
      unbufferedEvents: unbufferedEvents,
      isClosed: closed, windowReason: windowReason,
      windowEndNanoseconds: nonzero(head.u64(H.windowEnd)), endNanoseconds: nonzero(head.u64(H.end)),
      minorFaults: metrics ? head.u64(H.minorFaults) : nil, majorFaults: metrics ? head.u64(H.majorFaults) : nil)
    header.isEmulated = flags & TraceLayout.Flag.emulated != 0
    return Trace(
      path: path, header: header, modules: modules, records: records,
      uncommittedRecords: uncommitted, unknownRecords: unknown, marks: marks, threads: threads,
      dataTouches: dataTouches)
  }

  /// Where the version 1.1 marks and event buffers are, when the header has them.
  struct Regions {
    var marksOffset: Int
    var markCapacity: Int
    var markCount: Int
    var eventsOffset: Int
    var threadCapacity: Int
    var threadCount: Int
    var eventCapacity: Int
    var recordsOffset: UInt64
    var bufferSize: Int { Int(TraceLayout.threadBufferSize(events: UInt64(eventCapacity))) }
  }

  func extensionRegions(_ head: Region, minor: UInt16, moduleCapacity: UInt32, recordCapacity: UInt64) throws
    -> Regions?
  {
    typealias H = TraceLayout.Header
    let stored = head.u32(H.extensionChecksum)
    guard minor >= 1, stored != 0 else { return nil }
    let computed = head.withBytes(H.marksOffset..<H.extensionChecksum, TraceLayout.checksum)
    guard stored == computed else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.extensionChecksum),
        reason: "extension checksum \(hex(stored)) does not match its contents (\(hex(computed)))")
    }
    let markCapacity = head.u32(H.markCapacity)
    let threadCapacity = head.u32(H.eventThreadCapacity)
    let eventCapacity = head.u64(H.eventCapacity)
    try expect(markCapacity <= 1 << 16, H.markCapacity, "mark capacity \(markCapacity)")
    try expect(threadCapacity <= 1 << 12, H.eventThreadCapacity, "event thread capacity \(threadCapacity)")
    try expect(eventCapacity <= 1 << 28, H.eventCapacity, "event capacity \(eventCapacity)")
    let marksOffset = head.u64(H.marksOffset)
    let eventsOffset = head.u64(H.eventsOffset)
    let expected = TraceLayout.Placement(
      modules: moduleCapacity, records: recordCapacity, marks: markCapacity, threads: threadCapacity,
      eventsPerThread: eventCapacity)
    try expect(marksOffset == expected.marks, H.marksOffset, "marks offset \(hex(marksOffset))")
    try expect(eventsOffset == expected.events, H.eventsOffset, "events offset \(hex(eventsOffset))")
    return Regions(
      marksOffset: Int(marksOffset), markCapacity: Int(markCapacity),
      markCount: Int(min(head.u32(H.markCount), markCapacity)), eventsOffset: Int(eventsOffset),
      threadCapacity: Int(threadCapacity), threadCount: Int(min(head.u32(H.eventThreadCount), threadCapacity)),
      eventCapacity: Int(eventCapacity), recordsOffset: expected.records)
  }

  func readMarks(_ regions: Regions) throws -> [Mark] {
    typealias F = TraceLayout.MarkField
    let end = regions.marksOffset + regions.markCount * TraceLayout.markSize
    guard size >= end else {
      throw TraceError.truncated(
        path: path, offset: UInt64(size), expected: "\(regions.markCount) marks ending at \(hex(end))")
    }
    let bytes = try source.region(regions.marksOffset..<end)
    var marks: [Mark] = []
    for index in 0..<regions.markCount {
      let base = regions.marksOffset + index * TraceLayout.markSize
      func fail(_ field: Int, _ reason: String) -> TraceError {
        .corruptMark(path: path, index: index, offset: UInt64(base + field), reason: reason)
      }
      let check = bytes.u8(base + F.check)
      if check == 0 { continue }  // reserved, never completed
      let expected = bytes.withBytes(base..<(base + TraceLayout.markSize), TraceLayout.recordCheck)
      guard check == expected else {
        throw fail(F.check, "check byte \(hex(check)) does not match the mark's contents (\(hex(expected)))")
      }
      let length = Int(bytes.u16(base + F.nameLength))
      guard length <= TraceLayout.markNameCapacity else { throw fail(F.nameLength, "name length \(length)") }
      let time = bytes.u64(base + F.time)
      guard time <= TraceLimits.latestTime else { throw fail(F.time, timeReason(time)) }
      marks.append(
        Mark(
          name: String(decoding: bytes.slice((base + F.name)..<(base + F.name + length)), as: UTF8.self),
          timeNanoseconds: time, threadID: bytes.u32(base + F.tid)))
    }
    return marks
  }

  func readEvents(_ regions: Regions, modules: [TraceModule], unbufferedEvents: UInt64, windowEnd: UInt64) throws
    -> [ThreadEvents]
  {
    typealias B = TraceLayout.ThreadBuffer
    var threads: [ThreadEvents] = []
    var firstEvents: [(buffer: Int, offset: Int, time: UInt64)] = []
    var dropped = unbufferedEvents
    for index in 0..<regions.threadCount {
      let base = regions.eventsOffset + index * regions.bufferSize
      func fail(_ offset: Int, _ reason: String) -> TraceError {
        .corruptEvents(path: path, buffer: index, offset: UInt64(offset), reason: reason)
      }
      guard size >= base + TraceLayout.threadBufferHeaderSize else {
        throw TraceError.truncated(path: path, offset: UInt64(size), expected: "event buffer \(index)")
      }
      let header = try source.region(base..<(base + TraceLayout.threadBufferHeaderSize))
      let count = header.u64(base + B.count)
      guard count <= UInt64(regions.eventCapacity) else {
        throw fail(base + B.count, "\(count) events in a buffer of \(regions.eventCapacity)")
      }
      let bufferDropped = header.u64(base + B.dropped)
      let (total, overflow) = dropped.addingReportingOverflow(bufferDropped)
      guard !overflow, total <= TraceLimits.largestCount else {
        throw fail(
          base + B.dropped,
          "\(bufferDropped) dropped events bring the trace's dropped and unbuffered events past \(TraceLimits.largestCount)"
        )
      }
      dropped = total
      let first = base + TraceLayout.threadBufferHeaderSize
      let end = first + Int(count) * TraceLayout.eventSize
      guard size >= end else {
        throw TraceError.truncated(path: path, offset: UInt64(size), expected: "\(count) events ending at \(hex(end))")
      }
      var events: [CallEvent] = []
      var previous: UInt64 = 0
      try forEachChunk(first: first, count: Int(count), entrySize: TraceLayout.eventSize) { bytes, indices in
        for event in indices {
          let offset = first + event * TraceLayout.eventSize
          let time = bytes.u64(offset + TraceLayout.Event.time)
          guard time != 0, time >= previous else {
            throw fail(offset, "event \(event) has time \(time) after \(previous)")
          }
          guard time <= TraceLimits.latestTime else { throw fail(offset, "event \(event): \(timeReason(time))") }
          previous = time
          let word = bytes.u64(offset + TraceLayout.Event.word)
          let pc = word & ~TraceLayout.exitBit
          let module = modules.first { pc >= $0.loadBase && $0.textRange.contains(pc &- $0.loadBase) }
          events.append(
            CallEvent(
              kind: word & TraceLayout.exitBit != 0 ? .exit : .enter, module: module?.index,
              address: module.map { pc - $0.loadBase } ?? pc, timeNanoseconds: time))
        }
      }
      if let time = events.first?.timeNanoseconds { firstEvents.append((index, first, time)) }
      threads.append(ThreadEvents(threadID: header.u32(base + B.tid), events: events, droppedEvents: bufferDropped))
    }
    // Calls still open when the events end last until then; a report adds up such calls
    // over every thread, so their sum is what must stay in range.
    let end = max(windowEnd, threads.compactMap { $0.events.last?.timeNanoseconds }.max() ?? 0)
    var threadTime: UInt64 = 0
    for first in firstEvents {
      threadTime += end - first.time  // both at most 2^62, and the sum is checked at every step
      guard threadTime <= TraceLimits.eventThreadTime else {
        throw TraceError.corruptEvents(
          path: path, buffer: first.buffer, offset: UInt64(first.offset),
          reason:
            "events from \(first.time) to the end of the events at \(end) bring the buffers' thread time past \(TraceLimits.eventThreadTime) ns"
        )
      }
    }
    return threads
  }

  /// Reads `count` entries of `entrySize` bytes from `first` a chunk (about 1 MiB) at a time,
  /// so that memory follows what the entries turn out to hold, not what a header claims: a
  /// hostile count over a sparse file is refused at its first empty chunk, not allocated.
  func forEachChunk(
    first: Int, count: Int, entrySize: Int, _ body: (Region, Range<Int>) throws -> Void
  ) throws {
    let perChunk = max(1, (1 << 20) / entrySize)
    var index = 0
    while index < count {
      let next = index + min(perChunk, count - index)
      try body(try source.region((first + index * entrySize)..<(first + next * entrySize)), index..<next)
      index = next
    }
  }

  func expect(_ condition: Bool, _ offset: Int, _ what: String) throws {
    guard condition else {
      throw TraceError.corruptHeader(path: path, offset: UInt64(offset), reason: "impossible \(what)")
    }
  }

  func expectTime(_ value: UInt64, _ offset: Int) throws {
    guard value <= TraceLimits.latestTime else {
      throw TraceError.corruptHeader(path: path, offset: UInt64(offset), reason: timeReason(value))
    }
  }

  func expectCount(_ value: UInt64, _ offset: Int, _ what: String) throws {
    try expect(value <= TraceLimits.largestCount, offset, "\(what) \(value)")
  }

  func timeReason(_ time: UInt64) -> String {
    "impossible time \(time): later than \(TraceLimits.latestTime) ns, 146 years after boot"
  }

  func nonzero(_ value: UInt64) -> UInt64? { value == 0 ? nil : value }

  func module(_ index: Int, at base: Int, in bytes: Region) throws -> TraceModule {
    typealias M = TraceLayout.Module
    func fail(_ field: Int, _ reason: String) -> TraceError {
      .corruptModule(path: path, index: index, offset: UInt64(base + field), reason: reason)
    }
    let stored = bytes.u32(base + M.checksum)
    if stored == 0 { throw fail(M.checksum, "the entry was never completed") }
    let computed = bytes.withBytes(base..<(base + M.checksum), TraceLayout.checksum)
    guard stored == computed else {
      throw fail(M.checksum, "checksum \(hex(stored)) does not match the entry's contents (\(hex(computed)))")
    }
    let pathLength = Int(bytes.u16(base + M.pathLength))
    guard pathLength <= TraceLayout.pathCapacity else { throw fail(M.pathLength, "path length \(pathLength)") }
    let buildIDLength = Int(bytes.u8(base + M.buildIDLength))
    guard buildIDLength <= TraceLayout.buildIDCapacity else {
      throw fail(M.buildIDLength, "build-id length \(buildIDLength)")
    }
    let textStart = bytes.u64(base + M.textStart)
    let textEnd = bytes.u64(base + M.textEnd)
    guard textStart <= textEnd else {
      throw fail(M.textStart, "text range \(hex(textStart))..<\(hex(textEnd)) is reversed")
    }
    let flags = bytes.u32(base + M.flags)
    let hasTextRSS = flags & TraceLayout.ModuleFlag.textRSS != 0
    let textRSS = bytes.u64(base + M.textRSS)
    guard !hasTextRSS || textRSS <= TraceLimits.largestCount else {
      throw fail(M.textRSS, "impossible resident text size \(textRSS)")
    }
    let pathStart = base + M.path
    // No file's path holds a NUL byte: the kernel's and the loader's cannot, and one would
    // name another file than the trace's when it is opened.
    let pathBytes = bytes.slice(pathStart..<(pathStart + pathLength))
    if let nul = pathBytes.firstIndex(of: 0) {
      let at = nul - pathBytes.startIndex
      throw fail(M.path + at, "path holds a NUL byte at byte \(at)")
    }
    let buildIDStart = base + M.buildID
    return TraceModule(
      index: index,
      path: String(decoding: pathBytes, as: UTF8.self),
      buildID: Array(bytes.slice(buildIDStart..<(buildIDStart + buildIDLength))),
      loadBase: bytes.u64(base + M.loadBase),
      textRange: textStart..<textEnd,
      isMainExecutable: flags & TraceLayout.ModuleFlag.mainExecutable != 0,
      pathTruncated: flags & TraceLayout.ModuleFlag.pathTruncated != 0,
      textResidentBytes: hasTextRSS ? textRSS : nil)
  }

  enum RecordResult {
    case committed(FirstCall)
    case dataPage(DataTouch)
    case uncommitted
    case unknownKind
  }

  func record(_ index: Int, at base: Int, in bytes: Region, modules: [TraceModule], minor: UInt16) throws
    -> RecordResult
  {
    typealias R = TraceLayout.Record
    func fail(_ field: Int, _ reason: String) -> TraceError {
      .corruptRecord(path: path, index: index, offset: UInt64(base + field), reason: reason)
    }
    let check = bytes.u8(base + R.check)
    if check == 0 { return .uncommitted }
    let expected = bytes.withBytes(base..<(base + TraceLayout.recordSize), TraceLayout.recordCheck)
    guard check == expected else {
      throw fail(R.check, "check byte \(hex(check)) does not match the record's contents (\(hex(expected)))")
    }
    let kind = bytes.u8(base + R.kind)
    let phase = Phase(rawValue: kind)
    guard phase != nil || kind == TraceLayout.dataPageKind else {
      if minor > TraceLayout.versionMinor { return .unknownKind }
      throw fail(R.kind, "unknown record kind \(kind)")
    }
    let module = Int(bytes.u16(base + R.module))
    guard module < modules.count else {
      throw fail(R.module, "module index \(module) but the trace has \(modules.count) modules")
    }
    let address = bytes.u64(base + R.address)
    let time = bytes.u64(base + R.time)
    guard time <= TraceLimits.latestTime else { throw fail(R.time, timeReason(time)) }
    guard let phase else {
      // Read-only data lies outside the code: a page inside the text was never protected.
      let size = bytes.u64(base + R.size)
      guard size > 0, size <= TraceLayout.largestDataPage, size & (size - 1) == 0,
        address <= UInt64.max - size
      else {
        throw fail(R.size, "data page size \(size) at \(hex(address)) is no page size")
      }
      let touch = DataTouch(
        module: module, address: address, pageSize: size, timeNanoseconds: time, threadID: bytes.u32(base + R.tid))
      guard !touch.page.overlaps(modules[module].textRange) else {
        throw fail(R.address, "data page of \(hex(address)) lies inside module \(module)'s text")
      }
      return .dataPage(touch)
    }
    guard modules[module].textRange.contains(address) else {
      throw fail(
        R.address,
        "address \(hex(address)) is outside module \(module)'s text \(hex(modules[module].textRange.lowerBound))..<\(hex(modules[module].textRange.upperBound))"
      )
    }
    return .committed(
      FirstCall(
        module: module, address: address, timeNanoseconds: time, threadID: bytes.u32(base + R.tid), phase: phase))
  }
}

extension TraceReader {
  /// Whether the file at `path` begins with a trace's magic number (a cheap test of what a
  /// file is, before removing it as a stale trace).
  public static func startsWithMagic(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: 8), data.count == 8 else { return false }
    let value = data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    return UInt64(littleEndian: value) == TraceLayout.magic
  }
}

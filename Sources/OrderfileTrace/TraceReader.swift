import Foundation
import OrderfileSupport

/// Reads trace files written by the runtime and validates every structure in them.
///
/// A trace is refused when it cannot be what the runtime wrote: a wrong magic
/// number or major version, a header whose checksum fails, a module entry or
/// record that fails its check, or a file shorter than its header promises.
/// A trace whose process died before closing it (crash, SIGKILL, `_exit`) is
/// accepted: its records are read up to the reserved count, and slots that
/// were reserved but never completed are skipped and counted.
public enum TraceReader {
  /// Reads and validates the trace at `path`.
  ///
  /// The file is mapped, not read: a full-mode trace reserves hundreds of MiB of event
  /// buffers that are mostly sparse, and only the pages the parser touches are read.
  public static func read(path: String) throws -> Trace {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    } catch {
      // Reading again through FileReading gives the system's reason with the file's name.
      do {
        _ = try FileReading.bytes(atPath: path)
      } catch {
        throw TraceError.unreadable(path: path, message: error.localizedDescription)
      }
      throw TraceError.unreadable(path: path, message: error.localizedDescription)
    }
    return try data.withUnsafeBytes { raw in
      try Parser(raw: raw, path: path).parse()
    }
  }

  /// Validates and decodes trace bytes; `path` is only used in messages.
  public static func parse(_ bytes: [UInt8], path: String) throws -> Trace {
    try bytes.withUnsafeBytes { raw in
      try Parser(raw: raw, path: path).parse()
    }
  }
}

private struct Parser {
  let raw: UnsafeRawBufferPointer
  let path: String

  func u8(_ offset: Int) -> UInt8 { raw[offset] }
  func u16(_ offset: Int) -> UInt16 { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
  func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
  func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }

  func parse() throws -> Trace {
    typealias H = TraceLayout.Header
    guard raw.count >= H.magicEnd else {
      // Too short for a magic number: a cut-off trace if what is there begins one, else not a trace.
      let magicBytes = withUnsafeBytes(of: TraceLayout.magic.littleEndian) { Array($0) }
      if Array(raw) == Array(magicBytes.prefix(raw.count)) {
        throw TraceError.truncated(
          path: path, offset: UInt64(raw.count), expected: "an \(H.magicEnd)-byte magic number")
      }
      let found = raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      throw TraceError.badMagic(path: path, found: found)
    }
    let magic = u64(H.magic)
    guard magic == TraceLayout.magic else { throw TraceError.badMagic(path: path, found: magic) }
    guard raw.count >= H.versionEnd else {
      throw TraceError.truncated(path: path, offset: UInt64(raw.count), expected: "the format version")
    }
    let major = u16(H.versionMajor)
    let minor = u16(H.versionMinor)
    guard major == TraceLayout.versionMajor else {
      throw TraceError.unsupportedVersion(path: path, major: major, minor: minor)
    }
    guard raw.count >= TraceLayout.headerSize else {
      throw TraceError.truncated(
        path: path, offset: UInt64(raw.count), expected: "a \(TraceLayout.headerSize)-byte header")
    }
    let stored = u32(H.checksum)
    let computed = TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<H.checksum]))
    guard stored == computed else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.checksum),
        reason: "checksum \(hex(stored)) does not match the header's contents (\(hex(computed)))")
    }
    try expect(u32(H.headerSize) == UInt32(TraceLayout.headerSize), H.headerSize, "header size \(u32(H.headerSize))")
    try expect(
      u32(H.moduleEntrySize) == UInt32(TraceLayout.moduleSize), H.moduleEntrySize,
      "module entry size \(u32(H.moduleEntrySize))")
    try expect(u32(H.recordSize) == UInt32(TraceLayout.recordSize), H.recordSize, "record size \(u32(H.recordSize))")

    let moduleCapacity = Int(u32(H.moduleCapacity))
    let recordCapacity = u64(H.recordCapacity)
    let moduleTable = u64(H.moduleTableOffset)
    let recordsOffset = u64(H.recordsOffset)
    try expect(moduleTable == UInt64(TraceLayout.headerSize), H.moduleTableOffset, "module table offset \(hex(moduleTable))")
    let regions = try extensionRegions(
      minor: minor, moduleCapacity: u32(H.moduleCapacity), recordCapacity: recordCapacity)
    let expectedRecords =
      regions?.recordsOffset ?? TraceLayout.Placement(modules: u32(H.moduleCapacity), records: recordCapacity).records
    try expect(
      recordsOffset == expectedRecords, H.recordsOffset,
      "records offset \(hex(recordsOffset)) for \(moduleCapacity) modules")
    try expect(recordCapacity <= 1 << 32, H.recordCapacity, "record capacity \(recordCapacity)")

    let flags = u32(H.flags)
    let closed = flags & TraceLayout.Flag.closed != 0
    let moduleCount = Int(u32(H.moduleCount))
    try expect(moduleCount <= moduleCapacity, H.moduleCount, "\(moduleCount) modules in a table of \(moduleCapacity)")
    let reserved = u64(H.recordCount)
    // A full trace keeps counting reservations past its capacity; those were dropped.
    let recordCount = Int(min(reserved, recordCapacity))
    guard let windowReason = WindowReason(rawValue: u32(H.windowReason)) else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.windowReason), reason: "unknown window reason \(u32(H.windowReason))")
    }

    let modulesEnd = Int(moduleTable) + moduleCount * TraceLayout.moduleSize
    guard raw.count >= modulesEnd else {
      throw TraceError.truncated(
        path: path, offset: UInt64(raw.count), expected: "\(moduleCount) module entries ending at \(hex(modulesEnd))")
    }
    let recordsEnd = Int(recordsOffset) + recordCount * TraceLayout.recordSize
    guard raw.count >= recordsEnd else {
      throw TraceError.truncated(
        path: path, offset: UInt64(raw.count), expected: "\(recordCount) records ending at \(hex(recordsEnd))")
    }

    var modules: [TraceModule] = []
    modules.reserveCapacity(moduleCount)
    for index in 0..<moduleCount {
      modules.append(try module(index, at: Int(moduleTable) + index * TraceLayout.moduleSize))
    }

    var records: [FirstCall] = []
    records.reserveCapacity(recordCount)
    var uncommitted = 0
    var unknown = 0
    for index in 0..<recordCount {
      let offset = Int(recordsOffset) + index * TraceLayout.recordSize
      switch try record(index, at: offset, modules: modules, minor: minor) {
      case .committed(let call): records.append(call)
      case .uncommitted: uncommitted += 1
      case .unknownKind: unknown += 1
      }
    }

    var marks: [Mark] = []
    var threads: [ThreadEvents] = []
    if let regions {
      marks = try readMarks(regions)
      threads = try readEvents(regions, modules: modules)
    }

    let parentPID = u32(H.parentPID)
    let forked = flags & TraceLayout.Flag.forked != 0
    let metrics = flags & TraceLayout.Flag.metrics != 0
    let header = TraceHeader(
      versionMajor: major, versionMinor: minor, pid: u32(H.pid),
      parentPID: forked ? parentPID : nil,
      forkRecordIndex: forked ? Int(clamping: u64(H.forkRecordIndex)) : nil,
      recordCapacity: Int(recordCapacity), moduleCapacity: moduleCapacity,
      processStartNanoseconds: u64(H.processStart),
      processStartResolutionNanoseconds: u64(H.processStartResolution),
      traceStartNanoseconds: u64(H.traceStart),
      timeLimitNanoseconds: nonzero(u64(H.timeLimit)),
      droppedCount: u64(H.droppedCount),
      unbufferedEvents: regions == nil ? 0 : u64(H.unbufferedEvents),
      isClosed: closed, windowReason: windowReason,
      windowEndNanoseconds: nonzero(u64(H.windowEnd)), endNanoseconds: nonzero(u64(H.end)),
      minorFaults: metrics ? u64(H.minorFaults) : nil, majorFaults: metrics ? u64(H.majorFaults) : nil)
    return Trace(
      path: path, header: header, modules: modules, records: records,
      uncommittedRecords: uncommitted, unknownRecords: unknown, marks: marks, threads: threads)
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

  func extensionRegions(minor: UInt16, moduleCapacity: UInt32, recordCapacity: UInt64) throws -> Regions? {
    typealias H = TraceLayout.Header
    let stored = u32(H.extensionChecksum)
    guard minor >= 1, stored != 0 else { return nil }
    let computed = TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[H.marksOffset..<H.extensionChecksum]))
    guard stored == computed else {
      throw TraceError.corruptHeader(
        path: path, offset: UInt64(H.extensionChecksum),
        reason: "extension checksum \(hex(stored)) does not match its contents (\(hex(computed)))")
    }
    let markCapacity = u32(H.markCapacity)
    let threadCapacity = u32(H.eventThreadCapacity)
    let eventCapacity = u64(H.eventCapacity)
    try expect(markCapacity <= 1 << 16, H.markCapacity, "mark capacity \(markCapacity)")
    try expect(threadCapacity <= 1 << 12, H.eventThreadCapacity, "event thread capacity \(threadCapacity)")
    try expect(eventCapacity <= 1 << 28, H.eventCapacity, "event capacity \(eventCapacity)")
    let marksOffset = u64(H.marksOffset)
    let eventsOffset = u64(H.eventsOffset)
    let expected = TraceLayout.Placement(
      modules: moduleCapacity, records: recordCapacity, marks: markCapacity, threads: threadCapacity,
      eventsPerThread: eventCapacity)
    try expect(marksOffset == expected.marks, H.marksOffset, "marks offset \(hex(marksOffset))")
    try expect(eventsOffset == expected.events, H.eventsOffset, "events offset \(hex(eventsOffset))")
    return Regions(
      marksOffset: Int(marksOffset), markCapacity: Int(markCapacity),
      markCount: Int(min(u32(H.markCount), markCapacity)), eventsOffset: Int(eventsOffset),
      threadCapacity: Int(threadCapacity), threadCount: Int(min(u32(H.eventThreadCount), threadCapacity)),
      eventCapacity: Int(eventCapacity), recordsOffset: expected.records)
  }

  func readMarks(_ regions: Regions) throws -> [Mark] {
    typealias F = TraceLayout.MarkField
    let end = regions.marksOffset + regions.markCount * TraceLayout.markSize
    guard raw.count >= end else {
      throw TraceError.truncated(path: path, offset: UInt64(raw.count), expected: "\(regions.markCount) marks ending at \(hex(end))")
    }
    var marks: [Mark] = []
    for index in 0..<regions.markCount {
      let base = regions.marksOffset + index * TraceLayout.markSize
      func fail(_ field: Int, _ reason: String) -> TraceError {
        .corruptMark(path: path, index: index, offset: UInt64(base + field), reason: reason)
      }
      let check = u8(base + F.check)
      if check == 0 { continue }  // reserved, never completed
      let expected = TraceLayout.recordCheck(UnsafeRawBufferPointer(rebasing: raw[base..<(base + TraceLayout.markSize)]))
      guard check == expected else {
        throw fail(F.check, "check byte \(hex(check)) does not match the mark's contents (\(hex(expected)))")
      }
      let length = Int(u16(base + F.nameLength))
      guard length <= TraceLayout.markNameCapacity else { throw fail(F.nameLength, "name length \(length)") }
      marks.append(
        Mark(
          name: String(decoding: raw[(base + F.name)..<(base + F.name + length)], as: UTF8.self),
          timeNanoseconds: u64(base + F.time), threadID: u32(base + F.tid)))
    }
    return marks
  }

  func readEvents(_ regions: Regions, modules: [TraceModule]) throws -> [ThreadEvents] {
    typealias B = TraceLayout.ThreadBuffer
    var threads: [ThreadEvents] = []
    for index in 0..<regions.threadCount {
      let base = regions.eventsOffset + index * regions.bufferSize
      func fail(_ offset: Int, _ reason: String) -> TraceError {
        .corruptEvents(path: path, buffer: index, offset: UInt64(offset), reason: reason)
      }
      guard raw.count >= base + TraceLayout.threadBufferHeaderSize else {
        throw TraceError.truncated(path: path, offset: UInt64(raw.count), expected: "event buffer \(index)")
      }
      let count = u64(base + B.count)
      guard count <= UInt64(regions.eventCapacity) else {
        throw fail(base + B.count, "\(count) events in a buffer of \(regions.eventCapacity)")
      }
      let first = base + TraceLayout.threadBufferHeaderSize
      let end = first + Int(count) * TraceLayout.eventSize
      guard raw.count >= end else {
        throw TraceError.truncated(path: path, offset: UInt64(raw.count), expected: "\(count) events ending at \(hex(end))")
      }
      var events: [CallEvent] = []
      events.reserveCapacity(Int(count))
      var previous: UInt64 = 0
      for event in 0..<Int(count) {
        let offset = first + event * TraceLayout.eventSize
        let time = u64(offset + TraceLayout.Event.time)
        guard time != 0, time >= previous else {
          throw fail(offset, "event \(event) has time \(time) after \(previous)")
        }
        previous = time
        let word = u64(offset + TraceLayout.Event.word)
        let pc = word & ~TraceLayout.exitBit
        let module = modules.first { pc >= $0.loadBase && $0.textRange.contains(pc &- $0.loadBase) }
        events.append(
          CallEvent(
            kind: word & TraceLayout.exitBit != 0 ? .exit : .enter, module: module?.index,
            address: module.map { pc - $0.loadBase } ?? pc, timeNanoseconds: time))
      }
      threads.append(ThreadEvents(threadID: u32(base + B.tid), events: events, droppedEvents: u64(base + B.dropped)))
    }
    return threads
  }

  func expect(_ condition: Bool, _ offset: Int, _ what: String) throws {
    guard condition else {
      throw TraceError.corruptHeader(path: path, offset: UInt64(offset), reason: "impossible \(what)")
    }
  }

  func nonzero(_ value: UInt64) -> UInt64? { value == 0 ? nil : value }

  func module(_ index: Int, at base: Int) throws -> TraceModule {
    typealias M = TraceLayout.Module
    func fail(_ field: Int, _ reason: String) -> TraceError {
      .corruptModule(path: path, index: index, offset: UInt64(base + field), reason: reason)
    }
    let stored = u32(base + M.checksum)
    if stored == 0 { throw fail(M.checksum, "the entry was never completed") }
    let computed = TraceLayout.checksum(UnsafeRawBufferPointer(rebasing: raw[base..<(base + M.checksum)]))
    guard stored == computed else {
      throw fail(M.checksum, "checksum \(hex(stored)) does not match the entry's contents (\(hex(computed)))")
    }
    let pathLength = Int(u16(base + M.pathLength))
    guard pathLength <= TraceLayout.pathCapacity else { throw fail(M.pathLength, "path length \(pathLength)") }
    let buildIDLength = Int(u8(base + M.buildIDLength))
    guard buildIDLength <= TraceLayout.buildIDCapacity else {
      throw fail(M.buildIDLength, "build-id length \(buildIDLength)")
    }
    let textStart = u64(base + M.textStart)
    let textEnd = u64(base + M.textEnd)
    guard textStart <= textEnd else {
      throw fail(M.textStart, "text range \(hex(textStart))..<\(hex(textEnd)) is reversed")
    }
    let flags = u32(base + M.flags)
    let pathStart = base + M.path
    let buildIDStart = base + M.buildID
    return TraceModule(
      index: index,
      path: String(decoding: raw[pathStart..<(pathStart + pathLength)], as: UTF8.self),
      buildID: Array(raw[buildIDStart..<(buildIDStart + buildIDLength)]),
      loadBase: u64(base + M.loadBase),
      textRange: textStart..<textEnd,
      isMainExecutable: flags & TraceLayout.ModuleFlag.mainExecutable != 0,
      pathTruncated: flags & TraceLayout.ModuleFlag.pathTruncated != 0,
      textResidentBytes: flags & TraceLayout.ModuleFlag.textRSS != 0 ? u64(base + M.textRSS) : nil)
  }

  enum RecordResult {
    case committed(FirstCall)
    case uncommitted
    case unknownKind
  }

  func record(_ index: Int, at base: Int, modules: [TraceModule], minor: UInt16) throws -> RecordResult {
    typealias R = TraceLayout.Record
    func fail(_ field: Int, _ reason: String) -> TraceError {
      .corruptRecord(path: path, index: index, offset: UInt64(base + field), reason: reason)
    }
    let check = u8(base + R.check)
    if check == 0 { return .uncommitted }
    let expected = TraceLayout.recordCheck(UnsafeRawBufferPointer(rebasing: raw[base..<(base + TraceLayout.recordSize)]))
    guard check == expected else {
      throw fail(R.check, "check byte \(hex(check)) does not match the record's contents (\(hex(expected)))")
    }
    let kind = u8(base + R.kind)
    guard let phase = Phase(rawValue: kind) else {
      if minor > TraceLayout.versionMinor { return .unknownKind }
      throw fail(R.kind, "unknown record kind \(kind)")
    }
    let module = Int(u16(base + R.module))
    guard module < modules.count else {
      throw fail(R.module, "module index \(module) but the trace has \(modules.count) modules")
    }
    let address = u64(base + R.address)
    guard modules[module].textRange.contains(address) else {
      throw fail(
        R.address,
        "address \(hex(address)) is outside module \(module)'s text \(hex(modules[module].textRange.lowerBound))..<\(hex(modules[module].textRange.upperBound))"
      )
    }
    return .committed(
      FirstCall(
        module: module, address: address, timeNanoseconds: u64(base + R.time),
        threadID: u32(base + R.tid), phase: phase))
  }
}

import Foundation
import Testing
import _OrderfileTestSupport

@testable import OrderfileTrace

/// A small trace with two modules, five records and known values.
func sampleTrace(closed: Bool = true, uncommitted: Int = 0) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 0, pid: 4242, parentPID: nil, forkRecordIndex: nil,
    recordCapacity: 64, moduleCapacity: 4, processStartNanoseconds: 1_000_000,
    processStartResolutionNanoseconds: 10_000_000, traceStartNanoseconds: 1_500_000,
    timeLimitNanoseconds: nil, droppedCount: 0, isClosed: closed,
    windowReason: closed ? .startupComplete : .open,
    windowEndNanoseconds: closed ? 9_000_000 : nil, endNanoseconds: closed ? 9_500_000 : nil,
    minorFaults: closed ? 120 : nil, majorFaults: closed ? 3 : nil)
  let modules = [
    TraceModule(
      index: 0, path: "/usr/bin/app", buildID: [0xde, 0xad, 0xbe, 0xef], loadBase: 0x5555_0000_0000,
      textRange: 0x1000..<0x9000, isMainExecutable: true, textResidentBytes: closed ? 16384 : nil),
    TraceModule(
      index: 1, path: "/usr/lib/libui.so", buildID: [1, 2, 3], loadBase: 0x7fff_0000_0000,
      textRange: 0x2000..<0x4000, isMainExecutable: false),
  ]
  let records = [
    FirstCall(module: 0, address: 0x1100, timeNanoseconds: 1_600_000, threadID: 4242, phase: .launch),
    FirstCall(module: 0, address: 0x8000, timeNanoseconds: 1_700_000, threadID: 4242, phase: .launch),
    FirstCall(module: 1, address: 0x2040, timeNanoseconds: 1_800_000, threadID: 4243, phase: .launch),
    FirstCall(module: 0, address: 0x1200, timeNanoseconds: 2_000_000, threadID: 4243, phase: .launch),
    FirstCall(module: 0, address: 0x3000, timeNanoseconds: 9_100_000, threadID: 4242, phase: .postWindow),
  ]
  return Trace(
    path: "sample.trace", header: header, modules: modules, records: records,
    uncommittedRecords: uncommitted)
}

/// The sample trace in format 1.1, with two marks and two thread buffers, one of them empty.
func fullTrace() -> Trace {
  var trace = sampleTrace()
  trace.header.versionMinor = 1
  trace.marks = [
    Mark(name: "config loaded", timeNanoseconds: 1_650_000, threadID: 4242),
    Mark(name: "first frame", timeNanoseconds: 1_900_000, threadID: 4243),
  ]
  trace.threads = [
    ThreadEvents(
      threadID: 4242,
      events: [
        CallEvent(kind: .enter, module: 0, address: 0x1100, timeNanoseconds: 1_600_000),
        CallEvent(kind: .enter, module: 1, address: 0x2040, timeNanoseconds: 1_610_000),
        CallEvent(kind: .exit, module: 1, address: 0x2040, timeNanoseconds: 1_620_000),
        CallEvent(kind: .exit, module: 0, address: 0x1100, timeNanoseconds: 1_630_000),
      ], droppedEvents: 7),
    ThreadEvents(threadID: 4243, events: [], droppedEvents: 0),
  ]
  return trace
}

@Suite("Trace reader")
struct TraceReaderTests {
  @Test("a trace round-trips through the encoder and the reader")
  func roundTrip() throws {
    let original = sampleTrace()
    let decoded = try TraceReader.parse(TraceEncoder.encode(original), path: "sample.trace")
    #expect(decoded.header == original.header)
    #expect(decoded.modules == original.modules)
    #expect(decoded.records == original.records)
    #expect(decoded.uncommittedRecords == 0)
    #expect(decoded.launchRecords.count == 4)
    #expect(decoded.modules[0].buildIDHex == "deadbeef")
  }

  @Test("a trace cut short by a crash is read up to its reserved count, skipping uncommitted slots")
  func crashedTraceIsAccepted() throws {
    let original = sampleTrace(closed: false, uncommitted: 2)
    let bytes = TraceEncoder.encode(original)
    // Full capacity is kept on disk when the process never closed the trace.
    #expect(bytes.count == 4096 + 4 * 4096 + 64 * 32)
    let decoded = try TraceReader.parse(bytes, path: "crashed.trace")
    #expect(!decoded.header.isClosed)
    #expect(decoded.header.windowReason == .open)
    #expect(decoded.records.count == 5)
    #expect(decoded.uncommittedRecords == 2)
    #expect(decoded.header.minorFaults == nil)
  }

  @Test("a wrong magic number is refused with the file and offset")
  func wrongMagic() throws {
    var bytes = TraceEncoder.encode(sampleTrace())
    bytes[0] = UInt8(ascii: "X")
    #expect {
      try TraceReader.parse(bytes, path: "bad.trace")
    } throws: { error in
      let message = (error as? TraceError)?.errorDescription ?? ""
      return message.hasPrefix("bad.trace: offset 0x0: not an orderfile trace")
    }
  }

  @Test("an unknown major version is refused, naming both versions")
  func wrongVersion() throws {
    var bytes = TraceEncoder.encode(sampleTrace())
    bytes[8] = 2
    #expect(throws: TraceError.unsupportedVersion(path: "v2.trace", major: 2, minor: 0)) {
      try TraceReader.parse(bytes, path: "v2.trace")
    }
    let message = TraceError.unsupportedVersion(path: "v2.trace", major: 2, minor: 0).errorDescription
    #expect(message == "v2.trace: offset 0x8: trace format version 2.0 is not supported (this tool reads 1.x)")
  }

  @Test("every truncation of a closed trace is refused as truncated, never a crash")
  func truncation() throws {
    let bytes = TraceEncoder.encode(sampleTrace())
    // Every length short of the full file: inside the magic, the header, the module table and the records.
    let lengths = Array(0..<64) + Array(stride(from: 64, to: bytes.count, by: 97)) + [bytes.count - 1]
    for length in lengths {
      let cut = Array(bytes.prefix(length))
      do {
        _ = try TraceReader.parse(cut, path: "cut.trace")
        Issue.record("a trace cut to \(length) of \(bytes.count) bytes was accepted")
      } catch let error as TraceError {
        guard case .truncated(let path, let offset, _) = error else {
          Issue.record("cut to \(length): expected a truncation error, got \(error)")
          continue
        }
        #expect(path == "cut.trace")
        #expect(offset == UInt64(length))
      }
    }
  }

  @Test("a flipped bit in any checked byte is refused as corrupt")
  func bitFlips() throws {
    let bytes = TraceEncoder.encode(sampleTrace())
    let recordsOffset = 4096 + 4 * 4096
    // The checksummed header, both module entries' used parts, and every record byte.
    var offsets = Array(0..<108)
    for module in 0..<2 {
      let base = 4096 + module * 4096
      offsets += Array(base..<(base + 140)) + Array((base + 4092)..<(base + 4096))
    }
    offsets += Array(recordsOffset..<bytes.count)
    for offset in offsets {
      for bit in [0, 3, 7] {
        var flipped = bytes
        flipped[offset] ^= UInt8(1 << bit)
        do {
          let trace = try TraceReader.parse(flipped, path: "flip.trace")
          // A flip that clears a record's check byte to zero reads as an uncommitted slot.
          let clearedCheck = offset >= recordsOffset && (offset - recordsOffset) % 32 == 31 && flipped[offset] == 0
          if !clearedCheck || trace.uncommittedRecords != 1 {
            Issue.record("bit \(bit) of byte \(offset) flipped and the trace was accepted")
          }
        } catch let error as TraceError {
          let message = error.errorDescription ?? ""
          #expect(message.hasPrefix("flip.trace: "))
          #expect(message.contains("offset 0x"))
        }
      }
    }
  }

  /// Up to eight random bytes anywhere after the magic, over a thousand seeded inputs: each
  /// is refused with a TraceError naming the file, or read back as it was, except where the
  /// format stores values it cannot check (the header after its checksummed part) or where
  /// a record's check byte became zero (an uncommitted slot).
  @Test("random bytes after a valid magic are refused with a TraceError, or change nothing checked")
  func garbage() throws {
    var generator = SplitMix64(seed: 0x6761_7262_6167_65)
    let valid = TraceEncoder.encode(sampleTrace())
    let original = try TraceReader.parse(valid, path: "garbage.trace")
    let uncheckedHeader = 108..<4096
    let inputs = 1000
    var refused = 0
    for input in 0..<inputs {
      var bytes = valid
      var changed: [Int] = []
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        let index = Int.random(in: 8..<bytes.count, using: &generator)
        bytes[index] = UInt8.random(in: 0...255, using: &generator)
        changed.append(index)
      }
      do {
        let trace = try TraceReader.parse(bytes, path: "garbage.trace")
        let same =
          trace.header == original.header && trace.modules == original.modules && trace.records == original.records
          && trace.unknownRecords == original.unknownRecords && trace.marks == original.marks
          && trace.threads == original.threads
        let explained =
          changed.contains(where: uncheckedHeader.contains) || trace.uncommittedRecords > original.uncommittedRecords
        #expect(
          same || explained, "input \(input): bytes \(changed.sorted()) changed, and the trace was accepted changed")
      } catch let error as TraceError {
        refused += 1
        #expect(error.errorDescription?.hasPrefix("garbage.trace: ") == true, "input \(input): \(error)")
      }
    }
    // Most of the file is the checksummed module table and the records.
    #expect(refused * 4 >= inputs * 3, "only \(refused) of \(inputs) garbled traces were refused")
  }

  @Test("marks and full-mode events (format 1.1) round-trip, with pcs mapped to their modules")
  func marksAndEvents() throws {
    let original = fullTrace()
    let decoded = try TraceReader.parse(TraceEncoder.encode(original), path: "full.trace")
    #expect(decoded.marks == original.marks)
    #expect(decoded.threads == original.threads)
    #expect(decoded.records == original.records)
  }

  @Test("a flipped bit in a mark is refused as a corrupt mark")
  func corruptMark() throws {
    var original = sampleTrace()
    original.marks = [Mark(name: "ready", timeNanoseconds: 5, threadID: 1)]
    var bytes = TraceEncoder.encode(original)
    let markBase = 4096 + 4 * 4096
    bytes[markBase + 1] ^= 0x10
    #expect {
      try TraceReader.parse(bytes, path: "m.trace")
    } throws: { error in
      (error as? TraceError)?.errorDescription?.hasPrefix("m.trace: corrupt mark 0 at offset 0x503f") == true
    }
  }

  @Test("a short file that is not a trace is refused as not a trace, not as truncated")
  func shortNonTrace() throws {
    #expect(throws: TraceError.badMagic(path: "hi.txt", found: 0x6968)) {
      try TraceReader.parse(Array("hi".utf8), path: "hi.txt")
    }
    // An empty file is a trace cut off before its first byte.
    #expect(throws: TraceError.truncated(path: "empty", offset: 0, expected: "an 8-byte magic number")) {
      try TraceReader.parse([], path: "empty")
    }
  }

  @Test("a trace that shrinks after it was opened is an error naming the file, not a fault")
  func shrinkingFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shrinking.trace")
    let bytes = TraceEncoder.encode(sampleTrace())
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let source = try FileSource(path: path)
    #expect(source.size == bytes.count)
    #expect(truncate(path, 4096) == 0)
    #expect(try source.region(0..<4096).bytes == Array(bytes.prefix(4096)))
    #expect(throws: TraceError.shrank(path: path, offset: 4096)) { try source.region(4000..<bytes.count) }
    #expect(
      TraceError.shrank(path: path, offset: 4096).errorDescription
        == "\(path): the file shrank to 0x1000 bytes while it was read: another process is truncating or rewriting it; read it again once that process is done"
    )
  }

  @Test("a path that is not a regular file is refused before it is opened")
  func specialFile() throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.file("fifo.trace")
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: TraceError.unreadable(path: fifo, message: "is a FIFO, not a regular file")) {
      try TraceReader.read(path: fifo)
    }
    #expect(throws: TraceError.unreadable(path: "/dev/null", message: "is a character device, not a regular file")) {
      try TraceReader.read(path: "/dev/null")
    }
  }

  @Test("a missing file is reported by name")
  func missingFile() throws {
    #expect {
      try TraceReader.read(path: "/nonexistent/launch.trace")
    } throws: { error in
      (error as? TraceError)?.errorDescription?.hasPrefix("/nonexistent/launch.trace: cannot read trace") == true
    }
  }
}

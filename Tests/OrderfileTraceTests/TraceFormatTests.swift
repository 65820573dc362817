import Foundation
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

@testable import OrderfileTrace

/// The fixture program that knows the format only through `orderfile_trace_format.h`,
/// built the way a recorder outside the runtime would build it: strict C11, warnings as
/// errors.
enum FormatProgram {
  static let compilers = ["gcc", "clang"]

  static func build(_ compiler: String, in directory: TemporaryDirectory) throws -> String {
    let executable = compiler == "gcc" ? Toolchain.gcc : Toolchain.clang
    let output = directory.file("trace_format-\(compiler)")
    try runChecked(
      executable,
      [
        "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", PackagePaths.traceFormatInclude,
        PackagePaths.fixtures + "/trace_format/trace_format.c", "-o", output,
      ])
    return output
  }

  /// One field as the C compiler lays it out.
  struct Field: Equatable {
    var structure: String
    var name: String
    var offset: Int
    var size: Int
    var qualifiedName: String { structure + "." + name }
  }

  /// Every field of `OFT_FIELDS` and every structure's size, as `program` prints them.
  static func layout(_ program: String) throws -> (fields: [Field], sizes: [String: Int]) {
    let output = try runChecked(program, ["layout"]).standardOutput
    var fields: [Field] = []
    var sizes: [String: Int] = [:]
    for line in output.split(separator: "\n") {
      let words = line.split(separator: " ").map(String.init)
      switch (words.first, words.count) {
      case ("field", 5):
        guard let offset = Int(words[3]), let size = Int(words[4]) else {
          throw TestSupportError("unreadable layout line '\(line)'")
        }
        fields.append(Field(structure: words[1], name: words[2], offset: offset, size: size))
      case ("size", 3):
        guard let size = Int(words[2]) else { throw TestSupportError("unreadable layout line '\(line)'") }
        sizes[words[1]] = size
      default:
        throw TestSupportError("unexpected layout line '\(line)'")
      }
    }
    return (fields, sizes)
  }
}

/// Every offset the Swift side reads or writes, under the name the C header gives the field.
private let swiftOffsets: [String: Int] = {
  typealias H = TraceLayout.Header
  typealias M = TraceLayout.Module
  typealias R = TraceLayout.Record
  typealias K = TraceLayout.MarkField
  typealias B = TraceLayout.ThreadBuffer
  return [
    "oft_header.magic": H.magic, "oft_header.version_major": H.versionMajor,
    "oft_header.version_minor": H.versionMinor, "oft_header.header_size": H.headerSize,
    "oft_header.module_entry_size": H.moduleEntrySize, "oft_header.record_size": H.recordSize,
    "oft_header.module_capacity": H.moduleCapacity, "oft_header.pid": H.pid,
    "oft_header.record_capacity": H.recordCapacity, "oft_header.module_table_offset": H.moduleTableOffset,
    "oft_header.records_offset": H.recordsOffset, "oft_header.process_start_ns": H.processStart,
    "oft_header.process_start_resolution_ns": H.processStartResolution,
    "oft_header.trace_start_ns": H.traceStart, "oft_header.parent_pid": H.parentPID,
    "oft_header.process_start_source": H.processStartSource, "oft_header.startup_end_ns": H.startupEnd,
    "oft_header.recorder_ns": H.recorder, "oft_header.arming_ns": H.arming, "oft_header.children_ns": H.children,
    "oft_header.fork_record_index": H.forkRecordIndex, "oft_header.time_limit_ns": H.timeLimit,
    "oft_header.checksum": H.checksum, "oft_header.record_count": H.recordCount,
    "oft_header.dropped_count": H.droppedCount, "oft_header.module_count": H.moduleCount,
    "oft_header.flags": H.flags, "oft_header.window_reason": H.windowReason,
    "oft_header.window_end_ns": H.windowEnd, "oft_header.end_ns": H.end,
    "oft_header.minor_faults": H.minorFaults, "oft_header.major_faults": H.majorFaults,
    "oft_header.marks_offset": H.marksOffset, "oft_header.events_offset": H.eventsOffset,
    "oft_header.event_capacity": H.eventCapacity, "oft_header.mark_capacity": H.markCapacity,
    "oft_header.event_thread_capacity": H.eventThreadCapacity,
    "oft_header.extension_checksum": H.extensionChecksum, "oft_header.mark_count": H.markCount,
    "oft_header.event_thread_count": H.eventThreadCount, "oft_header.unbuffered_events": H.unbufferedEvents,
    "oft_module.load_base": M.loadBase, "oft_module.text_start": M.textStart, "oft_module.text_end": M.textEnd,
    "oft_module.text_rss_bytes": M.textRSS, "oft_module.flags": M.flags, "oft_module.path_length": M.pathLength,
    "oft_module.build_id_length": M.buildIDLength, "oft_module.build_id": M.buildID, "oft_module.path": M.path,
    "oft_module.checksum": M.checksum,
    "oft_mark.name": K.name, "oft_mark.time_ns": K.time, "oft_mark.tid": K.tid,
    "oft_mark.name_length": K.nameLength, "oft_mark.check": K.check,
    "oft_thread_buffer.tid": B.tid, "oft_thread_buffer.count": B.count, "oft_thread_buffer.dropped": B.dropped,
    "oft_event.time_ns": TraceLayout.Event.time, "oft_event.word": TraceLayout.Event.word,
    "oft_record.address": R.address, "oft_record.time_ns": R.time, "oft_record.size": R.size,
    "oft_record.tid": R.tid,
    "oft_record.module": R.module, "oft_record.kind": R.kind, "oft_record.check": R.check,
  ]
}()

@Suite("Trace format header")
struct TraceFormatTests {
  @Test("the field list covers every byte of every structure, with no gaps", arguments: FormatProgram.compilers)
  func fieldsTileTheStructures(compiler: String) throws {
    let directory = try TemporaryDirectory()
    let (fields, sizes) = try FormatProgram.layout(try FormatProgram.build(compiler, in: directory))
    #expect(
      Set(sizes.keys) == ["oft_header", "oft_module", "oft_mark", "oft_thread_buffer", "oft_event", "oft_record"])
    for (structure, size) in sizes {
      var end = 0
      for field in fields.filter({ $0.structure == structure }) {
        #expect(
          field.offset == end, "\(field.qualifiedName) starts at \(field.offset), the field before ends at \(end)")
        end = field.offset + field.size
      }
      #expect(end == size, "\(structure)'s listed fields end at \(end) of its \(size) bytes")
    }
  }

  @Test("gcc, clang and Swift put every field at the same offset", arguments: FormatProgram.compilers)
  func offsetsAgree(compiler: String) throws {
    let directory = try TemporaryDirectory()
    let (fields, sizes) = try FormatProgram.layout(try FormatProgram.build(compiler, in: directory))
    let named = fields.filter { !$0.name.hasPrefix("reserved") }
    for field in named {
      #expect(
        swiftOffsets[field.qualifiedName] == field.offset,
        "\(field.qualifiedName): \(compiler) puts it at \(field.offset), Swift reads it at \(swiftOffsets[field.qualifiedName].map(String.init) ?? "no offset")"
      )
    }
    #expect(Set(named.map(\.qualifiedName)) == Set(swiftOffsets.keys))
    #expect(sizes["oft_header"] == MemoryLayout<oft_header>.size)
    #expect(sizes["oft_module"] == MemoryLayout<oft_module>.size)
    #expect(sizes["oft_module"] == TraceLayout.moduleSize)
    #expect(sizes["oft_mark"] == TraceLayout.markSize)
    #expect(sizes["oft_thread_buffer"] == TraceLayout.threadBufferHeaderSize)
    #expect(sizes["oft_event"] == TraceLayout.eventSize)
    #expect(sizes["oft_record"] == TraceLayout.recordSize)
    let path = try #require(fields.first { $0.qualifiedName == "oft_module.path" })
    #expect(path.size == TraceLayout.pathCapacity)
    let name = try #require(fields.first { $0.qualifiedName == "oft_mark.name" })
    #expect(name.size == TraceLayout.markNameCapacity)
  }

  @Test("the Swift enums carry the header's window reasons and record kinds")
  func enumValues() {
    #expect(WindowReason.open.rawValue == OFT_WINDOW_OPEN)
    #expect(WindowReason.startupComplete.rawValue == OFT_WINDOW_STARTUP_COMPLETE)
    #expect(WindowReason.timeLimit.rawValue == OFT_WINDOW_TIME_LIMIT)
    #expect(WindowReason.exit.rawValue == OFT_WINDOW_EXIT)
    #expect(UInt32(Phase.launch.rawValue) == OFT_KIND_LAUNCH)
    #expect(UInt32(Phase.postWindow.rawValue) == OFT_KIND_POST_WINDOW)
    #expect(UInt32(TraceLayout.dataPageKind) == OFT_KIND_DATA_PAGE)
  }

  @Test("a trace written in C from the header alone is read with every value", arguments: FormatProgram.compilers)
  func traceWrittenInC(compiler: String) throws {
    let directory = try TemporaryDirectory()
    let program = try FormatProgram.build(compiler, in: directory)
    let path = directory.file("written.trace")
    try runChecked(program, ["write", path])
    let trace = try TraceReader.read(path: path)

    let header = trace.header
    #expect(header.pid == 4321)
    #expect(header.isClosed)
    #expect(header.windowReason == .startupComplete)
    #expect(header.windowEndNanoseconds == 5000)
    #expect(header.endNanoseconds == 6000)
    #expect(header.droppedCount == 5)
    #expect(header.processStartNanoseconds == 1000)
    #expect(header.traceStartNanoseconds == 2000)
    #expect(header.moduleCapacity == 2)
    #expect(header.minorFaults == nil)
    #expect(header.parentPID == nil)
    #expect(
      trace.modules == [
        TraceModule(
          index: 0, path: "/opt/recorded/bin/app", buildID: [0xab, 0xcd, 0xef], loadBase: 0x5555_0000_0000,
          textRange: 0x1000..<0x3000, isMainExecutable: true)
      ])
    #expect(trace.marks == [Mark(name: "ready", timeNanoseconds: 4000, threadID: 4321)])
    #expect(
      trace.records == [
        FirstCall(module: 0, address: 0x1000, timeNanoseconds: 3000, threadID: 4321, phase: .launch),
        FirstCall(module: 0, address: 0x2000, timeNanoseconds: 3100, threadID: 4322, phase: .launch),
        FirstCall(module: 0, address: 0x2ff0, timeNanoseconds: 5500, threadID: 4323, phase: .postWindow),
      ])
    // Written again by the encoder, the same trace is the same bytes.
    #expect(TraceEncoder.encode(trace) == Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  @Test("a trace from the encoder passes the header's own checks in C", arguments: FormatProgram.compilers)
  func encodedTraceCheckedInC(compiler: String) throws {
    let directory = try TemporaryDirectory()
    let program = try FormatProgram.build(compiler, in: directory)
    var trace = sampleTrace(closed: false, uncommitted: 1)
    trace.marks = [Mark(name: "first frame", timeNanoseconds: 1_900_000, threadID: 4243)]
    let path = directory.file("encoded.trace")
    try Data(TraceEncoder.encode(trace)).write(to: URL(fileURLWithPath: path))
    let output = try runChecked(program, ["check", path]).standardOutput
    let expected =
      [
        "header pid 4242 modules 2 records 6", "module 0 /usr/bin/app", "module 1 /usr/lib/libui.so",
        "mark first frame 1900000",
      ]
      + trace.records.map { record in
        "record \(record.module) 0x\(String(record.address, radix: 16)) \(record.timeNanoseconds) \(record.threadID) \(record.phase.rawValue)"
      }
      + ["uncommitted"]
    #expect(output.split(separator: "\n").map(String.init) == expected)
  }
}

import Foundation
import OrderfileSupport
import OrderfileTrace
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

/// A small trace as a process that never closed it would leave it: version 1.0, one module.
private func smallTrace() -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 0, pid: 42, parentPID: nil, forkRecordIndex: nil, recordCapacity: 4,
    moduleCapacity: 1, processStartNanoseconds: 100, processStartResolutionNanoseconds: 1_000,
    traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true, windowReason: .exit,
    windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
  let module = TraceModule(
    index: 0, path: "/usr/bin/app", buildID: [1, 2, 3, 4], loadBase: 0x5555_0000_0000, textRange: 0x1000..<0x9000,
    isMainExecutable: true)
  let records = (0..<4).map {
    FirstCall(
      module: 0, address: 0x1000 + UInt64($0) * 16, timeNanoseconds: 300 + UInt64($0), threadID: 42, phase: .launch)
  }
  return Trace(path: "", header: header, modules: [module], records: records)
}

@Suite("Hostile traces are refused by what the file holds")
struct HostileTraceTests {
  @Test("a header claiming records that fill a sparse 100 GiB file: exit 65 in under a second, no allocation")
  func sparseClaim() throws {
    let work = try TemporaryDirectory("orderfile-hostile")
    let path = work.file("hostile.trace")
    let size: UInt64 = 100 << 30
    var bytes = TraceBytes(smallTrace())
    let claimed = (size - bytes.header.records_offset) / UInt64(OFT_RECORD_SIZE)
    bytes.set(claimed, at: field(\oft_header.record_capacity))
    bytes.set(claimed, at: field(\oft_header.record_count))
    bytes.set(bytes.header.flags & ~OFT_FLAG_CLOSED, at: field(\oft_header.flags))
    bytes.sealHeader()
    try AtomicFile.write(bytes.bytes, to: path)
    #expect(truncate(path, off_t(size)) == 0)

    for command in [["report", path], ["generate", path, "-o", work.file("app.order")]] {
      let started = Date()
      let result = try ProcessRunner.run(PackagePaths.orderfileExecutable, command)
      let seconds = Date().timeIntervalSince(started)
      #expect(result.status == 65, "\(command[0]): \(result.standardError)")
      #expect(
        result.standardError.contains(
          "\(path): corrupt header at offset 0x70: record count \(claimed) claims more than the file holds"))
      #expect(seconds < 1, "\(command[0]) took \(seconds) s")
    }
  }

  @Test("a module path holding a NUL byte is bad data: refused at that byte, exit 65")
  func nulInModulePath() throws {
    let work = try TemporaryDirectory("orderfile-nul-path")
    var bytes = TraceBytes(smallTrace())
    let at = bytes.moduleOffset(0) + field(\oft_module.path) + 4  // "/usr\0bin/app"
    bytes.bytes[at] = 0
    bytes.sealModule(0)
    let path = work.file("nul.trace")
    try AtomicFile.write(bytes.bytes, to: path)
    let result = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", path])
    #expect(result.status == 65, "\(result.standardError)")
    #expect(
      result.standardError.contains("\(path): corrupt module entry 0 at offset 0x\(String(at, radix: 16))"),
      "\(result.standardError)")
    #expect(result.standardError.contains("path holds a NUL byte at byte 4"))
  }

  @Test("a trace a crash left with a few reserved but unwritten slots is still read")
  func fewUncommitted() throws {
    var bytes = TraceBytes(smallTrace())
    // Two slots reserved past the four written, as threads killed mid-write leave them.
    let written = bytes.bytes.count
    bytes.bytes += [UInt8](repeating: 0, count: 2 * Int(OFT_RECORD_SIZE))
    bytes.set(UInt64(6), at: field(\oft_header.record_capacity))
    bytes.set(UInt64(6), at: field(\oft_header.record_count))
    bytes.set(bytes.header.flags & ~OFT_FLAG_CLOSED, at: field(\oft_header.flags))
    bytes.sealHeader()
    #expect(bytes.bytes.count == written + 64)
    let trace = try bytes.parse()
    #expect(trace.records.count == 4)
    #expect(trace.uncommittedRecords == 2)
  }
}

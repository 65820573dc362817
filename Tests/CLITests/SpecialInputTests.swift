import Foundation
import OrderfileSupport
import OrderfileTrace
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the tool under timeout(1), so an input that blocks or never ends fails the test
/// (status 137) instead of hanging the run.
private func boundedOrderfile(_ arguments: [String], seconds: Int = 30) throws -> ProcessResult {
  try ProcessRunner.run("timeout", ["-s", "KILL", String(seconds), PackagePaths.orderfileExecutable] + arguments)
}

/// Inputs that are not regular files, or shrink while they are read, must end in one
/// error line: never a block, a runaway read or a signal.
@Suite("Special files and shrinking traces as inputs")
struct SpecialInputTests {
  @Test("FIFOs and devices as a trace, an orderfile or a binary are refused at once, naming the path and what it is")
  func specialFiles() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let fifo = fixture.directory.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let order = fixture.directory.file("app.order")
    try "main\nalpha\n".write(toFile: order, atomically: true, encoding: .utf8)
    let cases: [(arguments: [String], path: String, kind: String)] = [
      (["report", fifo], fifo, "a FIFO"),
      (["report", "/dev/zero"], "/dev/zero", "a character device"),
      (["report", "/dev/null"], "/dev/null", "a character device"),
      (["generate", fifo], fifo, "a FIFO"),
      (["estimate", "--trace", fixture.trace, "--binary", fifo], fifo, "a FIFO"),
      (
        ["estimate", "--trace", fixture.trace, "--binary", fixture.binary, "--order", "/dev/zero"], "/dev/zero",
        "a character device"
      ),
      (["symbolize", "--binary", fifo], fifo, "a FIFO"),
      (["verify", "--binary", fifo, "--order", order], fifo, "a FIFO"),
      (["verify", "--binary", fixture.binary, "--order", fifo], fifo, "a FIFO"),
      (["diff", "/dev/zero", order], "/dev/zero", "a character device"),
      (["diff", order, fifo], fifo, "a FIFO"),
      (
        ["merge", fixture.trace, "-o", fixture.directory.file("merged.order"), "--previous", "/dev/zero"],
        "/dev/zero", "a character device"
      ),
    ]
    for (arguments, path, kind) in cases {
      let run = try boundedOrderfile(arguments, seconds: 20)
      let lines = run.standardError.split(separator: "\n")
      #expect(run.signal == nil && run.status != 0, "\(arguments): status \(run.status)")
      #expect(lines.count == 1, "\(arguments): \(run.standardError)")
      let line = String(lines.first ?? "")
      #expect(line.hasPrefix("orderfile: error: "), "\(arguments): \(line)")
      #expect(line.contains(path) && line.contains("is \(kind), not a regular file"), "\(arguments): \(line)")
    }
    // generate takes --search-path as one more place to look for the recorded binary: a FIFO
    // there is passed over, not opened in a way that blocks.
    let generate = try boundedOrderfile(
      ["generate", fixture.trace, "--search-path", fifo, "-o", fixture.directory.file("out.order")], seconds: 20)
    #expect(generate.signal == nil && generate.succeeded, "\(generate.standardError)")
  }

  @Test("a trace truncated again and again while report reads it ends in an error or a report, never SIGBUS")
  func concurrentTruncation() throws {
    // Large enough that reading its records takes a while: 300,000 records, 9.6 MB.
    let directory = try TemporaryDirectory("shrinking-trace")
    let path = directory.file("big.trace")
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: 9, parentPID: nil, forkRecordIndex: nil, recordCapacity: 300_000,
      moduleCapacity: 1, processStartNanoseconds: 1_000, processStartResolutionNanoseconds: 10_000_000,
      traceStartNanoseconds: 2_000, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 400_000_000, endNanoseconds: 400_000_000, minorFaults: nil,
      majorFaults: nil)
    let module = TraceModule(
      index: 0, path: directory.file("gone"), buildID: [], loadBase: 0x4000_0000, textRange: 0..<0x1000_0000,
      isMainExecutable: true)
    let records = (0..<300_000).map {
      FirstCall(
        module: 0, address: UInt64($0) * 16, timeNanoseconds: 3_000 + UInt64($0), threadID: 9, phase: .launch)
    }
    let bytes = TraceEncoder.encode(Trace(path: path, header: header, modules: [module], records: records))
    try AtomicFile.write(bytes, to: path)

    // Cut the file back to its header and module table and grow it again, as a runtime
    // starting over at the same path once did, while report reads it.
    let keep = off_t(OFT_HEADER_SIZE + OFT_MODULE_SIZE)
    let fd = open(path, O_RDWR | O_CLOEXEC)
    #expect(fd >= 0)
    defer { close(fd) }
    let stop = Locked(false)
    let truncator = Thread {
      while !stop.withLock({ $0 }) {
        _ = ftruncate(fd, keep)
        usleep(200)
        _ = ftruncate(fd, off_t(bytes.count))
        usleep(200)
      }
    }
    truncator.start()
    defer { stop.withLock { $0 = true } }

    var errors = 0
    for _ in 0..<20 {
      let run = try boundedOrderfile(["report", path, "--json"], seconds: 60)
      #expect(run.signal == nil, "report died of signal \(run.signal ?? 0): \(run.standardError.prefix(300))")
      if run.status != 0 {
        errors += 1
        let lines = run.standardError.split(separator: "\n").filter { !$0.hasPrefix("orderfile: warning: ") }
        #expect(lines.count == 1, "\(run.standardError.prefix(300))")
        #expect(lines.first?.hasPrefix("orderfile: error: \(path): ") == true, "\(run.standardError.prefix(300))")
      }
    }
    // Most runs overlap a truncation: the read must have met it, and said so.
    #expect(errors > 0, "no run met a truncation: the test did not test anything")
  }
}

import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A full file system must never kill the host: the runtime stores into a shared mapping,
/// and a store that needs a block the disk does not have raises SIGBUS.
@Suite("Full disk", .serialized)
struct FullDiskTests {
  @Test(
    "16 threads recording onto an ext2 file system with 0 to 400 KiB left: the host exits 0, the trace reads back",
    .enabled(if: LoopFileSystem.unavailable == nil, "\(LoopFileSystem.unavailable ?? "")"))
  func fullExt2() throws {
    let build = try TemporaryDirectory("full-disk")
    let program = try RuntimeFixture.program("racing_threads.c", compiler: .clang, in: build)
    let disk = try LoopFileSystem(megabytes: 8)
    defer { disk.unmount() }
    let modes: [[String: String]] = [
      [:],
      // Marks that end mid-page and small thread buffers: structures that share pages.
      ["ORDERFILE_MODE": "full", "ORDERFILE_MARKS": "3", "ORDERFILE_EVENTS": "100"],
    ]
    for mode in modes {
      for free in [0, 8, 16, 24, 32, 48, 100, 400, 2000] {
        let trace = disk.file("racing.trace")
        unlink(trace)
        try disk.fill(leaving: free)
        var environment = mode
        environment["ORDERFILE_OUTPUT"] = trace
        let run = try RuntimeFixture.run(program, ["16"], environment: environment, timeLimit: 60)
        let label = "\(mode) with \(free) KiB free"
        #expect(run.signal == nil && run.status == 0, "\(label): status \(run.status)\n\(run.standardError)")
        #expect(RuntimeFixture.addresses(run.standardOutput, labelled: "fn").count == 1200, "\(label)")
        let stderr = run.standardError.split(separator: "\n")
        #expect(stderr.allSatisfy { $0.hasPrefix("orderfile: warning: ") }, "\(label): \(run.standardError)")
        guard FileManager.default.fileExists(atPath: trace) else {
          #expect(stderr.contains { $0.contains("recording disabled") }, "\(label): no trace and no warning")
          continue
        }
        let read = try TraceReader.read(path: trace)
        if stderr.isEmpty {
          // Nothing was refused: every function was recorded.
          #expect(read.records.count >= 1200, "\(label)")
        } else {
          #expect(stderr.contains { $0.contains("No space left on device") }, "\(label): \(run.standardError)")
        }
        if free == 2000 && mode.isEmpty {
          #expect(stderr.isEmpty && read.records.count >= 1200, "\(label): \(run.standardError)")
        }
      }
    }
    withExtendedLifetime(build) {}
  }
}

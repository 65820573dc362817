import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A small ext2 file system on a loop device: ext2 has no fallocate, so the runtime must
/// back its trace some other way, and a full one is easy to make.
struct LoopFileSystem {
  /// Why the test cannot run here, or nil when it can: it needs root and a free loop device.
  static let unavailable: String? = {
    guard geteuid() == 0 else { return "needs root to attach a loop device and mount it" }
    // Decided without starting a program: this runs while the tests are being discovered.
    guard FileManager.default.fileExists(atPath: "/dev/loop-control"), ProcessRunner.resolve("losetup").hasPrefix("/")
    else {
      return "needs loop devices (/dev/loop-control and losetup)"
    }
    guard ProcessRunner.resolve("mkfs.ext2").hasPrefix("/") else { return "needs mkfs.ext2 (e2fsprogs)" }
    return nil
  }()

  let image: TemporaryDirectory
  let mountPoint: TemporaryDirectory
  let device: String

  /// Formats an image of `megabytes` MiB as ext2 and mounts it.
  init(megabytes: Int) throws {
    image = try TemporaryDirectory("ext2-image")
    mountPoint = try TemporaryDirectory("ext2-mount")
    let file = image.file("disk.img")
    #expect(FileManager.default.createFile(atPath: file, contents: nil))
    #expect(truncate(file, off_t(megabytes) << 20) == 0)
    try runChecked("mkfs.ext2", ["-q", "-F", file])
    device = try runChecked("losetup", ["-f", "--show", file]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    do {
      try runChecked("mount", ["-t", "ext2", device, mountPoint.path])
    } catch {
      _ = try? ProcessRunner.run("losetup", ["-d", device])
      throw error
    }
  }

  func file(_ name: String) -> String { mountPoint.file(name) }

  /// Fills the file system up (root's reserved blocks too), then frees `kilobytes` KiB.
  func fill(leaving kilobytes: Int) throws {
    let path = file("fill")
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    #expect(fd >= 0)
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0xAA, count: 1 << 16)
    var size: off_t = 0
    while true {
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written <= 0 { break }
      size += off_t(written)
    }
    #expect(errno == ENOSPC)
    #expect(ftruncate(fd, max(0, size - off_t(kilobytes) * 1024)) == 0)
    #expect(fsync(fd) == 0)
    sync()
  }

  func unmount() {
    _ = try? ProcessRunner.run("umount", [mountPoint.path])
    _ = try? ProcessRunner.run("losetup", ["-d", device])
  }
}

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

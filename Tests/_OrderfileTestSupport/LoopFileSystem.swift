import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A small file system on a loop device: a disk whose size, file system and read-ahead a
/// test chooses (ext2 has no fallocate; 16 KiB of read-ahead reads as a phone's storage does).
public struct LoopFileSystem {
  /// Why the test cannot run here, or nil when it can: it needs root and a free loop device.
  public static let unavailable: String? = {
    guard geteuid() == 0 else { return "needs root to attach a loop device and mount it" }
    // Decided without starting a program: this runs while the tests are being discovered.
    guard FileManager.default.fileExists(atPath: "/dev/loop-control"), ProcessRunner.resolve("losetup").hasPrefix("/")
    else {
      return "needs loop devices (/dev/loop-control and losetup)"
    }
    guard ProcessRunner.resolve("mkfs.ext2").hasPrefix("/") else { return "needs mkfs.ext2 (e2fsprogs)" }
    return nil
  }()

  /// Why a test of majors on a loop device cannot run here: `unavailable`, or no perf.
  public static let unavailableWithPerf: String? = {
    guard unavailable == nil else { return unavailable }
    return ProcessRunner.resolve("perf").hasPrefix("/") ? nil : "needs perf (Debian: linux-perf)"
  }()

  public let image: TemporaryDirectory
  public let mountPoint: TemporaryDirectory
  /// `/dev/loopN`.
  public let device: String

  /// Formats an image of `megabytes` MiB as `type` (`ext2`, `ext4`) and mounts it.
  public init(megabytes: Int, type: String = "ext2") throws {
    image = try TemporaryDirectory("\(type)-image")
    mountPoint = try TemporaryDirectory("\(type)-mount")
    let file = image.file("disk.img")
    guard FileManager.default.createFile(atPath: file, contents: nil), truncate(file, off_t(megabytes) << 20) == 0
    else { throw TestSupportError("cannot make the disk image \(file)") }
    try runChecked("mkfs.\(type)", ["-q", "-F", file])
    device = try runChecked("losetup", ["-f", "--show", file]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    do {
      try runChecked("mount", ["-t", type, device, mountPoint.path])
    } catch {
      _ = try? ProcessRunner.run("losetup", ["-d", device])
      throw error
    }
  }

  public func file(_ name: String) -> String { mountPoint.file(name) }

  /// `/sys/block/loopN/queue/read_ahead_kb`.
  public var readAheadFile: String { "/sys/block/\(PathName.split(device).base)/queue/read_ahead_kb" }

  /// Sets how far the kernel reads ahead on the device.
  public func setReadAhead(kibibytes: Int) throws {
    // sysfs takes a write to the file itself, not a new file put in its place.
    let descriptor = open(readAheadFile, O_WRONLY | O_CLOEXEC)
    defer { if descriptor >= 0 { close(descriptor) } }
    let text = "\(kibibytes)\n"
    guard descriptor >= 0, write(descriptor, text, text.utf8.count) == text.utf8.count else {
      throw TestSupportError("cannot write \(readAheadFile): \(String(cString: strerror(errno)))")
    }
  }

  /// Sectors (512 bytes) read from the device so far (`/sys/block/loopN/stat`, third field).
  public func sectorsRead() throws -> Int {
    let path = "/sys/block/\(PathName.split(device).base)/stat"
    let fields = try String(contentsOfFile: path, encoding: .utf8).split(separator: " ")
    guard fields.count > 2, let sectors = Int(fields[2]) else { throw TestSupportError("cannot read \(path)") }
    return sectors
  }

  /// Fills the file system up (root's reserved blocks too), then frees `kilobytes` KiB.
  public func fill(leaving kilobytes: Int) throws {
    let path = file("fill")
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw TestSupportError("cannot create \(path)") }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0xAA, count: 1 << 16)
    var size: off_t = 0
    while true {
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written <= 0 { break }
      size += off_t(written)
    }
    guard errno == ENOSPC, ftruncate(fd, max(0, size - off_t(kilobytes) * 1024)) == 0, fsync(fd) == 0 else {
      throw TestSupportError("cannot fill \(path) up: \(String(cString: strerror(errno)))")
    }
    sync()
  }

  /// A process that has just ended (perf's, the program's) can keep the file system busy for a
  /// moment: the unmount is asked again for a second, then done lazily, so that no test leaves a
  /// mount behind for the next run's loop devices.
  public func unmount() {
    var unmounted = false
    for _ in 0..<10 where !unmounted {
      unmounted = (try? ProcessRunner.run("umount", [mountPoint.path]))?.succeeded ?? false
      if !unmounted { usleep(100_000) }
    }
    if !unmounted { _ = try? ProcessRunner.run("umount", ["--lazy", mountPoint.path]) }
    _ = try? ProcessRunner.run("losetup", ["-d", device])
  }
}

import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The kernel's cache of file pages: emptying it of one file, and asking which of the file's
/// pages it holds. No root needed: any user who can read a file can do both.
public enum PageCache {
  /// The page the cache holds and `mincore` reports: the system's page.
  public static var pageSize: UInt64 { UInt64(max(sysconf(Int32(_SC_PAGESIZE)), 4096)) }

  /// Writes the file's dirty pages back (`fsync`) and asks the kernel to drop its cached pages
  /// (`posix_fadvise(POSIX_FADV_DONTNEED)`). Pages that a running process maps stay: the
  /// caller reads `residentPages` afterwards to know what could not be dropped.
  ///
  /// A process that has just ended may still be unmapping the file, so its pages can stay
  /// the first time: the drop is asked again, 20 ms apart, for as long as each ask drops
  /// more (a file every process maps, such as libc, stops after one more ask).
  public static func evict(path: String) throws {
    try dropOnce(path: path)
    var left = try residentPages(path: path).count
    for _ in 0..<10 where left > 0 {
      usleep(20_000)
      try dropOnce(path: path)
      let now = try residentPages(path: path).count
      guard now < left else { return }
      left = now
    }
  }

  private static func dropOnce(path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw LayoutError.pageCache(path: path, call: "open", reason: errnoText()) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw LayoutError.pageCache(path: path, call: "fsync", reason: errnoText()) }
    let result = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
    guard result == 0 else {
      throw LayoutError.pageCache(path: path, call: "posix_fadvise", reason: String(cString: strerror(result)))
    }
  }

  /// The pages of the file in the cache now (indices of `pageSize` pages), read with
  /// `mincore` on a fresh shared mapping of the whole file, which maps no page itself.
  public static func residentPages(path: String) throws -> Set<UInt64> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw LayoutError.pageCache(path: path, call: "open", reason: errnoText()) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw LayoutError.pageCache(path: path, call: "fstat", reason: errnoText())
    }
    let size = Int(info.st_size)
    guard size > 0 else { return [] }
    guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else {
      throw LayoutError.pageCache(path: path, call: "mmap", reason: errnoText())
    }
    defer { munmap(mapping, size) }
    let pages = (size + Int(pageSize) - 1) / Int(pageSize)
    var vector = [UInt8](repeating: 0, count: pages)
    guard mincore(mapping, size, &vector) == 0 else {
      throw LayoutError.pageCache(path: path, call: "mincore", reason: errnoText())
    }
    return Set(vector.indices.filter { vector[$0] & 1 != 0 }.map(UInt64.init))
  }

  private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// The block device a file is read from and how far the kernel reads ahead on it: what a
/// cold launch's count of pages read depends on most.
public struct StorageDevice: Codable, Sendable, Equatable {
  /// The device's name in `/sys/block` (`vda`, `loop0`, `nvme0n1`).
  public var name: String
  /// `queue/read_ahead_kb`: on a fault in a file mapping the kernel reads a window this
  /// large around the page (with `read()` it reads up to this much ahead).
  public var readAheadKiB: Int

  public init(name: String, readAheadKiB: Int) {
    self.name = name
    self.readAheadKiB = readAheadKiB
  }

  /// The device holding the file at `path`; nil when it lies on no block device (tmpfs, an
  /// overlay) or sysfs does not say.
  public static func of(path: String) -> StorageDevice? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let device = UInt64(info.st_dev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    let minor = (device & 0xff) | ((device >> 12) & ~0xff)
    let node = "/sys/dev/block/\(major):\(minor)"
    // A partition has no queue of its own: its disk's is one folder up.
    for folder in [node, node + "/.."] {
      guard let text = try? String(contentsOfFile: folder + "/queue/read_ahead_kb", encoding: .utf8),
        let kib = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
      else { continue }
      let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: node)) ?? node
      let name = folder == node ? PathName.base(of: resolved) : PathName.base(of: PathName.directory(of: resolved))
      return StorageDevice(name: name, readAheadKiB: kib)
    }
    return nil
  }
}

#if canImport(Glibc)
  import Glibc
#endif

/// Which file a path names, beyond its spelling.
public enum FileIdentity {
  /// Whether both paths name one file (the same device and inode): another spelling of a
  /// path or a link to it is the same file, a copy is not. False when either cannot be read.
  public static func same(_ first: String, _ second: String) -> Bool {
    var a = stat()
    var b = stat()
    guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino
  }
}

/// A file's identity and version as `stat` gives them: device, inode, size, and the times of
/// its last write and last change. A file rewritten in place, replaced by another, or
/// touched has another stamp; one left alone keeps it.
public struct FileStamp: Hashable, Sendable {
  public var path: String
  public var device: UInt64
  public var inode: UInt64
  public var size: UInt64
  /// `st_mtim` and `st_ctim` in nanoseconds.
  public var modified: UInt64
  public var changed: UInt64

  public init(path: String, device: UInt64, inode: UInt64, size: UInt64, modified: UInt64, changed: UInt64) {
    self.path = path
    self.device = device
    self.inode = inode
    self.size = size
    self.modified = modified
    self.changed = changed
  }

  /// The stamp of the file at `path` (links followed); nil when it cannot be read.
  public init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    func nanoseconds(_ time: timespec) -> UInt64 {
      UInt64(truncatingIfNeeded: time.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: time.tv_nsec)
    }
    self.init(
      path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: UInt64(info.st_size),
      modified: nanoseconds(info.st_mtim), changed: nanoseconds(info.st_ctim))
  }
}

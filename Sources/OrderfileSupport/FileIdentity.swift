#if canImport(Glibc)
  import Glibc
#endif

/// Which file a path names, beyond its spelling: its device and inode. Another spelling of
/// a path or a link to it is the same file, a copy is not.
public struct FileIdentity: Hashable, Sendable {
  public var device: UInt64
  public var inode: UInt64

  /// The identity of the file at `path` (links followed); nil when it cannot be read.
  public init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }

  /// Whether both paths name one file. False when either cannot be read.
  public static func same(_ first: String, _ second: String) -> Bool {
    guard let one = FileIdentity(path: first) else { return false }
    return FileIdentity(path: second) == one
  }
}

/// Something measured of one file, named by that file's path.
public protocol FileNamed {
  var path: String { get }
}

extension Array where Element: FileNamed {
  /// The element that is the file at `path` (the same device and inode), else the first one
  /// of that file name: a measured run names a module as the loader found it, a user as they
  /// built it.
  public func named(_ path: String) -> Element? {
    if let identity = FileIdentity(path: path), let match = first(where: { FileIdentity(path: $0.path) == identity }) {
      return match
    }
    let name = PathName.base(of: path)
    return first { PathName.base(of: $0.path) == name }
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

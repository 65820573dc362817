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

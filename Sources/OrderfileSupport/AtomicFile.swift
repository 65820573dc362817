import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes files whole or not at all.
///
/// The bytes go to a temporary file beside the destination, which is flushed
/// and then renamed over it. A reader never sees half a file, and a failure
/// leaves whatever was there before untouched.
public enum AtomicFile {
  /// Replaces the file at `path` with `bytes`.
  public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    var template = Array(((directory.isEmpty ? "." : directory) + "/.\(base).XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw SupportError.fromErrno("create", path: path) }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var committed = false
    defer {
      if !committed { unlink(temporary) }
    }
    do {
      defer { close(fd) }
      try bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            throw SupportError.fromErrno("write", path: path)
          }
          offset += written
        }
      }
      guard fchmod(fd, mode) == 0 else { throw SupportError.fromErrno("chmod", path: path) }
      guard fsync(fd) == 0 else { throw SupportError.fromErrno("fsync", path: path) }
    }
    guard rename(temporary, path) == 0 else { throw SupportError.fromErrno("rename", path: path) }
    committed = true
  }

  /// Replaces the file at `path` with the UTF-8 bytes of `text`.
  public static func write(_ text: String, to path: String) throws {
    try write(Array(text.utf8), to: path)
  }
}

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
  ///
  /// A destination that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a
  /// pipe) is written in place: renaming over it would replace a device with a file.
  public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
    var existing = stat()
    if stat(path, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
      if (existing.st_mode & S_IFMT) == S_IFDIR {
        throw SupportError.cannotWrite(path: path, call: "write", message: "is a directory")
      }
      let fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw SupportError.writing("open", path: path) }
      defer { close(fd) }
      try writeAll(bytes, to: fd, path: path)
      return
    }
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    var template = Array(((directory.isEmpty ? "." : directory) + "/.\(base).XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw SupportError.writing("create", path: path) }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var committed = false
    defer {
      if !committed { unlink(temporary) }
    }
    do {
      defer { close(fd) }
      try writeAll(bytes, to: fd, path: path)
      guard fchmod(fd, mode) == 0 else { throw SupportError.writing("chmod", path: path) }
      guard fsync(fd) == 0 else { throw SupportError.writing("fsync", path: path) }
    }
    guard rename(temporary, path) == 0 else { throw SupportError.writing("rename", path: path) }
    committed = true
  }

  /// Replaces the file at `path` with the UTF-8 bytes of `text`.
  public static func write(_ text: String, to path: String) throws {
    try write(Array(text.utf8), to: path)
  }

  /// Makes the directory at `path` and any missing parents, like `mkdir -p`.
  public static func createDirectory(atPath path: String) throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw SupportError.cannotWrite(path: path, call: "mkdir", message: "not a directory")
      }
      return
    }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty && parent != path { try createDirectory(atPath: parent) }
    // Another process may have made it meanwhile: that is as good.
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw SupportError.writing("mkdir", path: path) }
  }

  /// Writes every byte, retrying on EINTR and short writes.
  private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
    try bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw SupportError.writing("write", path: path)
        }
        offset += written
      }
    }
  }
}

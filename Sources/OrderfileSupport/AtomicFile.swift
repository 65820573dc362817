import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One file of a set that `AtomicFile.write(_:)` writes together.
public struct OutputFile: Sendable, Equatable {
  public var path: String
  public var bytes: [UInt8]

  public init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
  }

  public init(path: String, text: String) {
    self.init(path: path, bytes: Array(text.utf8))
  }
}

/// Writes files whole or not at all.
///
/// The bytes go to a temporary file beside the destination, which is flushed and then
/// renamed over it. A reader never sees half a file, and a failure leaves whatever was there
/// before untouched. A destination that is a symbolic link is followed: the file it points
/// to is replaced and the link stays. A file that is replaced keeps its mode. Temporaries
/// that a killed run left behind are removed by the next run that writes the same
/// destination (see `StagedFile`).
public enum AtomicFile {
  /// Replaces the file at `path` with `bytes`.
  ///
  /// A destination that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a
  /// pipe) is written in place: renaming over it would replace a device with a file.
  ///
  /// - Parameters:
  ///   - mode: the mode of a new file; a file that exists keeps its own.
  ///   - durable: flush the file to the disk before it replaces the old one; a cache, which
  ///     its reader checks and can always remake, need not wait for the disk.
  public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, durable: Bool = true) throws {
    try write([OutputFile(path: path, bytes: bytes)], mode: mode, durable: durable)
  }

  /// Writes every file of `files`: all of them are written and flushed under temporary
  /// names first, and only then renamed into place one after another, so an error or a
  /// kill while writing leaves every destination as it was.
  public static func write(_ files: [OutputFile], mode: mode_t = 0o644, durable: Bool = true) throws {
    var staged: [StagedFile] = []
    defer { for file in staged { file.discard() } }
    var inPlace: [OutputFile] = []
    for file in files {
      let destination = try StagedFile.resolvingLinks(file.path)
      var existing = stat()
      if stat(destination, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
        if (existing.st_mode & S_IFMT) == S_IFDIR {
          throw SupportError.cannotWrite(path: file.path, call: "write", message: "is a directory")
        }
        inPlace.append(file)
        continue
      }
      staged.append(try StagedFile.stage(file.bytes, for: destination, mode: mode, durable: durable))
    }
    for file in inPlace { try writeInPlace(file) }
    while !staged.isEmpty {
      let file = staged.removeFirst()
      try file.commit()
    }
  }

  private static func writeInPlace(_ file: OutputFile) throws {
    let fd = open(file.path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SupportError.writing("open", path: file.path) }
    defer { close(fd) }
    try writeAll(file.bytes, to: fd, path: file.path)
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
    let parent = PathName.directory(of: path)
    if parent != "." && parent != path { try createDirectory(atPath: parent) }
    // Another process may have made it meanwhile: that is as good.
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw SupportError.writing("mkdir", path: path) }
  }

  /// Writes every byte, retrying on EINTR and short writes.
  static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
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

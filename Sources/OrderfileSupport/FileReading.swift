import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads whole files with errors that name the file.
public enum FileReading {
  /// The bytes of the file at `path`.
  public static func bytes(atPath path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SupportError.reading("open", path: path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SupportError.reading("stat", path: path) }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw SupportError.cannotRead(path: path, call: "read", message: "is a directory")
    }
    var result = [UInt8]()
    result.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw SupportError.reading("read", path: path)
      }
      if count == 0 { break }
      result.append(contentsOf: chunk[0..<count])
    }
    return result
  }

  /// The contents of the file at `path` as UTF-8 text.
  public static func text(atPath path: String) throws -> String {
    String(decoding: try bytes(atPath: path), as: UTF8.self)
  }
}

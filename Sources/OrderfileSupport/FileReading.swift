import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads whole files with errors that name the file.
///
/// Only regular files are read. A FIFO would block `open()` until a writer comes (forever,
/// in practice), `/dev/zero` never ends, and `/dev/null` reads as an empty file that hides a
/// mistaken path; each is refused with one line that says what the path is, before it is
/// opened in a way that could block.
public enum FileReading {
  /// The most bytes `bytes(atPath:)` and `text(atPath:)` read unless told otherwise: every
  /// file the tool reads whole is an orderfile or another text a tool wrote, and none of
  /// those comes near this.
  public static let defaultByteLimit = 64 << 20
  /// The most lines `text(atPath:)` accepts unless told otherwise.
  public static let defaultLineLimit = 10_000_000

  /// What the file type bits of `mode` name, when they are not a regular file's.
  public static func nonRegularKind(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "a special file"
    }
  }

  /// Opens the regular file at `path` for reading; returns its descriptor (close-on-exec,
  /// owned by the caller) and its size at the time it was opened.
  ///
  /// The path is checked with `stat` first, so nothing that is not a regular file is ever
  /// opened, and the open itself is non-blocking and checked again with `fstat`, in case
  /// the path changed in between.
  public static func openRegularFile(atPath path: String) throws -> (descriptor: Int32, size: Int) {
    var info = stat()
    guard stat(path, &info) == 0 else { throw SupportError.reading("open", path: path) }
    try refuseNonRegular(info.st_mode, path: path)
    var descriptor: Int32
    repeat {
      descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    } while descriptor < 0 && errno == EINTR
    guard descriptor >= 0 else { throw SupportError.reading("open", path: path) }
    guard fstat(descriptor, &info) == 0 else {
      let error = SupportError.reading("stat", path: path)
      close(descriptor)
      throw error
    }
    do {
      try refuseNonRegular(info.st_mode, path: path)
    } catch {
      close(descriptor)
      throw error
    }
    return (descriptor, Int(info.st_size))
  }

  /// A directory is an input that cannot be read (exit 66, as before); any other file that
  /// is not a regular one is refused for what it is.
  private static func refuseNonRegular(_ mode: mode_t, path: String) throws {
    guard let kind = nonRegularKind(mode) else { return }
    if mode & S_IFMT == S_IFDIR { throw SupportError.cannotRead(path: path, call: "read", message: "is a directory") }
    throw SupportError.notRegularFile(path: path, kind: kind)
  }

  /// Reads the open file `descriptor` (named `path` in errors) to its end in 64 KiB chunks,
  /// handing each to `body` in order; `body` returns false to stop early. Returns whether
  /// the end was reached. An interrupted read is retried; a failed one is an error.
  @discardableResult
  public static func readChunks(
    of descriptor: Int32, path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool
  ) throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw SupportError.reading("read", path: path)
      }
      if count == 0 { return true }
      let going = try chunk.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
      if !going { return false }
    }
  }

  /// The bytes of the regular file at `path`; more than `limit` bytes is an error.
  public static func bytes(atPath path: String, limit: Int = defaultByteLimit) throws -> [UInt8] {
    let (fd, size) = try openRegularFile(atPath: path)
    defer { close(fd) }
    if size > limit { throw SupportError.tooLarge(path: path, limit: describe(bytes: limit)) }
    var result = [UInt8]()
    result.reserveCapacity(size)
    try readChunks(of: fd, path: path) { chunk in
      // A file that grows while it is read is held to the limit as well.
      guard result.count + chunk.count <= limit else {
        throw SupportError.tooLarge(path: path, limit: describe(bytes: limit))
      }
      result.append(contentsOf: chunk)
      return true
    }
    return result
  }

  /// The contents of the regular file at `path` as UTF-8 text; more than `limit` bytes or
  /// `lineLimit` lines, or bytes that are not UTF-8, is an error.
  ///
  /// Invalid bytes are refused rather than replaced: replaced, two names that differ only
  /// in them would read as the same name.
  public static func text(
    atPath path: String, limit: Int = defaultByteLimit, lineLimit: Int = defaultLineLimit
  ) throws -> String {
    let contents = try bytes(atPath: path, limit: limit)
    // A last line without a newline counts too.
    var lines = contents.last.map { $0 == UInt8(ascii: "\n") ? 0 : 1 } ?? 0
    for byte in contents where byte == UInt8(ascii: "\n") { lines += 1 }
    if lines > lineLimit { throw SupportError.tooLarge(path: path, limit: "\(lineLimit) lines") }
    guard let text = String(validating: contents, as: UTF8.self) else {
      throw invalidUTF8(contents, path: path)
    }
    return text
  }

  /// The error for `contents`, which is not valid UTF-8: where its first bad byte is.
  private static func invalidUTF8(_ contents: [UInt8], path: String) -> SupportError {
    var lineStart = 0
    var line = 1
    for (index, byte) in contents.enumerated() where byte == UInt8(ascii: "\n") {
      if String(validating: contents[lineStart..<index], as: UTF8.self) == nil { break }
      lineStart = index + 1
      line += 1
    }
    let rest = contents[lineStart...].prefix { $0 != UInt8(ascii: "\n") }
    // The longest valid prefix of the line ends where decoding first fails.
    var valid = 0
    var iterator = rest.makeIterator()
    var decoder = UTF8()
    decoding: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): valid += UTF8.width(scalar)
      case .emptyInput, .error: break decoding
      }
    }
    let offset = rest.startIndex + valid
    let byte = offset < rest.endIndex ? contents[offset] : 0
    return .invalidUTF8(path: path, line: line, column: valid + 1, byte: byte)
  }

  private static func describe(bytes: Int) -> String {
    bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file's new contents, written and flushed under a temporary name beside its destination
/// and not yet renamed over it.
///
/// The temporary is named `.<name>.XXXXXX` (six letters or digits from `mkstemp`) and held
/// open with an exclusive `flock` until it is renamed or removed. A process that dies leaves
/// its temporary unlocked, which is how the next run that writes the same destination tells
/// a stale temporary from one that is being written (see `removeStale(besides:)`).
struct StagedFile {
  /// The file the contents replace, symbolic links followed.
  let destination: String
  let temporary: String
  private let descriptor: Int32

  /// Writes `bytes` to a new temporary beside `destination`, with the mode of the file it
  /// replaces (or `mode` for a new file), and flushes it to the disk when `durable`.
  static func stage(_ bytes: [UInt8], for destination: String, mode: mode_t, durable: Bool = true) throws -> StagedFile
  {
    let (fd, temporary) = try makeTemporary(for: destination, create: createFile)
    let staged = StagedFile(destination: destination, temporary: temporary, descriptor: fd)
    do {
      var existing = stat()
      let keptMode = stat(destination, &existing) == 0 ? existing.st_mode & 0o7777 : mode
      try AtomicFile.writeAll(bytes, to: fd, path: destination)
      guard fchmod(fd, keptMode) == 0 else { throw SupportError.writing("chmod", path: destination) }
      guard !durable || fsync(fd) == 0 else { throw SupportError.writing("fsync", path: destination) }
      return staged
    } catch {
      staged.discard()
      throw error
    }
  }

  /// Renames the temporary over the destination and lets go of it.
  func commit() throws {
    defer { close(descriptor) }
    guard rename(temporary, destination) == 0 else {
      let error = SupportError.writing("rename", path: destination)
      unlink(temporary)
      throw error
    }
  }

  /// Removes the temporary; the destination stays as it was.
  func discard() {
    unlink(temporary)
    close(descriptor)
  }

  /// `mkstemp`, with the descriptor close-on-exec: a program another thread starts meanwhile
  /// must not inherit a writable descriptor of the file, or running the file (a script, a
  /// relinked binary) fails with ETXTBSY until that program ends.
  static func createFile(_ template: UnsafeMutablePointer<CChar>) -> Int32 {
    let fd = mkstemp(template)
    if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return fd
  }

  /// Creates a locked temporary (a file with `createFile`, a directory with `mkdtemp` and
  /// `open`) named `.<name>.XXXXXX` beside `destination`; removes stale ones of that name
  /// first.
  static func makeTemporary(
    for destination: String, create: (UnsafeMutablePointer<CChar>) -> Int32
  ) throws -> (descriptor: Int32, path: String) {
    removeStale(besides: destination)
    let (directory, base) = PathName.split(destination)
    var template = Array((directory + "/" + prefix(base) + "XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { create($0.baseAddress!) }
    guard fd >= 0 else { throw SupportError.writing("create", path: destination) }
    let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard flock(fd, LOCK_EX) == 0 else {
      let error = SupportError.writing("flock", path: destination)
      close(fd)
      unlink(path)
      rmdir(path)
      throw error
    }
    return (fd, path)
  }

  /// How old an empty unlocked temporary must be before it counts as stale: it is created
  /// a moment before it is locked, and must not be taken for a dead run's in that moment.
  /// One that holds anything was written after its lock, so unlocked it is stale at once.
  static let staleAge: time_t = 5

  /// Removes the temporaries of earlier runs that died before renaming them into
  /// `destination`: entries named `.<name>.XXXXXX` beside it that no process holds locked
  /// and that are older than `staleAge`. A stale temporary directory (of
  /// `AtomicFile.replaceDirectory`) loses the regular files in it and then itself; nothing
  /// else is touched.
  static func removeStale(besides destination: String) {
    let (directory, base) = PathName.split(destination)
    guard let stream = opendir(directory) else { return }
    defer { closedir(stream) }
    let wanted = prefix(base)
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard name.hasPrefix(wanted), isTemporarySuffix(name.dropFirst(wanted.count)) else { continue }
      removeIfStale(directory + "/" + name)
    }
  }

  private static func removeIfStale(_ path: String) {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var info = stat()
    guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_uid == geteuid(),
      time(nil) - info.st_mtim.tv_sec >= staleAge || holdsAnything(path, info)
    else { return }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      unlink(path)
    case S_IFDIR:
      for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
        var entry = stat()
        if lstat(path + "/" + name, &entry) == 0, entry.st_mode & S_IFMT == S_IFREG { unlink(path + "/" + name) }
      }
      rmdir(path)
    default:
      break
    }
  }

  /// A regular file with bytes in it, or a directory with entries.
  private static func holdsAnything(_ path: String, _ info: stat) -> Bool {
    switch info.st_mode & S_IFMT {
    case S_IFREG: return info.st_size > 0
    case S_IFDIR: return !((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).isEmpty
    default: return false
    }
  }

  /// `mkstemp`'s six letters and digits.
  private static func isTemporarySuffix(_ suffix: Substring) -> Bool {
    suffix.utf8.count == 6
      && suffix.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      }
  }

  private static func prefix(_ base: String) -> String { "." + base + "." }

  /// `path` with every symbolic link in its last component followed, so that writing
  /// replaces the file a link points to and keeps the link. A dangling link gives the path
  /// of the file to create.
  static func resolvingLinks(_ path: String) throws -> String {
    var current = path
    // As many as the kernel follows (MAXSYMLINKS) before it says ELOOP.
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count >= 0 else { throw SupportError.writing("readlink", path: path) }
      let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = target.hasPrefix("/") ? target : PathName.directory(of: current) + "/" + target
    }
    throw SupportError.cannotWrite(path: path, call: "open", message: "too many levels of symbolic links")
  }
}

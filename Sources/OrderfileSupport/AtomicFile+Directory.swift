import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension AtomicFile {
  /// Writes `files` (their paths are names inside `directory`) as one set: a reader sees
  /// the old set or the new one, never a mix.
  ///
  /// The files are written into a new directory beside `directory`, which then takes its
  /// place: renamed to it when it does not exist, exchanged with it (`renameat2` with
  /// `RENAME_EXCHANGE`) when it holds nothing but regular files of the names being written,
  /// as a directory of earlier orderfiles does. A directory that holds anything else (the
  /// user's own files) is not swapped, since that would move those files: every file is
  /// then written under a temporary name in it first and all are renamed in afterwards
  /// (see `write(_:mode:)`), and nothing else in it is touched.
  ///
  /// - Parameter mode: the mode of each new file.
  public static func write(_ files: [OutputFile], intoDirectory path: String, mode: mode_t = 0o644) throws {
    let directory = try StagedFile.resolvingLinks(path)
    var info = stat()
    if stat(directory, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw SupportError.cannotWrite(path: path, call: "mkdir", message: "not a directory")
      }
      if info.st_uid == geteuid(), holdsOnlyRegularFiles(named: Set(files.map(\.path)), directory),
        try swap(files, into: directory, mode: mode, directoryMode: info.st_mode & 0o7777, exchange: true)
      {
        return
      }
    } else {
      guard errno == ENOENT else { throw SupportError.writing("stat", path: path) }
      try createDirectory(atPath: PathName.directory(of: directory))
      if try swap(files, into: directory, mode: mode, directoryMode: 0o755, exchange: false) { return }
    }
    try createDirectory(atPath: directory)
    try write(files.map { OutputFile(path: directory + "/" + $0.path, bytes: $0.bytes) }, mode: mode)
  }

  private static func holdsOnlyRegularFiles(named names: Set<String>, _ directory: String) -> Bool {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
    return entries.allSatisfy { name in
      var info = stat()
      return names.contains(name) && lstat(directory + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
  }

  /// Writes `files` into a new directory beside `directory` and puts it in its place;
  /// false when that cannot be done here (no staging directory can be made beside it, the
  /// directory appeared meanwhile, or the file system cannot exchange), so the caller
  /// writes the files into the directory as a set instead.
  private static func swap(
    _ files: [OutputFile], into directory: String, mode: mode_t, directoryMode: mode_t, exchange: Bool
  ) throws -> Bool {
    // A parent the user may not write (or a read-only one) still lets the files be written
    // into the directory itself.
    guard
      let made = try? StagedFile.makeTemporary(
        for: directory, create: { mkdtemp($0) == nil ? -1 : open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
    else { return false }
    let (fd, staging) = made
    var swapped = false
    defer {
      close(fd)
      if !swapped { removeWritten(files, from: staging) }
    }
    for file in files {
      let path = staging + "/" + file.path
      let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
      guard out >= 0 else { throw SupportError.writing("create", path: directory + "/" + file.path) }
      defer { close(out) }
      try writeAll(file.bytes, to: out, path: directory + "/" + file.path)
      guard fchmod(out, mode) == 0, fsync(out) == 0 else {
        throw SupportError.writing("fsync", path: directory + "/" + file.path)
      }
    }
    guard fchmod(fd, directoryMode) == 0, fsync(fd) == 0 else { throw SupportError.writing("fsync", path: directory) }

    guard exchange else {
      if rename(staging, directory) == 0 {
        swapped = true
        return true
      }
      if errno == EEXIST || errno == ENOTEMPTY { return false }
      throw SupportError.writing("rename", path: directory)
    }
    // The previous directory is held locked too, as it will sit under the staging name
    // until it is emptied: no other run may take it for a dead run's meanwhile.
    let previous = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { if previous >= 0 { close(previous) } }
    guard previous >= 0, flock(previous, LOCK_EX) == 0 else { return false }
    guard renameExchange(staging, directory) == 0 else {
      // A file system that cannot exchange, or a directory that is a mount point.
      if [EINVAL, ENOSYS, EOPNOTSUPP, EBUSY, EXDEV].contains(errno) { return false }
      throw SupportError.writing("rename", path: directory)
    }
    swapped = true
    // The staging name now holds the previous directory. Its files are the ones just
    // replaced; anything that appeared in it after it was looked at moves into the new one.
    for name in (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? [] {
      if files.contains(where: { $0.path == name }) {
        unlink(staging + "/" + name)
      } else {
        rename(staging + "/" + name, directory + "/" + name)
      }
    }
    rmdir(staging)
    return true
  }

  /// Removes the files of `files` from a staging directory that did not take the place of
  /// the destination, and the directory itself if that leaves it empty.
  private static func removeWritten(_ files: [OutputFile], from staging: String) {
    for file in files { unlink(staging + "/" + file.path) }
    rmdir(staging)
  }

  /// `renameat2(from, to, RENAME_EXCHANGE)`: glibc declares it only under `_GNU_SOURCE`,
  /// which Swift's Glibc module does not define, so it is looked up at run time.
  private static func renameExchange(_ from: String, _ to: String) -> Int32 {
    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    guard let renameAt2 = libcFunction("renameat2", as: RenameAt2.self) else {
      errno = ENOSYS
      return -1
    }
    let renameExchange: UInt32 = 1 << 1  // RENAME_EXCHANGE in <linux/fs.h>
    return renameAt2(AT_FDCWD, from, AT_FDCWD, to, renameExchange)
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A temporary file beside its destination for another program to write (llvm-bolt's
/// `-o`), renamed over the destination once that program has finished.
///
/// It is named and locked as `StagedFile` names and locks its temporaries, so a run killed
/// before the rename leaves a temporary that the next run writing the same destination
/// removes. Its paths are split with `PathName`, never with Foundation's path methods,
/// which trap on one-letter names such as `t`.
public struct ReservedFile {
  /// The file the contents replace, symbolic links followed.
  public let destination: String
  /// The temporary the other program writes.
  public let path: String
  private let descriptor: Int32

  /// Creates an empty temporary beside `destination` (which need not exist yet).
  public static func beside(_ destination: String) throws -> ReservedFile {
    let resolved = try StagedFile.resolvingLinks(destination)
    let (writable, path) = try StagedFile.makeTemporary(for: resolved, create: StagedFile.createFile)
    // The lock moves to a read-only descriptor that children do not inherit: a writable
    // one anywhere would make running the file fail with ETXTBSY.
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    close(writable)
    guard fd >= 0, flock(fd, LOCK_EX) == 0 else {
      let error = SupportError.writing("open", path: path)
      if fd >= 0 { close(fd) }
      unlink(path)
      throw error
    }
    return ReservedFile(destination: resolved, path: path, descriptor: fd)
  }

  /// Gives what the other program wrote `mode`, flushes it and renames it over the
  /// destination. The program may have replaced the temporary rather than written into
  /// it, so it is opened again by name.
  public func commit(mode: mode_t) throws {
    defer { close(descriptor) }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SupportError.writing("open", path: path) }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0 else { throw SupportError.writing("chmod", path: destination) }
    guard fsync(fd) == 0 else { throw SupportError.writing("fsync", path: destination) }
    guard rename(path, destination) == 0 else {
      let error = SupportError.writing("rename", path: destination)
      unlink(path)
      throw error
    }
  }

  /// Gives the temporary `mode` without renaming it: a copy that runs in the
  /// destination's place (beside it, so `$ORIGIN` and `/proc/self/exe` find the same
  /// neighbours) and is then discarded.
  public func setMode(_ mode: mode_t) throws {
    guard chmod(path, mode) == 0 else { throw SupportError.writing("chmod", path: path) }
  }

  /// Removes the temporary; the destination stays as it was.
  public func discard() {
    unlink(path)
    close(descriptor)
  }
}

/// A private directory beside a destination for the intermediate files of a step that
/// ends in writing it, named and locked as `StagedFile` names its temporaries, so that a
/// killed run's directory is removed by the next.
public struct ScratchDirectory {
  public let path: String
  private let descriptor: Int32

  /// Creates the directory beside `destination`.
  public static func beside(_ destination: String) throws -> ScratchDirectory {
    let resolved = try StagedFile.resolvingLinks(destination)
    let (fd, path) = try StagedFile.makeTemporary(for: resolved) { template in
      mkdtemp(template) == nil ? -1 : open(template, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }
    return ScratchDirectory(path: path, descriptor: fd)
  }

  /// Creates a private directory in the system's temporary folder, named after `prefix`,
  /// for a step with no destination of its own (a measured run's output, a loader's path).
  public static func temporary(prefix: String) throws -> ScratchDirectory {
    let folder = NSTemporaryDirectory()
    let pattern = (folder.hasSuffix("/") ? folder : folder + "/") + prefix + ".XXXXXX"
    var template = Array(pattern.utf8CString)
    guard mkdtemp(&template) != nil else { throw SupportError.writing("mkdtemp", path: pattern) }
    let path = String(cString: template)
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else {
      let error = SupportError.writing("open", path: path)
      rmdir(path)
      throw error
    }
    return ScratchDirectory(path: path, descriptor: fd)
  }

  /// The path of `name` inside the directory.
  public func file(_ name: String) -> String { path + "/" + name }

  /// Removes the directory and everything in it.
  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
    close(descriptor)
  }
}

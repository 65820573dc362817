import Foundation

/// How a recording without a rebuild runs the program (`record --recorder`).
public enum NoRebuildMethod: String, Sendable, CaseIterable {
  /// In-process for a dynamically linked program that may be preloaded, else the tracer.
  case automatic = "auto"
  /// A preloaded library plants the traps and handles them inside the program (`InProcessRecorder`).
  case inProcess = "in-process"
  /// The ptrace tracer (`TracerRecorder`).
  case tracer

  /// The method a recording of the executable at `path` uses, and why the tracer when
  /// `automatic` had to fall back to it. Throws when `inProcess` was asked for a program
  /// that cannot be recorded that way.
  public func resolve(for path: String, library: String?) throws -> (method: NoRebuildMethod, fallback: String?) {
    guard self != .tracer else { return (.tracer, nil) }
    guard let obstacle = Self.inProcessObstacle(for: path, library: library) else { return (.inProcess, nil) }
    if self == .inProcess { throw RecordingError.inProcessImpossible(reason: obstacle) }
    return (.tracer, obstacle + "; recorded with the tracer")
  }

  /// Why the executable at `path` cannot be recorded in-process with `library` (nil: none
  /// installed), or nil when it can.
  static func inProcessObstacle(for path: String, library: String?) -> String? {
    if library == nil {
      return "the in-process recorder (\(InProcessRecorder.libraryName)) is not installed beside the runtime"
    } else if let status = Self.privilege(path) {
      return "\(path) is \(status): the loader ignores LD_PRELOAD for it, so it cannot be recorded in-process"
    } else if !Self.isDynamicallyLinked(path) {
      return "\(path) is statically linked: nothing can be preloaded into it"
    }
    return nil
  }

  /// "setuid" or "setgid" for a program that gains privileges when it runs, as this user.
  static func privilege(_ path: String) -> String? {
    var status = stat()
    guard geteuid() != 0, stat(path, &status) == 0 else { return nil }
    if status.st_mode & S_ISUID != 0 && status.st_uid != geteuid() { return "setuid" }
    if status.st_mode & S_ISGID != 0 && status.st_gid != getegid() { return "setgid" }
    return nil
  }

  /// Whether the ELF file at `path` names a dynamic loader (PT_INTERP). A file that is not a
  /// 64-bit little-endian ELF file counts as dynamic: the loader then says what is wrong.
  static func isDynamicallyLinked(_ path: String) -> Bool {
    ProgramInterpreter(path) != .none
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// Chooses the recorder of a request and hands the request to it, whole: the runtime of an
/// instrumented build (`RuntimeRecorder`), or the release binary from inside
/// (`InProcessRecorder`, through the preloaded library) or under the ptrace tracer
/// (`TracerRecorder`), as the request asks or the program allows. It records nothing itself.
///
/// Under an emulator only a recording from inside the program can work: ptrace sees the
/// emulator, not the program. That rule is checked here, once, before anything runs.
public struct RecorderChooser: Recorder {
  /// `libOrderfileInProcess.so` for the program whose executable is at the path given (the
  /// one built for its machine); nil: none is looked for. A missing file counts as none
  /// installed. Asked only for a recording without a rebuild.
  public var inProcessLibrary: (String) throws -> String?
  /// The tracer's `passesTerminationSignals`; the in-process recorder always passes them on.
  public var passesTerminationSignals: Bool

  public init(
    inProcessLibrary: @escaping (String) throws -> String? = { _ in nil }, passesTerminationSignals: Bool = false
  ) {
    self.inProcessLibrary = inProcessLibrary
    self.passesTerminationSignals = passesTerminationSignals
  }

  /// The mode to record in: the one asked for, else the program's.
  public func mode(for request: RecordingRequest) throws -> RecordingMode {
    if let mode = request.mode { return mode }
    let automatic = try RecordingMode.automatic(for: request.program)
    guard !request.noRebuildOptions.isEmpty else { return automatic }
    // An instrumented build is recorded with its runtime unless asked otherwise: options
    // of the other mode must not switch modes behind the user's back. (A name that is no
    // executable is left to the breakpoint recorders, whose error says so.)
    if automatic == .instrumented && FileManager.default.isExecutableFile(atPath: request.executable) {
      throw RecordingError.noRebuildOptionsForInstrumented(program: request.program, options: request.noRebuildOptions)
    }
    return .noRebuild
  }

  /// The recorder for `request`, and the note that says why the tracer when `automatic` had
  /// to fall back to it. Throws when the recorder asked for cannot record the program.
  public func recorder(for request: RecordingRequest) throws -> (recorder: any Recorder, note: String?) {
    // Whatever the program is: one line, before anything runs.
    if request.emulator != nil && request.method == .tracer { throw RecordingError.tracerUnderEmulator(reason: nil) }
    guard try mode(for: request) == .noRebuild else { return (RuntimeRecorder(), nil) }
    let path = request.executable
    let configured = try inProcessLibrary(path)
    let library = configured.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
    if request.emulator != nil, let obstacle = Self.inProcessObstacle(for: path, library: library) {
      throw RecordingError.tracerUnderEmulator(reason: obstacle)
    }
    let method: NoRebuildMethod = request.recordsData && request.method == .automatic ? .inProcess : request.method
    let (chosen, fallback) = try Self.method(method, for: path, library: library)
    if chosen == .inProcess, let library { return (InProcessRecorder(library: library), nil) }
    // Said only when the in-process recorder was looked for.
    let note = request.method == .automatic && configured != nil ? fallback : nil
    return (TracerRecorder(passesTerminationSignals: passesTerminationSignals), note)
  }

  /// Runs the program once with the recorder chosen for it.
  public func record(_ request: RecordingRequest) throws -> Recording {
    let (recorder, note) = try recorder(for: request)
    var recording = try recorder.record(request)
    if let note { recording.notes.append(note) }
    return recording
  }
}

extension RecordingMode {
  /// The mode for a program when the user names none: without a rebuild, unless the
  /// executable calls a recording hook (`-finstrument-functions`, SanitizerCoverage).
  /// A name that is no executable file is left to the runtime recorder, whose error says so.
  public static func automatic(for program: String) throws -> RecordingMode {
    let path = ProcessRunner.resolve(program)
    guard FileManager.default.isExecutableFile(atPath: path) else { return .instrumented }
    return try BinaryLocator.isInstrumented(fileAt: path) ? .instrumented : .noRebuild
  }
}

/// Which recorder of the unmodified binary a program allows.
extension RecorderChooser {
  /// The method a recording of the executable at `path` uses when `asked` is asked for,
  /// and why the tracer when `automatic` had to fall back to it. Throws when `inProcess`
  /// was asked for a program that cannot be recorded that way.
  public static func method(
    _ asked: NoRebuildMethod, for path: String, library: String?
  ) throws -> (method: NoRebuildMethod, fallback: String?) {
    guard asked != .tracer else { return (.tracer, nil) }
    guard let obstacle = Self.inProcessObstacle(for: path, library: library) else { return (.inProcess, nil) }
    if asked == .inProcess { throw RecordingError.inProcessImpossible(reason: obstacle) }
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

  /// Whether the ELF file at `path` names a dynamic loader (PT_INTERP). A file that cannot be
  /// read as an ELF executable counts as dynamic: the loader then says what is wrong.
  static func isDynamicallyLinked(_ path: String) -> Bool {
    ProgramInterpreter(path) != .none
  }
}

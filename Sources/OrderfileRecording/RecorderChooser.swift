import Foundation
import OrderfileSupport

/// Chooses how a program is recorded without a rebuild, and hands the recording to that
/// recorder: in-process (`InProcessRecorder`, through the preloaded library) or under the
/// ptrace tracer (`TracerRecorder`), as `method` asks or the program allows. It records
/// nothing itself.
///
/// Under an emulator only the in-process recorder can: ptrace sees the emulator, not the
/// program. That rule is checked here, once, before anything runs.
public struct RecorderChooser: Recorder {
  public var output: String
  public var timeLimitMilliseconds: Int?
  /// Function names whose first call ends the launch window (`--until`).
  public var untilFunctions: [String]
  /// Arm system libraries (libc, libstdc++) too.
  public var includeSystemLibraries: Bool
  /// Modules to arm or leave alone by name or path (`--include-module`, `--exclude-module`).
  public var modules: ModuleSelection
  /// In-process or with the tracer (`--recorder`).
  public var method: NoRebuildMethod = .automatic
  /// Record the first touch of each page of the recorded modules' read-only data too: only
  /// the in-process method can (a protected page faults in the program's own thread).
  public var recordsData = false
  /// `libOrderfileInProcess.so`, for the in-process method; nil or a missing file: none.
  public var inProcessLibrary: String?
  /// Runs the program under this emulator, in-process (`inProcessLibrary` built for the
  /// program's machine).
  public var emulator: Emulator?
  public var afterLaunch: AfterLaunch = .end
  public var planCache: PlanCache = .userDefault()
  /// Whether the tracer passes SIGTERM, SIGHUP and SIGINT on (the in-process recorder always does).
  public var passesTerminationSignals = false

  public init(
    output: String, timeLimitMilliseconds: Int? = nil, untilFunctions: [String] = [],
    includeSystemLibraries: Bool = false, modules: ModuleSelection = .init()
  ) {
    self.output = output
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.untilFunctions = untilFunctions
    self.includeSystemLibraries = includeSystemLibraries
    self.modules = modules
  }

  /// The recorder for `program`, and the note that says why the tracer when `automatic` had
  /// to fall back to it. Throws when the method asked for cannot record the program.
  public func recorder(for program: String) throws -> (recorder: any Recorder, note: String?) {
    let path = ProcessRunner.resolve(program)
    let library = inProcessLibrary.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
    if emulator != nil {
      if method == .tracer { throw RecordingError.tracerUnderEmulator(reason: nil) }
      if let obstacle = NoRebuildMethod.inProcessObstacle(for: path, library: library) {
        throw RecordingError.tracerUnderEmulator(reason: obstacle)
      }
    }
    let (chosen, fallback) = try (recordsData && method == .automatic ? .inProcess : method).resolve(
      for: path, library: library)
    if chosen == .inProcess, let library {
      var recorder = InProcessRecorder(
        output: output, library: library, timeLimitMilliseconds: timeLimitMilliseconds, untilFunctions: untilFunctions,
        includeSystemLibraries: includeSystemLibraries, modules: modules)
      recorder.emulator = emulator
      recorder.afterLaunch = afterLaunch
      recorder.planCache = planCache
      recorder.recordsData = recordsData
      return (recorder, nil)
    }
    var recorder = TracerRecorder(
      output: output, timeLimitMilliseconds: timeLimitMilliseconds, untilFunctions: untilFunctions,
      includeSystemLibraries: includeSystemLibraries, modules: modules)
    recorder.afterLaunch = afterLaunch
    recorder.planCache = planCache
    recorder.passesTerminationSignals = passesTerminationSignals
    // Said only when the in-process recorder was looked for.
    return (recorder, method == .automatic && inProcessLibrary != nil ? fallback : nil)
  }

  /// Runs the program once with the recorder chosen for it.
  public func record(program: String, arguments: [String]) throws -> Recording {
    let (recorder, note) = try recorder(for: program)
    var recording = try recorder.record(program: program, arguments: arguments)
    if let note { recording.notes.append(note) }
    return recording
  }
}

import Foundation
import OrderfileSupport

/// One recording as asked for: the program, where its trace goes and how its launch is
/// recorded. `orderfile record` turns its options into one and the daily job makes one per
/// run of a scenario; it goes whole to `RecorderChooser` and on to the recorder chosen, so
/// each option is declared here alone.
public struct RecordingRequest: Sendable, Equatable {
  /// Where the trace goes.
  public var output: String
  public var program: String
  public var arguments: [String]
  /// How to record; nil chooses from the program (`RecordingMode.automatic(for:)`), or
  /// without a rebuild when an option of that mode is given.
  public var mode: RecordingMode?
  /// End the launch window this many milliseconds after process start.
  public var timeLimitMilliseconds: Int?
  /// What becomes of the program once its launch window has closed (`--until`,
  /// `--time-limit`): by default it is ended, with every process it started
  /// (`--wait-for-exit`: `.waitForExit`).
  public var afterLaunch: AfterLaunch
  /// Runs a program of another machine under this emulator (`--emulator`), recorded from
  /// inside it: ptrace would see the emulator, not the program.
  public var emulator: Emulator?
  /// Instrumented: record at most this many distinct functions.
  public var capacity: Int?
  /// Without a rebuild: function names whose first call ends the launch window (`--until`).
  public var until: [String]
  /// Without a rebuild: arm system libraries (libc, libstdc++) too.
  public var includeSystemLibraries: Bool
  /// Without a rebuild: modules to arm or leave alone by name or path (`--include-module`,
  /// `--exclude-module`).
  public var modules: ModuleSelection
  /// Without a rebuild: from inside the program (a preloaded library), with the ptrace
  /// tracer, or chosen from the program (`--recorder`).
  public var method: NoRebuildMethod
  /// Without a rebuild, in-process: record the first touch of each page of the recorded
  /// modules' read-only data too (`--data`).
  public var recordsData: Bool
  /// Without a rebuild: where the plans of module files are kept between recordings
  /// (`--no-plan-cache`: `.disabled`).
  public var planCache: PlanCache
  /// Without a rebuild, in-process: run the command a second time trapping only the functions
  /// that mark its phases, for `report` to take its times from (`--timing-launch`,
  /// `TimingLaunch`).
  public var timingLaunch: Bool

  public init(
    output: String, program: String, arguments: [String] = [], mode: RecordingMode? = nil,
    timeLimitMilliseconds: Int? = nil, afterLaunch: AfterLaunch = .end, emulator: Emulator? = nil,
    capacity: Int? = nil, until: [String] = [], includeSystemLibraries: Bool = false,
    modules: ModuleSelection = .init(), method: NoRebuildMethod = .automatic, recordsData: Bool = false,
    planCache: PlanCache = .userDefault(), timingLaunch: Bool = false
  ) {
    self.output = output
    self.program = program
    self.arguments = arguments
    self.mode = mode
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.afterLaunch = afterLaunch
    self.emulator = emulator
    self.capacity = capacity
    self.until = until
    self.includeSystemLibraries = includeSystemLibraries
    self.modules = modules
    self.method = method
    self.recordsData = recordsData
    self.planCache = planCache
    self.timingLaunch = timingLaunch
  }

  /// The options given that only recording without a rebuild understands, as flags.
  var noRebuildOptions: [String] {
    (until.isEmpty ? [] : ["--until"]) + (includeSystemLibraries ? ["--system-libraries"] : [])
      + (recordsData ? ["--data"] : []) + (timingLaunch ? ["--timing-launch"] : [])
      + (modules.include.isEmpty ? [] : ["--include-module"]) + (modules.exclude.isEmpty ? [] : ["--exclude-module"])
  }

  /// The program's executable, as the recorders run it (a name without a slash looked up
  /// in PATH).
  var executable: String { ProcessRunner.resolve(program) }
}

/// How `record` records a program (`--no-rebuild`, `--instrumented`).
public enum RecordingMode: String, Sendable, CaseIterable {
  /// The release binary itself, with first-entry breakpoints (`InProcessRecorder`,
  /// `TracerRecorder`).
  case noRebuild
  /// The runtime of an instrumented build (`RuntimeRecorder`).
  case instrumented
}

/// How a recording without a rebuild runs the program (`record --recorder`).
public enum NoRebuildMethod: String, Sendable, CaseIterable {
  /// In-process for a dynamically linked program that may be preloaded, else the tracer.
  case automatic = "auto"
  /// A preloaded library plants the traps and handles them inside the program (`InProcessRecorder`).
  case inProcess = "in-process"
  /// The ptrace tracer (`TracerRecorder`).
  case tracer
}

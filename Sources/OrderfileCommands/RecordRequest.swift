import Foundation
import OrderfileBuild
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// `orderfile record`: run a program once and save the trace of its launch.
///
/// The request holds what the user asked for; it picks the recorder itself
/// (`recorder()`): a mode given, or the one the program calls for.
public struct RecordRequest {
  /// Where the trace goes.
  public var output: String
  public var program: String
  public var arguments: [String]
  /// How to record; nil chooses from the program (`RecordingMode.automatic(for:)`), or
  /// without a rebuild when an option of that mode is given.
  public var mode: RecordingMode?
  /// End the launch window this many milliseconds after process start.
  public var timeLimitMilliseconds: Int?
  /// Instrumented: record at most this many distinct functions.
  public var capacity: Int?
  /// Without a rebuild: end the launch window at the first call of one of these functions.
  public var until: [String]
  /// Without a rebuild: record system libraries too.
  public var includeSystemLibraries: Bool
  /// Without a rebuild, in-process: record the first touch of each read-only data page too.
  public var recordsData: Bool
  /// Without a rebuild: libraries to record, or to leave alone, by file name or folder.
  public var includeModules: [String]
  public var excludeModules: [String]
  /// Without a rebuild: from inside the program (a preloaded library), with the ptrace
  /// tracer, or chosen from the program.
  public var recorderMethod: NoRebuildMethod
  /// Print only warnings and errors, not the summary of what was recorded.
  public var quiet: Bool
  /// The emulator command that runs a program of another machine (`--emulator`, e.g.
  /// `qemu-aarch64-static -L /usr/aarch64-linux-gnu`), split into words; nil: run it here.
  public var emulator: [String]?
  /// Leave the program running once its launch window has closed and wait for it to exit
  /// by itself (`--wait-for-exit`); by default it is ended (`AfterLaunch.end`).
  public var waitForExit = false
  /// Without a rebuild: take the plan of each module file from the user's plan cache when
  /// it is there, and keep it there (`PlanCache`); false plans afresh and keeps nothing
  /// (`--no-plan-cache`).
  public var usesPlanCache = true

  public init(
    output: String, program: String, arguments: [String] = [], mode: RecordingMode? = nil,
    timeLimitMilliseconds: Int? = nil, capacity: Int? = nil, until: [String] = [],
    includeSystemLibraries: Bool = false, recordsData: Bool = false, includeModules: [String] = [],
    excludeModules: [String] = [],
    recorderMethod: NoRebuildMethod = .automatic, quiet: Bool = false, emulator: [String]? = nil,
    waitForExit: Bool = false, usesPlanCache: Bool = true
  ) {
    self.usesPlanCache = usesPlanCache
    self.emulator = emulator
    self.waitForExit = waitForExit
    self.output = output
    self.program = program
    self.arguments = arguments
    self.mode = mode
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.capacity = capacity
    self.until = until
    self.includeSystemLibraries = includeSystemLibraries
    self.recordsData = recordsData
    self.includeModules = includeModules
    self.excludeModules = excludeModules
    self.recorderMethod = recorderMethod
    self.quiet = quiet
  }

  /// The options given that only recording without a rebuild understands, as flags.
  var noRebuildOptions: [String] {
    (until.isEmpty ? [] : ["--until"]) + (includeSystemLibraries ? ["--system-libraries"] : [])
      + (recordsData ? ["--data"] : [])
      + (includeModules.isEmpty ? [] : ["--include-module"]) + (excludeModules.isEmpty ? [] : ["--exclude-module"])
  }

  /// The mode to record in: the one asked for, else the program's.
  func chosenMode() throws -> RecordingMode {
    if let mode { return mode }
    let automatic = try RecordingMode.automatic(for: program)
    guard !noRebuildOptions.isEmpty else { return automatic }
    // An instrumented build is recorded with its runtime unless asked otherwise: options
    // of the other mode must not switch modes behind the user's back. (A name that is no
    // executable is left to the breakpoint recorder, whose error says so.)
    if automatic == .instrumented && FileManager.default.isExecutableFile(atPath: ProcessRunner.resolve(program)) {
      throw RecordingError.noRebuildOptionsForInstrumented(program: program, options: noRebuildOptions)
    }
    return .noRebuild
  }

  /// The recorder for the chosen mode.
  func recorder() throws -> any Recorder {
    // Whatever the program is: one line, before anything runs.
    if emulator != nil && recorderMethod == .tracer { throw RecordingError.tracerUnderEmulator(reason: nil) }
    switch try chosenMode() {
    case .instrumented:
      var recorder = RuntimeRecorder(output: output, timeLimitMilliseconds: timeLimitMilliseconds, capacity: capacity)
      recorder.emulator = emulator.map(Emulator.init(command:))
      recorder.afterLaunch = afterLaunch
      return recorder
    case .noRebuild:
      var recorder = RecorderChooser(
        output: output, timeLimitMilliseconds: timeLimitMilliseconds, untilFunctions: until,
        includeSystemLibraries: includeSystemLibraries,
        modules: ModuleSelection(include: includeModules, exclude: excludeModules))
      // The user's ^C, SIGTERM and SIGHUP end the recording and reach the program.
      recorder.passesTerminationSignals = true
      recorder.method = recorderMethod
      recorder.recordsData = recordsData
      recorder.afterLaunch = afterLaunch
      recorder.planCache = usesPlanCache ? .userDefault() : .disabled
      if let emulator {
        recorder.emulator = Emulator(command: emulator)
        recorder.inProcessLibrary = try Self.inProcessLibrary(for: ProcessRunner.resolve(program))
      } else {
        recorder.inProcessLibrary = Self.defaultInProcessLibrary()
      }
      return recorder
    }
  }

  var afterLaunch: AfterLaunch { waitForExit ? .waitForExit : .end }

  /// The in-process recorder beside the runtime the running tool finds.
  public static func defaultInProcessLibrary() -> String {
    // The page probe's directory: both are installed beside the runtime.
    PathName.directory(of: MeasureRequest.defaultProbeLibrary()) + "/" + InProcessRecorder.libraryName
  }

  /// The in-process recorder built for the machine of the program at `path`: for another
  /// machine's program (run under `--emulator`), `lib/<triple>/` beside the host's libraries,
  /// where `Scripts/install --target` puts it (`RuntimeLocation.library(named:for:)`).
  static func inProcessLibrary(for path: String) throws -> String {
    guard let machine = ELFMachine.of(fileAt: path), machine != ELFMachine.host else {
      return defaultInProcessLibrary()
    }
    return try RuntimeLocation.library(named: InProcessRecorder.libraryName, for: machine)
  }

  /// The words of an `--emulator` command (split at blanks, '…' and "…" quoting), or nil
  /// for none or an open quote.
  public static func emulatorWords(_ text: String) -> [String]? {
    Emulator(parsing: text)?.command
  }

  /// Runs the program; the command then ends with the program's own exit status.
  public func run() throws -> CommandOutput {
    try run(with: try recorder())
  }

  /// Runs the program with `recorder`.
  func run(with recorder: any Recorder) throws -> CommandOutput {
    let recording = try recorder.record(program: program, arguments: arguments)
    let trace = try recording.trace ?? TraceReader.read(path: recording.tracePath)
    var output = CommandOutput()
    if !quiet {
      let later = trace.records.count - trace.launchRecords.count
      output.note(
        "recorded \(TextFormatting.count(trace.launchRecords.count, "launch function")) (\(later) after the window) in \(TextFormatting.count(trace.modules.count, "module")) to \(recording.tracePath)"
      )
      for child in recording.childTraces { output.note("another process's trace: \(child)") }
      for image in recording.execTraces { output.note("another image of the same process (exec): \(image)") }
      for note in recording.notes { output.note(note) }
    }
    for warning in recording.warnings { output.warning(warning) }
    if trace.header.droppedCount > 0 {
      output.warning("\(trace.header.droppedCount) first calls were dropped: raise --capacity")
    }
    if let signal = recording.interruptedBy {
      // Stopped by a signal: end as a process that signal ended, whatever the program's status.
      output.end(with: ExitStatus(rawValue: 128 + signal))
    } else if recording.endedAfterLaunch {
      if !quiet {
        output.note(
          "the launch window closed with \(program) still running: it was ended (SIGTERM, then SIGKILL after \(AfterLaunch.defaultGraceMilliseconds / 1000) s), as were the processes it started; --wait-for-exit leaves it running"
        )
      }
    } else if recording.status != 0 {
      output.warning("\(program) exited with status \(recording.status)")
      output.end(with: ExitStatus(rawValue: recording.status))
    }
    return output
  }
}

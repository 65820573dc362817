import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// A way to run a program once and collect the trace of its launch.
///
/// `RuntimeRecorder` runs a program built with the runtime (`orderfile flags
/// --instrument`); `InProcessRecorder` and `TracerRecorder` run the unmodified release binary,
/// as `RecorderChooser` picks one.
/// All write the same trace format (Docs/TraceFormat.md), so everything after the
/// recording (generate, merge, report) stays the same.
public protocol Recorder {
  /// Runs the request's program to its end and collects its trace.
  ///
  /// - Returns: where the traces went and how the program ended; a program that fails
  ///   still returns a recording, since its launch was recorded.
  /// - Throws: when the program could not be started or left no trace.
  func record(_ request: RecordingRequest) throws -> Recording
}

/// What one recording run left behind.
public struct Recording: Sendable {
  /// Removes the traces an earlier recording to `output` left beside it for other
  /// processes and images (`<trace>.<pid>`, `<trace>[.<pid>].exec<n>`, and the older
  /// `<trace>.<pid>.<n>`)
  /// that this recording did not write (`kept`): a new recording replaces the whole set,
  /// and an earlier run's child must not pass for one of this run. Only files that are
  /// traces go; anything else of a similar name stays.
  static func removeEarlierSiblings(of output: String, keeping kept: [String]) {
    let (directory, base) = PathName.split(output)
    let keep = Set(kept.map { PathName.base(of: $0) })
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    where name.hasPrefix(base + ".") && !keep.contains(name) {
      var parts = name.dropFirst(base.count + 1).split(separator: ".", omittingEmptySubsequences: false)
      // An earlier recording's timing launch (`record --timing-launch`) goes too, its own trace
      // and its processes': a report would take its times from it.
      let timing = parts.first.map(String.init) == TimingLaunch.suffix
      if timing { parts.removeFirst() }
      let earlier = parts.isEmpty ? timing : TimingLaunch.isNumbered(parts)
      let path = directory + "/" + name
      if earlier && TraceReader.startsWithMagic(path: path) { unlink(path) }
    }
  }

  /// Removes the trace at `path` of another process or image when that process ran none of
  /// the program's code (`recordsNothingOfTheProgram`) and no runtime writes the file any
  /// more; returns whether it went.
  /// A child that only runs another program (a helper it execs, `/bin/true`) leaves such a
  /// trace: at full size, since exec finishes nothing. A live runtime holds its trace's
  /// `flock` for as long as it records (Docs/Runtime.md), and exec drops it with the
  /// descriptor: a locked trace may still gain first calls, and stays.
  static func removeIfNothingOfTheProgram(_ path: String, beside program: Trace?) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0, let trace = try? TraceReader.read(path: path),
      trace.recordsNothingOfTheProgram(beside: program)
    else { return false }
    return unlink(path) == 0
  }

  /// The program's exit status (128 + signal when a signal ended it).
  public var status: Int32
  /// Where the program's own trace was written.
  public var tracePath: String
  /// Traces of processes the program forked, moved beside the main one as `<trace>.<pid>`.
  public var childTraces: [String]
  /// Traces of the images a process became by executing itself or another instrumented
  /// program under the same pid, in the order they ran: `<trace>[.<pid>].exec<n>`.
  public var execTraces: [String]
  /// What the recorder has to say about the run beyond the traces (one line each).
  public var notes: [String]
  /// What went wrong without stopping the recording, such as a module without symbols.
  public var warnings: [String]
  /// The termination signal (SIGTERM, SIGHUP, SIGINT) that stopped the recording early and
  /// was passed on to the program, if one did.
  public var interruptedBy: Int32?
  /// The tool ended the program once its launch window closed (`AfterLaunch.end`): its
  /// status is the signal's, not a failure of its own.
  public var endedAfterLaunch = false
  /// The trace at `tracePath` as written, when the recorder has read it already: a caller
  /// need not read it again.
  public var trace: Trace?
  /// How the recording without a rebuild planned what to arm; nil for the others.
  public var planning: Planning?
  /// The timing launch's trace (`--timing-launch`), when one was made.
  public var timingTrace: String?
  /// The recorder makes timing launches and was asked for one: a missing one was warned of.
  public var timingLaunchAttempted = false

  /// The module files a recording without a rebuild read to plan, and those it took from
  /// the plan cache instead (`PlanCache`).
  public struct Planning: Sendable, Equatable {
    public var modulesRead: Int
    public var modulesFromCache: Int
    /// The time spent planning; the tracer's, which plans each module as it is mapped and
    /// arms it then, is its whole arming time.
    public var milliseconds: Double

    public init(modulesRead: Int, modulesFromCache: Int, milliseconds: Double) {
      self.modulesRead = modulesRead
      self.modulesFromCache = modulesFromCache
      self.milliseconds = milliseconds
    }

    /// ` (from the plan cache)`, ` (2 of 3 modules from the plan cache)`, or nothing when no
    /// module came from it.
    var cacheNote: String {
      guard modulesFromCache > 0 else { return "" }
      guard modulesRead > 0 else { return " (from the plan cache)" }
      return " (\(modulesFromCache) of \(modulesRead + modulesFromCache) modules from the plan cache)"
    }
  }

  public init(
    status: Int32, tracePath: String, childTraces: [String], execTraces: [String] = [], notes: [String] = [],
    warnings: [String] = []
  ) {
    self.status = status
    self.tracePath = tracePath
    self.childTraces = childTraces
    self.execTraces = execTraces
    self.notes = notes
    self.warnings = warnings
  }
}

extension Trace {
  /// Whether the process ran none of the program's code: it made no first call of its own
  /// (none at all, or, in a fork child, none past those it inherited from its parent), or
  /// made them only in system programs and libraries that `program`'s own trace does not
  /// have (a shell, make or a compiler the launch ran). Such a trace, beside the program's
  /// own, says nothing about the program, and is neither kept nor listed.
  func recordsNothingOfTheProgram(beside program: Trace?) -> Bool {
    let programPaths = Set(program?.modules.map(\.path) ?? [])
    return !ownRecords.contains { record in
      guard modules.indices.contains(record.module) else { return false }
      let path = modules[record.module].path
      return programPaths.contains(path) || !TraceModule.isSystemFile(path: path)
    }
  }
}

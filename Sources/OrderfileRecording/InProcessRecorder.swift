import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import OrderfileTraceFormat

/// Records a launch of an unmodified program from inside its own process: the release
/// binary, no ptrace, no second process stopping the program.
///
/// The tool plans what to trap exactly as the tracer does (`ModulePlanner`: the program's
/// own files, symbols, `.eh_frame` starts, cold parts, `--until` entries) and writes the
/// plan to a file; `libOrderfileInProcess.so`, preloaded, arms it before any initializer of
/// the program runs and records every first call into the runtime's trace
/// (Sources/OrderfileInProcess/recorder.c). Traces are collected as for an instrumented
/// build (`RuntimeRecorder`): one per process, `<trace>.<pid>` for children.
public struct InProcessRecorder: Recorder {
  /// The preloaded library, built for the program's machine.
  public var library: String

  public static let libraryName = "libOrderfileInProcess.so"

  public init(library: String) {
    self.library = library
  }

  public func record(_ request: RecordingRequest) throws -> Recording {
    let (output, program, until, emulator) = (request.output, request.program, request.until, request.emulator)
    // Before the plan is written beside the trace: an output that cannot be written is the
    // error to report, not the plan file that could not be created.
    try TraceDestination.check(output)
    let path = ProcessRunner.resolve(program)
    let warnings = WarningLines()
    let planner = ModulePlanner(
      stopNames: until, includeSystemLibraries: request.includeSystemLibraries, program: path,
      selection: request.modules, cache: request.planCache, warn: { warnings.lines.append($0) })
    let started = MonotonicClock.nanoseconds()
    let plan = Self.plan(executable: path, planner: planner, emulator: emulator, recordsData: request.recordsData)
    // Before the program runs, as the tracer's run does; every module is planned already.
    try UntilFunction.checkBeforeRun(
      until, in: path, libraries: { [] }, program: program, planner: planner)
    warnings.lines += planner.systemLibraryWarnings()
    let planning = Double(MonotonicClock.nanoseconds() - started) / 1e6
    // Absolute: a launcher may change directory before it execs the program.
    let planFile = PathName.absolute(PathName.directory(of: output)) + "/.orderfile-plan-\(getpid())"
    try AtomicFile.write(plan.bytes, to: planFile)
    // The recorder's processes share their time in a file beside the plan (children.c).
    defer {
      unlink(planFile)
      unlink(planFile + OF_PLAN_CLOCK_SUFFIX)
    }
    // Under an emulator the user's preloads are the host's, built for another machine.
    let inherited =
      emulator != nil ? nil : ProcessInfo.processInfo.environment["LD_PRELOAD"].flatMap { $0.isEmpty ? nil : $0 }
    var runtime = RuntimeRecorder()
    runtime.environment = [
      // The user's preloads stay, after this one: its signal calls must be the first found.
      // Absolute (ORDERFILE_RUNTIME_DIR may be relative): a child that changes directory
      // before it executes a program must still load it.
      "LD_PRELOAD": PathName.absolute(library) + (inherited.map { " " + $0 } ?? ""),
      OF_PLAN_VARIABLE: planFile,
    ]
    runtime.passesTerminationSignals = true
    runtime.windowCloseEndsLaunch = !until.isEmpty
    // The instrumented runtime's record capacity is no limit of this one's.
    var runtimeRequest = request
    runtimeRequest.capacity = nil
    var recording: Recording
    do {
      recording = try runtime.record(runtimeRequest)
    } catch RecordingError.noTrace {
      throw BreakpointRecordingError.nothingRecorded(program: program, reasons: warnings.lines)
    }
    // The program named may be a wrapper (a shell that execs the real one): any image counts.
    let main = try? TraceReader.read(path: recording.tracePath)
    let others = recording.execTraces + recording.childTraces
    let traces = [recording.tracePath] + others
    if main?.records.isEmpty != false,
      !others.contains(where: { ((try? TraceReader.read(path: $0))?.records.isEmpty) == false })
    {
      // As the tracer: a recording that failed leaves no empty trace to mistake for one.
      for trace in traces { unlink(trace) }
      throw BreakpointRecordingError.nothingRecorded(program: program, reasons: warnings.lines)
    }
    recording.warnings = warnings.lines + recording.warnings
    recording.trace = main
    // Planning is the tool's (symbols read, entries chosen), arming the library's inside the
    // program (the trace's arming_ns): together, what the tracer reports as its arming.
    let arming = main?.header.recorderTime.map {
      Double($0.armingNanoseconds) / 1e6
    }
    recording.planning = Recording.Planning(
      modulesRead: planner.modulesRead, modulesFromCache: planner.modulesFromCache, milliseconds: planning)
    recording.notes = [
      "recorded without a rebuild, in-process: \(plan.armed) entries planned in \(String(format: "%.1f", planning)) ms"
        + (recording.planning?.cacheNote ?? "") + (arming.map { ", armed in \(String(format: "%.1f", $0)) ms" } ?? "")
    ]
    if request.recordsData, let main {
      let pages = Set(main.dataTouches.map { [$0.module, Int($0.page.lowerBound / $0.pageSize)] }).count
      recording.notes.append(
        "read-only data: \(main.dataTouches.count) first touches on \(pages) pages inside the launch window")
    }
    recording.notes += Recording.moduleNotes(
      skipped: planner.skippedSystemLibraries.sorted(), excluded: planner.excludedModules.sorted())
    recording.warnings += until.filter { !planner.matchedStopNames.contains($0) }.map(
      Recording.untilMatchedNothing)
    recording.timingLaunchAttempted = request.timingLaunch
    if request.timingLaunch, recording.interruptedBy == nil {
      try Self.addTimingLaunch(
        to: &recording, traces: traces, plan: plan.modules, planner: planner, planFile: planFile,
        runtime: runtime, request: runtimeRequest)
    }
    return recording
  }

  /// Runs the timing launch of `recording` (see `TimingLaunch`) and notes it there. A timing
  /// launch that fails or is stopped leaves no trace and a warning: the recording stands.
  static func addTimingLaunch(
    to recording: inout Recording, traces: [String], plan: [InProcessPlan.Module], planner: ModulePlanner,
    planFile: String, runtime: RuntimeRecorder, request: RecordingRequest
  ) throws {
    let traps = try timingPlan(of: traces, plan: plan, planner: planner, file: planFile)
    unlink(planFile + OF_PLAN_CLOCK_SUFFIX)  // the recording's children's time, not the timing launch's
    let started = MonotonicClock.nanoseconds()
    var timingRequest = request
    timingRequest.output = TimingLaunch.path(for: request.output)
    var runtime = runtime
    runtime.scratchTag = "-" + TimingLaunch.suffix
    let timed: Recording
    do {
      timed = try runtime.record(timingRequest)
    } catch {
      Recording.removeEarlierSiblings(of: request.output, keeping: traces)
      recording.warnings.append("no timing launch: \(error)")
      return
    }
    if let signal = timed.interruptedBy {
      Recording.removeEarlierSiblings(of: request.output, keeping: traces)
      recording.interruptedBy = signal
      recording.warnings.append("no timing launch: it was stopped by signal \(signal)")
      return
    }
    if timed.status != recording.status {
      recording.warnings.append(
        "the timing launch exited with status \(timed.status), the recording with \(recording.status): it may not have done the same, and report shows its times"
      )
    }
    recording.timingTrace = timed.tracePath
    recording.notes.append(
      "timing launch, trapping \(traps) functions that mark the phases: \(timed.tracePath) ("
        + "\(timed.childTraces.count + timed.execTraces.count) other traces), in "
        + String(format: "%.1f", Double(MonotonicClock.nanoseconds() - started) / 1e6) + " ms")
  }

  /// Writes over the plan at `file` the timing launch's (see `TimingLaunch`): every module the
  /// recording planned, and every program one of its processes ran, armed on only the first
  /// function each process of the recording called (a fork child's own first) and `main`; the
  /// `--until` entries stay, armed. No other module is armed (`OF_PLAN_FILE_NAMED_ONLY`).
  /// Returns the number of functions armed.
  static func timingPlan(of traces: [String], plan: [InProcessPlan.Module], planner: ModulePlanner, file: String)
    throws -> Int
  {
    var wanted: [FileIdentity: (path: String, entries: Set<UInt64>)] = [:]
    func want(_ path: String, _ entries: [UInt64]) {
      guard let identity = FileIdentity(path: path) else { return }
      wanted[identity, default: (path, [])].entries.formUnion(entries)
    }
    for path in traces {
      guard let trace = try? TraceReader.read(path: path) else { continue }
      // A fork child's own first call, not its parent's.
      if let first = trace.ownRecords.min(by: { $0.timeNanoseconds < $1.timeNanoseconds }),
        first.module < trace.modules.count
      {
        want(trace.modules[first.module].path, [first.address])
      }
      if let program = trace.modules.first(where: \.isMainExecutable),
        case .success(let module) = planner.survey(ModulePlanner.resolved(program.path))
      {
        want(program.path, module.names.addresses(matching: StopName("main")))
      }
    }
    var modules = plan.map { module in
      var timed = module
      timed.recordsData = false
      // A stop ends the window at its trap: it is armed too.
      let marks = FileIdentity(path: module.path).flatMap { wanted.removeValue(forKey: $0) }?.entries ?? []
      timed.entries = marks.union(module.stops).sorted()
      return timed
    }
    for (_, program) in wanted.sorted(by: { $0.value.path < $1.value.path }) {
      modules.append(
        .init(path: program.path, isMainExecutable: false, entries: program.entries.sorted(), stops: []))
    }
    // Named only: a library the plan does not name (a plugin the program loads) stays unarmed,
    // where a recording arms it from its symbols.
    try AtomicFile.write(InProcessPlan.encode(modules, flags: OF_PLAN_FILE_NAMED_ONLY), to: file)
    return modules.reduce(0) { $0 + $1.entries.count }
  }

  /// The plan of the executable and the libraries the loader resolves for it (the emulated
  /// loader, under an emulator).
  static func plan(
    executable path: String, planner: ModulePlanner, emulator: Emulator? = nil, recordsData: Bool = false
  )
    -> (
      bytes: [UInt8], armed: Int, modules: [InProcessPlan.Module]
    )
  {
    planner.prepare(executable: path)
    var modules: [InProcessPlan.Module] = []
    // Under the name `prepare` gave it, links resolved: a program named `./app` would
    // otherwise lose the entries into its cold parts found there.
    let executable = ModulePlanner.resolved(path)
    let main = planner.plan(path: executable, isMainExecutable: true, isInterpreter: false)
    modules.append(.init(path: executable, isMainExecutable: true, plan: main, recordsData: recordsData))
    let libraries =
      emulator.map { $0.linkedLibraries(of: path) ?? [] }
      ?? (LinkedLibraries.of(path) ?? []).map {
        Emulator.Library(guestPath: ModulePlanner.resolved($0), hostPath: $0)
      }
    for library in libraries {
      // Read from the host's file, judged (system library or not, --exclude-module) and named
      // in the plan by the path the program's loader gives it.
      planner.guestPaths[library.hostPath] = library.guestPath
      let plan = planner.plan(path: library.hostPath, isMainExecutable: false, isInterpreter: false)
      // Every linked library is named, armed or not: one the plan leaves out on purpose (a
      // system library, --exclude-module) must not be armed from its symbols instead.
      modules.append(.init(path: library.guestPath, isMainExecutable: false, plan: plan, recordsData: recordsData))
    }
    return (InProcessPlan.encode(modules), modules.reduce(0) { $0 + $1.entries.count }, modules)
  }
}

/// The planner's warnings, gathered while it plans.
private final class WarningLines {
  var lines: [String] = []
}

/// The plan file `libOrderfileInProcess.so` reads, laid out as `orderfile_plan_format.h`
/// (OrderfileTraceFormat) defines it.
enum InProcessPlan {
  struct Module {
    var path: String
    var isMainExecutable: Bool
    var entries: [UInt64]
    var stops: [UInt64]
    var recordsData: Bool

    init(path: String, isMainExecutable: Bool, entries: [UInt64], stops: [UInt64]) {
      self.path = path
      self.isMainExecutable = isMainExecutable
      self.entries = entries
      self.stops = stops
      recordsData = false
    }

    init(path: String, isMainExecutable: Bool, plan: ModulePlan, recordsData: Bool = false) {
      self.path = path
      self.isMainExecutable = isMainExecutable
      self.recordsData = recordsData
      let planned = Array(plan.entries.prefix(plan.entryCount))
      // A planned module's entries are ascending already; sorting 250,000 again costs.
      entries = zip(planned, planned.dropFirst()).allSatisfy { $0 < $1 } ? planned : Array(Set(planned)).sorted()
      stops = Array(plan.stops.prefix(plan.stopCount))
    }
  }

  /// `flags`: the plan's (`OF_PLAN_FILE_*`).
  static func encode(_ modules: [Module], flags: UInt32 = 0) -> [UInt8] {
    var bytes = Array(OF_PLAN_MAGIC.utf8) + [0]
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    append(UInt32(modules.count))
    append(flags)
    for module in modules {
      let path = Array(module.path.utf8)
      append(UInt32(path.count))
      append((module.isMainExecutable ? OF_PLAN_MAIN : 0) | (module.recordsData ? OF_PLAN_DATA : 0))
      append(UInt64(module.entries.count))
      append(UInt64(module.stops.count))
      bytes += path + [UInt8](repeating: 0, count: (path.count + 8) & ~7 - path.count)
      for entry in module.entries { append(entry) }
      for stop in module.stops { append(stop) }
    }
    return bytes
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import OrderfileTracer

/// Records a launch of an unmodified program under the ptrace tracer: the release build itself, any language with a
/// symbol table, no instrumentation and no runtime.
///
/// A one-byte breakpoint sits on the entry of every function of the program's own files and
/// is removed on its first hit (see `orderfile_tracer.h`). The result is the same trace
/// format the instrumented runtime writes, one trace per process image, so every command
/// that reads traces works unchanged.
///
/// Traces: the program's first process writes `output` (its final image, when it execs);
/// every other process image writes `output.<pid>`, and an image a process replaced by
/// `execve` writes `output.<pid>.exec<n>`, n the execs before it (exec0: the process's
/// first image), the name the runtime gives a later image of a process too.
public struct TracerRecorder: Recorder {
  /// SIGTERM, SIGHUP or SIGINT to this process while it records end the recording: the
  /// program is let go, sent the signal and waited for; the trace so far is written. For a
  /// command-line tool, which owns its process's signals; off by default.
  public var passesTerminationSignals: Bool

  public init(passesTerminationSignals: Bool = false) {
    self.passesTerminationSignals = passesTerminationSignals
  }

  /// What the recording saw beyond the traces themselves.
  public struct Summary: Sendable {
    public var recording: Recording
    /// Breakpoints written, over all processes.
    public var armed: UInt64
    /// Traps of a thread that reached an entry while another thread's first call of it was
    /// being handled: rewound, not reported again.
    public var races: UInt64
    /// Milliseconds spent reading symbols and writing breakpoints.
    public var armingMilliseconds: Double
    /// The first process's time held stopped by the tracer (arming, traps), taken out of
    /// its trace's times (the program's clock).
    public var recorderTime: RecorderTime?
    /// `--until` names that matched no function in any module.
    public var unmatchedUntil: [String]
    /// System libraries left unarmed.
    public var skippedSystemLibraries: [String]
    /// Modules left unarmed because `--exclude-module` named them.
    public var excludedModules: [String] = []
  }

  /// Runs the program once under the tracer; what it has to say comes back in the recording.
  public func record(_ request: RecordingRequest) throws -> Recording {
    var warnings: [String] = []
    let summary: Summary
    do {
      summary = try run(request) { warnings.append($0) }
    } catch BreakpointRecordingError.nothingRecorded(let program, _) {
      throw BreakpointRecordingError.nothingRecorded(program: program, reasons: warnings)
    }
    var recording = summary.recording
    recording.warnings = warnings + recording.warnings
    recording.notes = [
      "recorded without a rebuild: \(summary.armed) breakpoints, armed in \(String(format: "%.1f", summary.armingMilliseconds)) ms"
        + (recording.planning?.cacheNote ?? "")
        + (summary.recorderTime.map {
          "; the program was held \(String(format: "%.1f", Double($0.totalNanoseconds) / 1e6)) ms by the tracer, taken out of the trace's times"
        } ?? "")
    ]
    recording.notes += Recording.moduleNotes(skipped: summary.skippedSystemLibraries, excluded: summary.excludedModules)
    recording.warnings += summary.unmatchedUntil.map(Recording.untilMatchedNothing)
    return recording
  }

  /// Runs the program once under the tracer, and says what the tracer saw beyond the
  /// recording. Warnings go to `warn` as they happen.
  public func run(_ request: RecordingRequest, warn: @escaping (String) -> Void) throws -> Summary {
    let (output, program, until, timeLimitMilliseconds) = (
      request.output, request.program, request.until, request.timeLimitMilliseconds
    )
    try TraceDestination.check(output)
    let path = ProcessRunner.resolve(program)
    try RecordingError.checkMachine(of: path, program: program)
    if let warning = Self.privilegeWarning(path: path) { warn(warning) }
    let session = TracingSession(
      planner: ModulePlanner(
        stopNames: until, includeSystemLibraries: request.includeSystemLibraries, program: path,
        selection: request.modules, cache: request.planCache, warn: warn),
      collector: TraceCollector(timeLimitNanoseconds: timeLimitMilliseconds.map { UInt64($0) * 1_000_000 }),
      warn: warn)
    session.planner.prepare(executable: path)
    try UntilFunction.checkBeforeRun(
      until, in: path, libraries: { LinkedLibraries.of(path) ?? [] }, program: program,
      planner: session.planner)
    var environment = ProcessInfo.processInfo.environment
    // An instrumented build recorded this way must not also write a trace of its own.
    environment["ORDERFILE_DISABLE"] = "1"
    let endsAtWindowClose: Int? =
      if case .end(let grace) = request.afterLaunch, timeLimitMilliseconds != nil || !until.isEmpty {
        grace
      } else {
        nil
      }
    let result = try session.run(
      path: path, arguments: [program] + request.arguments,
      environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
      timeLimitNanoseconds: timeLimitMilliseconds.map { UInt64($0) * 1_000_000 } ?? 0,
      passTerminationSignals: passesTerminationSignals, returnAtWindowClose: endsAtWindowClose != nil)
    // After the run: the loader's later libraries (dlopen) are planned during it.
    for line in session.planner.systemLibraryWarnings() { warn(line) }
    // Let go at its window's close, the program runs on without breakpoints: ended here.
    let ended =
      result.launch_over ? ProgramEnding.end(result.first_pid, graceMilliseconds: endsAtWindowClose ?? 0) : nil
    var recording = try write(
      session.collector.finished, to: output, program: program, status: ended?.status ?? Self.exitStatus(result.status))
    recording.endedAfterLaunch = ended != nil
    if result.signal != 0 {
      recording.interruptedBy = result.signal
      recording.warnings.append(
        Recording.stopMessage(
          signal: result.signal, endedByIt: result.status & 0x7f == result.signal, status: recording.status))
    }
    // The tracer plans and arms together: its arming time holds the planning.
    recording.planning = Recording.Planning(
      modulesRead: session.planner.modulesRead, modulesFromCache: session.planner.modulesFromCache,
      milliseconds: Double(result.arm_ns) / 1e6)
    return Summary(
      recording: recording, armed: result.armed, races: result.races, armingMilliseconds: Double(result.arm_ns) / 1e6,
      recorderTime: Self.firstProcessTrace(in: session.collector.finished)?.header.recorderTime,
      unmatchedUntil: until.filter { !session.planner.matchedStopNames.contains($0) },
      skippedSystemLibraries: session.planner.skippedSystemLibraries.sorted(),
      excludedModules: session.planner.excludedModules.sorted())
  }

  /// Where the trace of an image that `execve` replaced goes: `<trace>.<pid>.exec<n>`, n
  /// the execs before the image, as the runtime names a process's later images.
  static func replacedImagePath(_ output: String, pid: Int32, image: Int) -> String {
    "\(output).\(pid).exec\(image)"
  }

  /// The kernel does not honour setuid or setgid for a program an unprivileged process
  /// traces: it runs with the caller's privileges, and may fail or behave otherwise.
  static func privilegeWarning(path: String) -> String? {
    var status = stat()
    guard geteuid() != 0, stat(path, &status) == 0, status.st_mode & (S_ISUID | S_ISGID) != 0 else { return nil }
    let kind = status.st_mode & S_ISUID != 0 ? "setuid" : "setgid"
    return
      "\(path) is \(kind): traced by a user without privileges it runs without its own (the kernel ignores \(kind) under ptrace), so it may fail or behave differently; record it as root, or record an instrumented build"
  }

  /// 128 + signal for a process a signal ended, as a shell reports it.
  static func exitStatus(_ waitStatus: Int32) -> Int32 {
    let signal = waitStatus & 0x7f
    return signal == 0 ? (waitStatus >> 8) & 0xff : 128 + signal
  }

  /// The final image of the program's first process: the trace `output` receives.
  static func firstProcessFinal(in traces: [TraceCollector.Finished]) -> TraceCollector.Finished? {
    guard let first = traces.first(where: { $0.trace.header.parentPID == nil && $0.image == 0 })?.pid else {
      return nil
    }
    return traces.last { $0.pid == first && $0.isFinalImage }
  }

  static func firstProcessTrace(in traces: [TraceCollector.Finished]) -> Trace? { firstProcessFinal(in: traces)?.trace }

  private func write(_ traces: [TraceCollector.Finished], to output: String, program: String, status: Int32) throws
    -> Recording
  {
    guard let main = Self.firstProcessFinal(in: traces) else {
      throw BreakpointRecordingError.nothingRecorded(program: program, reasons: [])
    }
    // Every trace is encoded before any is written, so a failure leaves no partial set.
    var files: [(path: String, bytes: [UInt8])] = []
    for finished in traces {
      let path: String
      if finished.pid == main.pid && finished.isFinalImage {
        path = output
      } else if finished.trace.recordsNothingOfTheProgram(beside: main.trace) {
        continue  // as the in-process recorder: a child that ran none of the program's code
      } else if finished.isFinalImage {
        path = "\(output).\(finished.pid)"
      } else {
        path = Self.replacedImagePath(output, pid: finished.pid, image: finished.image)
      }
      var trace = finished.trace
      trace.path = path
      files.append((path, TraceEncoder.encode(trace)))
    }
    if main.trace.records.isEmpty { throw BreakpointRecordingError.nothingRecorded(program: program, reasons: []) }
    for file in files { try AtomicFile.write(file.bytes, to: file.path) }
    Recording.removeEarlierSiblings(of: output, keeping: files.map(\.path))
    // An image a process replaced by execve is that process's, not another's.
    let replaced = Set(
      traces.filter { !$0.isFinalImage }.map { Self.replacedImagePath(output, pid: $0.pid, image: $0.image) })
    let others = files.map(\.path).filter { $0 != output }
    return Recording(
      status: status, tracePath: output, childTraces: others.filter { !replaced.contains($0) },
      execTraces: others.filter { replaced.contains($0) })
  }
}

/// One run of the C tracer, with this object as the context its callbacks receive.
private final class TracingSession {
  let planner: ModulePlanner
  let collector: TraceCollector
  let warn: (String) -> Void

  init(planner: ModulePlanner, collector: TraceCollector, warn: @escaping (String) -> Void) {
    self.planner = planner
    self.collector = collector
    self.warn = warn
  }

  func run(
    path: String, arguments: [String], environment: [String], timeLimitNanoseconds: UInt64,
    passTerminationSignals: Bool, returnAtWindowClose: Bool
  ) throws -> oftr_result {
    let argv = CStringArray(arguments)
    let envp = CStringArray(environment)
    defer {
      argv.free()
      envp.free()
    }
    var host = oftr_host()
    host.context = Unmanaged.passUnretained(self).toOpaque()
    host.plan_module = { context, pid, module, plan in
      guard let context, let module, let plan else { return }
      TracingSession.from(context).plan(pid: pid, module: module.pointee, into: plan)
    }
    host.process_started = { context, pid, parent, origin, time in
      guard let context else { return }
      let kind: TraceCollector.Origin =
        origin == OFTR_FORKED ? .forked : origin == OFTR_EXECED ? .execed : .spawned
      TracingSession.from(context).collector.processStarted(
        pid: pid, parent: parent, origin: kind, time: time, now: TracingSession.now())
    }
    host.first_call = { context, pid, module, address, time, thread, launch in
      guard let context else { return }
      TracingSession.from(context).collector.firstCall(
        pid: pid, module: Int(module), runtimeAddress: address, time: time, thread: thread, launch: launch)
    }
    host.window_closed = { context, pid, reason, time in
      guard let context else { return }
      TracingSession.from(context).collector.windowClosed(
        pid: pid, reason: reason == OFTR_WINDOW_TIME_LIMIT ? .timeLimit : .startupComplete, time: time)
    }
    host.process_ended = { context, pid, ending, _, time, recorder, arming in
      guard let context else { return }
      TracingSession.from(context).collector.processEnded(
        pid: pid, replaced: ending == OFTR_REPLACED, time: time, interrupted: ending == OFTR_INTERRUPTED,
        recorderTime: RecorderTime(totalNanoseconds: recorder, armingNanoseconds: min(arming, recorder)))
    }
    host.warning = { context, message in
      guard let context, let message else { return }
      TracingSession.from(context).warn(String(cString: message))
    }
    var result = oftr_result()
    let status = path.withCString { pathPointer in
      var options = oftr_options(
        path: pathPointer, argv: UnsafePointer(argv.pointer), envp: UnsafePointer(envp.pointer),
        time_limit_ns: timeLimitNanoseconds, pass_termination_signals: passTerminationSignals,
        return_at_window_close: returnAtWindowClose)
      return withUnsafePointer(to: &host) { hostPointer in
        oftr_record(&options, hostPointer, &result)
      }
    }
    if status != 0 {
      let message = withUnsafeBytes(of: result.message) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      throw BreakpointRecordingError.tracer(program: path, message: message, errno: Int32(result.error))
    }
    return result
  }

  private func plan(pid: Int32, module: oftr_module, into plan: UnsafeMutablePointer<oftr_plan>) {
    let path = module.path.map { String(cString: $0) } ?? ""
    let buildID = BuildID(module.build_id, count: Int(module.build_id_length))?.bytes
    collector.moduleMapped(
      pid: pid, index: Int(module.index),
      module: TraceModule(
        index: Int(module.index), path: path, buildID: buildID ?? [], loadBase: module.load_base,
        textRange: module.text_start..<max(module.text_start, module.text_end),
        isMainExecutable: module.main_executable))
    let decided = planner.plan(
      path: path, isMainExecutable: module.main_executable, isInterpreter: module.interpreter)
    plan.pointee.entries = UnsafePointer(decided.entries.baseAddress)
    plan.pointee.entry_count = decided.entryCount
    plan.pointee.stops = UnsafePointer(decided.stops.baseAddress)
    plan.pointee.stop_count = decided.stopCount
    plan.pointee.loader_hook = decided.loaderHook
    plan.pointee.signal_hook = decided.signalHook
  }

  static func from(_ context: UnsafeMutableRawPointer) -> TracingSession {
    Unmanaged<TracingSession>.fromOpaque(context).takeUnretainedValue()
  }

  static func now() -> UInt64 { MonotonicClock.nanoseconds() }
}

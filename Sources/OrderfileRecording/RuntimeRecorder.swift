import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Runs a program linked with the runtime once, with the runtime's environment set, and
/// collects its trace.
///
/// The runtime writes to a private scratch directory with the pid in each
/// file name, so a program that forks or executes other instrumented programs
/// cannot overwrite its own trace; a process that executes itself keeps the
/// trace of each image (the runtime numbers the later ones). The program's
/// trace is then moved into place in one rename.
public struct RuntimeRecorder: Recorder {
  /// More variables for the program (the in-process recorder's preload and plan).
  public var environment: [String: String] = [:]
  /// Appended to the scratch directory's name: a second recording by this process (a timing
  /// launch) writes where a process the first one left running cannot.
  public var scratchTag = ""
  /// SIGTERM, SIGHUP or SIGINT to this process while the program runs are passed on to it
  /// and the traces so far kept (`TerminationSignals`); for a command-line tool.
  public var passesTerminationSignals = false
  /// The window's closing by the program itself ends its launch too (`--until`, which the
  /// in-process recorder closes it for); without it only the time limit does, and an
  /// instrumented program that calls `orderfile_startup_complete()` runs on to its exit.
  public var windowCloseEndsLaunch = false

  public init() {}

  /// Runs the request's program; of recording without a rebuild's options it reads none.
  public func record(_ request: RecordingRequest) throws -> Recording {
    let (output, program, arguments) = (request.output, request.program, request.arguments)
    let (timeLimitMilliseconds, emulator) = (request.timeLimitMilliseconds, request.emulator)
    try TraceDestination.check(output)
    if emulator == nil { try RecordingError.checkMachine(of: ProcessRunner.resolve(program), program: program) }
    Self.removeStaleScratch(in: PathName.directory(of: output))
    // Absolute: the runtime expands ORDERFILE_OUTPUT in the directory it starts in, which a
    // launcher may have changed before it execs the program.
    let scratch =
      PathName.absolute(PathName.directory(of: output)) + "/" + Self.scratchPrefix + "\(getpid())" + scratchTag
    do {
      try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    } catch {
      throw RecordingError.scratch(message: error.localizedDescription)
    }
    defer { try? FileManager.default.removeItem(atPath: scratch) }

    var environment = self.environment
    environment["ORDERFILE_OUTPUT"] = scratch + "/trace.%p"
    environment["ORDERFILE_DISABLE"] = "0"
    if let timeLimitMilliseconds { environment["ORDERFILE_TIME_LIMIT_MS"] = String(timeLimitMilliseconds) }
    if let capacity = request.capacity { environment["ORDERFILE_CAPACITY"] = String(capacity) }
    // The trace then says its times are the emulator's (OFT_FLAG_EMULATED), also when the
    // program named is qemu-user itself with the program after it.
    if emulator != nil || Emulator(command: [program]).isQemu { environment["ORDERFILE_EMULATED"] = "1" }

    let executable = ProcessRunner.resolve(program)
    let forwarding = passesTerminationSignals ? TerminationSignals.forward() : nil
    defer { forwarding?.stop() }
    let started: (pid_t) -> Void = { forwarding?.target($0) }
    let watch =
      timeLimitMilliseconds != nil || windowCloseEndsLaunch
      ? LaunchWatch(scratch: scratch, timeLimitMilliseconds: timeLimitMilliseconds) : nil
    let (pid, exit): (pid_t, ProgramExit)
    if let emulator {
      // qemu-user emulates the program in its own process: the runtime names the trace
      // after the emulator's pid, as it would after the program's on the device.
      let (words, variables) = emulator.invocation(program: executable, arguments: arguments, environment: environment)
      (pid, exit) = try Self.spawnAndWait(
        ProcessRunner.resolve(emulator.command[0]), arguments: words, environment: variables,
        program: emulator.command[0], afterLaunch: request.afterLaunch, watch: watch, started: started)
    } else {
      (pid, exit) = try Self.spawnAndWait(
        executable, arguments: arguments, environment: environment, program: program, afterLaunch: request.afterLaunch,
        watch: watch, started: started)
    }
    let status = exit.status

    let own = scratch + "/trace.\(pid)"
    guard FileManager.default.fileExists(atPath: own) else {
      let instrumented = Self.instrumentedWithoutRuntime(executable)
      if !instrumented.isEmpty {
        throw RecordingError.runtimeNotLoaded(program: program, status: status, instrumented: instrumented)
      }
      throw RecordingError.noTrace(program: program, status: status)
    }
    if exit.endedAfterLaunch {
      // Ended, none of the processes writes its trace any more: each is cut after its records.
      let traces = ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter {
        $0.hasPrefix("trace.")
      }
      for name in traces { try? LiveTraceWindow.trimToRecords(path: scratch + "/" + name) }
    }
    if exit.endedAfterLaunch, let timeLimitMilliseconds {
      // Ended at its time limit while idle: no first call came after the deadline for the
      // runtime to close the window with, so the trace says it here.
      try LiveTraceWindow.closeAtTimeLimit(path: own, limit: UInt64(timeLimitMilliseconds) * 1_000_000)
    }
    try moveIntoPlace(own, output)
    let ownTrace = try? TraceReader.read(path: output)
    var children: [String] = []
    var images: [(number: Int, path: String)] = []
    let others = (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []
    for name in others.sorted() where name.hasPrefix("trace.") {
      if Recording.removeIfNothingOfTheProgram(scratch + "/" + name, beside: ownTrace) { continue }
      let destination = output + "." + name.dropFirst("trace.".count)
      try moveIntoPlace(scratch + "/" + name, destination)
      // The runtime names the trace of a process's later image "<its trace>.exec<n>".
      if let range = name.range(of: ".exec", options: .backwards), let number = Int(name[range.upperBound...]) {
        images.append((number, destination))
      } else {
        children.append(destination)
      }
    }
    // A launcher (a shell that runs something, then execs the program) recorded nothing in
    // its own image: the process's last image, the program's, is the trace asked for, as
    // the tracer writes it.
    let ownImages = images.filter { $0.path.hasPrefix(output + ".\(pid).exec") }
    if ownTrace?.records.isEmpty == true, let last = ownImages.max(by: { $0.number < $1.number }) {
      try moveIntoPlace(last.path, output)
      images.removeAll { $0.path == last.path }
    }
    Recording.removeEarlierSiblings(of: output, keeping: children + images.map(\.path))
    var recording = Recording(
      status: status, tracePath: output, childTraces: children,
      execTraces: images.sorted { ($0.number, $0.path) < ($1.number, $1.path) }.map(\.path))
    recording.endedAfterLaunch = exit.endedAfterLaunch
    if let signal = forwarding?.received {
      recording.interruptedBy = signal
      // The runtime could not know why the program ended: the trace says the user stopped it.
      do { try TraceWindowMark.markStoppedBySignal(path: output) } catch {
        recording.warnings.append("\(error.localizedDescription): the trace does not say it was stopped by a signal")
      }
      recording.warnings.append(
        Recording.stopMessage(signal: signal, endedByIt: status == 128 + signal, status: status))
    }
    return recording
  }

  /// Starts the program with `environment` over this process's own, telling it the spawn
  /// time (`ORDERFILE_SPAWN`, the clock read right before the spawn), and waits for it,
  /// ending it once `watch` sees its launch over, as `afterLaunch` says.
  /// Returns its pid and how it ended.
  static func spawnAndWait(
    _ executable: String, arguments: [String], environment: [String: String], program: String,
    afterLaunch: AfterLaunch = .waitForExit, watch: LaunchWatch? = nil, started: (pid_t) -> Void = { _ in }
  ) throws -> (pid: pid_t, exit: ProgramExit) {
    // The spawn time is the last variable, filled in just before the spawn.
    let entries = ChildProcess.environment(adding: environment).filter { !$0.hasPrefix("ORDERFILE_SPAWN=") }
    var spawned: UInt64 = 0
    let child = try ChildProcess.spawn(
      executable, arguments: [program] + arguments, environment: entries, program: program,
      lastVariable: {
        spawned = MonotonicClock.nanoseconds()
        return "ORDERFILE_SPAWN=\(getpid()):\(spawned)"
      })
    started(child.pid)
    let over = watch.map { watch in { watch.isOver(pid: child.pid, spawned: spawned) } }
    return (child.pid, ProgramEnding.wait(for: child.pid, afterLaunch: afterLaunch, launchOver: over))
  }

  /// The program's binaries that call the recording hooks, when the runtime is not among
  /// the libraries the loader resolves for it (nor preloaded); empty otherwise, or when
  /// that cannot be told.
  static func instrumentedWithoutRuntime(_ path: String) -> [String] {
    let preload = ProcessInfo.processInfo.environment["LD_PRELOAD"] ?? ""
    guard !preload.contains("libOrderfileRuntime"), let libraries = LinkedLibraries.of(path) else { return [] }
    guard !libraries.contains(where: { $0.contains("libOrderfileRuntime") }) else { return [] }
    // glibc defines the no-op hooks: it mentions them without calling them.
    let candidates = [path] + libraries.filter { !PathName.base(of: $0).hasPrefix("libc.so") }
    return candidates.filter { (try? BinaryLocator.isInstrumented(fileAt: $0)) == true }
  }

  private func moveIntoPlace(_ source: String, _ destination: String) throws {
    guard rename(source, destination) == 0 else {
      throw SupportError.writing("rename", path: destination)
    }
  }
}

/// Tells, from the header of the program's own trace, whether its launch window is over.
struct LaunchWatch {
  /// Where the runtime writes `trace.<pid>`.
  var scratch: String
  var timeLimitMilliseconds: Int?

  func isOver(pid: pid_t, spawned: UInt64) -> Bool {
    let window = LiveTraceWindow.read(path: scratch + "/trace.\(pid)")
    if window?.closed == true { return true }
    guard let timeLimitMilliseconds else { return false }
    let limit = UInt64(timeLimitMilliseconds) * 1_000_000
    // Before the runtime has written its header the program's clock cannot be read: the
    // in-process recorder may still be arming, which the limit leaves out. A program that
    // never starts the runtime (a wrapper that runs the real one as a child) is given
    // `headerSlack` more on the wall clock.
    return (window ?? LiveTraceWindow(closed: false, processStart: spawned, recorderNanoseconds: Self.headerSlack))
      .isPast(limit: limit, now: MonotonicClock.nanoseconds())
  }

  static let headerSlack: UInt64 = 5_000_000_000
}

extension RuntimeRecorder {
  static let scratchPrefix = ".orderfile-record-"

  /// Removes the scratch directories of earlier recordings that were killed before they
  /// could (`.orderfile-record-<pid>` of a pid no process has any more): the program went
  /// on writing its trace there after `record` died. A live pid's is left alone.
  static func removeStaleScratch(in directory: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names where name.hasPrefix(scratchPrefix) {
      // `.orderfile-record-<pid>`, or `<pid>-<tag>` (`scratchTag`).
      guard let pid = pid_t(name.dropFirst(scratchPrefix.count).prefix { $0.isASCII && $0.isNumber }), pid > 0,
        pid != getpid(),
        kill(pid, 0) != 0, errno == ESRCH
      else { continue }
      let path = directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { continue }
      try? FileManager.default.removeItem(atPath: path)
    }
  }
}

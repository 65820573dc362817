import ArgumentParser
import Foundation
import OrderfileRecording
import OrderfileSymbolization
import OrderfileSupport
import OrderfileTrace

struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Run a program once and save the trace of its launch.",
    discussion: """
      Two ways to record, one trace format:

      Without a rebuild (--no-rebuild, the default for a program with no
      instrumentation): the release binary itself runs under a tracer that
      puts a one-byte breakpoint on the entry of every function of the
      program's own files and removes each on its first hit. Any language
      with a symbol table works; system libraries are left alone unless
      --system-libraries is given. Needs ptrace.

      Instrumented (--instrumented, the default when the executable calls
      the recording hooks): the program is built with the flags from
      'orderfile flags --instrument' and the runtime records it.

      The mode is chosen from the program named after '--'. When that is a
      wrapper (a shell that execs the program), say which mode you want.

      The program runs with this terminal's stdin, stdout and stderr, and its
      exit status becomes this command's. Traces of processes it forks are
      saved beside the main one as <trace>.<pid>; without a rebuild, an image
      a process replaced by exec is saved as <trace>.<pid>.<n>.

      Example:
        orderfile record -o launch.trace -- ./app --open example.doc
        orderfile record -o launch.trace --until 'App::firstFrameDrawn' -- ./app
        orderfile record -o launch.trace --time-limit 2000 -- ./server --port 8080
        for i in 1 2 3; do orderfile record -q -o run$i.trace -- ./app; done
      """
  )

  @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the trace.", valueName: "trace"))
  var output: String

  @Option(help: ArgumentHelp("End the launch window this many milliseconds after process start, for programs that never call orderfile_startup_complete().", valueName: "ms"))
  var timeLimit: Int?

  @Option(help: ArgumentHelp("Record at most this many distinct functions.", valueName: "count"))
  var capacity: Int?

  @Flag(help: "Record the unmodified release binary with first-entry breakpoints (the default unless the executable is instrumented).")
  var noRebuild = false

  @Flag(help: "Record with the runtime of an instrumented build.")
  var instrumented = false

  @Option(help: ArgumentHelp("Without a rebuild: end the launch window at the first call of this function (linkage or demangled name; repeatable).", valueName: "function"))
  var until: [String] = []

  @Flag(help: "Without a rebuild: record system libraries (libc, libstdc++) too.")
  var systemLibraries = false

  @Flag(name: .shortAndLong, help: "Print only warnings and errors, not the summary of what was recorded.")
  var quiet = false

  @Argument(parsing: .captureForPassthrough, help: "The program and its arguments, after '--'.")
  var command: [String] = []

  func validate() throws {
    if let timeLimit, timeLimit <= 0 { throw ValidationError("--time-limit must be a positive number of milliseconds") }
    if let capacity, capacity < 1024 { throw ValidationError("--capacity must be at least 1024") }
    if program == nil { throw ValidationError("give the program to run after '--', e.g. orderfile record -o launch.trace -- ./app") }
    if noRebuild && instrumented { throw ValidationError("give at most one of --no-rebuild and --instrumented") }
    if instrumented && (!until.isEmpty || systemLibraries) {
      throw ValidationError("--until and --system-libraries record without a rebuild; an instrumented program ends its window with orderfile_startup_complete()")
    }
    if until.contains(where: { $0.isEmpty }) { throw ValidationError("--until needs a function name") }
  }

  var program: String? {
    let words = command.first == "--" ? Array(command.dropFirst()) : command
    return words.first
  }

  func run() throws {
    try reportingErrors {
      let words = command.first == "--" ? Array(command.dropFirst()) : command
      guard let program = words.first else { throw ValidationError("no program given") }
      if try usesBreakpoints(program) {
        try recordWithoutRebuild(program: program, arguments: Array(words.dropFirst()))
        return
      }
      let recorder = LaunchRecorder(output: output, timeLimitMilliseconds: timeLimit, capacity: capacity)
      let recording = try recorder.record(program: program, arguments: Array(words.dropFirst()))
      let trace = try TraceReader.read(path: recording.tracePath)
      if !quiet {
        Diagnostics.note(
          "recorded \(trace.launchRecords.count) launch functions (\(trace.records.count - trace.launchRecords.count) after the window) in \(trace.modules.count) modules to \(recording.tracePath)"
        )
        for child in recording.childTraces { Diagnostics.note("a forked child's trace: \(child)") }
      }
      if trace.header.droppedCount > 0 {
        Diagnostics.warning("\(trace.header.droppedCount) first calls were dropped: raise --capacity")
      }
      if recording.status != 0 {
        Diagnostics.warning("\(program) exited with status \(recording.status)")
        throw ExitCode(recording.status)
      }
    }
  }

  /// --no-rebuild, --instrumented, or else whether the executable calls the recording hooks.
  private func usesBreakpoints(_ program: String) throws -> Bool {
    if noRebuild || !until.isEmpty || systemLibraries { return true }
    if instrumented { return false }
    let path = ProcessRunner.resolve(program)
    guard FileManager.default.isExecutableFile(atPath: path) else { return false }
    return !(try BinaryLocator.isInstrumented(fileAt: path))
  }

  private func recordWithoutRebuild(program: String, arguments: [String]) throws {
    let recorder = BreakpointRecorder(
      output: output, timeLimitMilliseconds: timeLimit, untilFunctions: until,
      includeSystemLibraries: systemLibraries)
    let summary = try recorder.record(program: program, arguments: arguments) { Diagnostics.warning($0) }
    let recording = summary.recording
    let trace = try TraceReader.read(path: recording.tracePath)
    if !quiet {
      Diagnostics.note(
        "recorded \(trace.launchRecords.count) launch functions (\(trace.records.count - trace.launchRecords.count) after the window) in \(trace.modules.count) modules to \(recording.tracePath), without a rebuild (\(summary.armed) breakpoints, armed in \(String(format: "%.1f", summary.armingMilliseconds)) ms)"
      )
      for child in recording.childTraces { Diagnostics.note("another process image's trace: \(child)") }
      if !summary.skippedSystemLibraries.isEmpty {
        Diagnostics.note("\(summary.skippedSystemLibraries.count) system libraries not recorded (--system-libraries records them)")
      }
    }
    for name in summary.unmatchedUntil {
      Diagnostics.warning("--until '\(name)' named no function of the recorded modules; the window ended at exit")
    }
    if recording.status != 0 {
      Diagnostics.warning("\(program) exited with status \(recording.status)")
      throw ExitCode(recording.status)
    }
  }
}

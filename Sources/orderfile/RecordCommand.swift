import ArgumentParser
import OrderfileCommands

struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Run a program once and save the trace of its launch.",
    discussion: """
      Two ways to record, one trace format:

      Without a rebuild (--no-rebuild, the default for a program with no
      instrumentation): the release binary itself runs with a one-byte trap
      on the entry of every function of the program's own files, each
      removed on its first hit. A preloaded library does that inside the
      program (--recorder in-process, the default for a dynamically linked
      program); the ptrace tracer does it from outside (--recorder tracer,
      for static and setuid programs). Any language with a symbol table
      works; system libraries are left alone unless --system-libraries is
      given. See Docs/RecordingWithoutRebuild.md.

      Instrumented (--instrumented, the default when the executable calls
      the recording hooks): the program is built with the flags from
      'orderfile flags --instrument' and the runtime records it.

      A program built for another machine (an arm64 build on an x86-64 host)
      runs under the emulator given with --emulator, and is recorded from
      inside: without a rebuild by the in-process recorder built for its
      machine (lib/<triple>/libOrderfileInProcess.so beside the tool's
      libraries, where 'Scripts/install --target <triple>' puts it), or by
      the runtime an instrumented build links. Its libraries are planned as
      the emulated loader finds them (qemu's -L sysroot or QEMU_LD_PREFIX,
      the program's run paths). The tracer cannot record there: ptrace sees
      the emulator, not the program.

      The mode is chosen from the program named after '--'. When that is a
      wrapper (a shell that execs the program), say which mode you want.

      The launch ends at the first call of an --until function, or --time-limit
      milliseconds after the start. A program still running then (an app or a
      server never exits by itself) is ended, with every process it started:
      SIGTERM first, SIGKILL to what is left 2 s later; the command then exits
      0. --wait-for-exit leaves it running and waits for it to exit by itself.
      Without either, the launch ends when the program exits.

      The program runs with this terminal's stdin, stdout and stderr, and its
      exit status becomes this command's. Without a rebuild, SIGTERM, SIGHUP
      or SIGINT sent to this command end the recording, never the program by
      force: it is let go and sent the signal, the traces so far are kept, and
      the command exits 128 + the signal. Traces of processes it forks are
      saved beside the main one as <trace>.<pid>; without a rebuild, an image
      a process replaced by exec is saved as <trace>.<pid>.<n>.

      Example:
        orderfile record -o launch.trace -- ./app --open example.doc
        orderfile record -o launch.trace --until 'App::firstFrameDrawn' -- ./app
        orderfile record -o launch.trace --time-limit 2000 -- ./server --port 8080
        orderfile record -o launch.trace \\
          --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' -- ./app-arm64
        for i in 1 2 3; do orderfile record -q -o run$i.trace -- ./app; done
      """
  )

  @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the trace.", valueName: "trace"))
  var output: String

  @OptionGroup var launch: LaunchOptions<Self>

  @Option(help: ArgumentHelp("Instrumented: record at most this many distinct functions.", valueName: "count"))
  var capacity: Int?

  /// `--no-rebuild` or `--instrumented`; more than one is refused in `validate()`.
  @Flag var modes: [RecordingMode] = []

  @Flag(
    help:
      "Without a rebuild: record system libraries (libc, libstdc++) too; those with only dynamic symbols are named in one warning line."
  )
  var systemLibraries = false

  @Flag(
    help:
      "Without a rebuild, in-process: also record the first touch of each page of the program's read-only data (.rodata, .data.rel.ro), for 'generate' to place the launch's data."
  )
  var data = false

  @Option(
    name: .customLong("include-module"),
    help: ArgumentHelp(
      "Without a rebuild: also record this library, by a file name it goes by (libfoo.so, its SONAME libgdk-3.so.0, its real file's name), by any path to its file, or by a folder it lies in; for system and toolchain libraries (repeatable).",
      valueName: "name-or-path"))
  var includeModules: [String] = []

  @Option(
    name: .customLong("exclude-module"),
    help: ArgumentHelp(
      "Without a rebuild: do not record this library, by a file name it goes by, a path to its file or a folder it lies in (repeatable).",
      valueName: "name-or-path"))
  var excludeModules: [String] = []

  @Option(
    name: .customLong("recorder"),
    help: ArgumentHelp(
      "Without a rebuild: 'in-process' (a preloaded library traps first calls inside the program), 'tracer' (ptrace), or 'auto': in-process unless the program is static or setuid.",
      valueName: "auto|in-process|tracer"))
  var recorderMethod: NoRebuildMethod = .automatic

  @OptionGroup var emulator: EmulatorOptions

  @Flag(
    help:
      "Without a rebuild, in-process: run the command a second time, trapping only the functions that mark its phases (each process's first call and main), and save it as <trace>.timing; 'report' then shows that launch's times, closer to the uninstrumented program's than a recording's with its recorder's time taken out. The command must do the same thing twice."
  )
  var timingLaunch = false

  @Flag(
    help:
      "Leave the program running once the launch window has closed (--until, --time-limit) and wait for it to exit by itself; by default it is ended."
  )
  var waitForExit = false

  @Flag(
    help:
      "Without a rebuild: plan from the program's files, not from the plans kept in the user's cache ($ORDERFILE_CACHE_DIR, else $XDG_CACHE_HOME/orderfile or ~/.cache/orderfile), and keep none."
  )
  var noPlanCache = false

  @Flag(name: .shortAndLong, help: "Print only warnings and errors, not the summary of what was recorded.")
  var quiet = false

  var words: [String] { launch.words }
  var until: [String] { launch.until }

  func validate() throws {
    if let capacity, capacity < 1024 { throw ValidationError("--capacity must be at least 1024") }
    if words.isEmpty {
      throw ValidationError("give the program to run after '--', e.g. orderfile record -o launch.trace -- ./app")
    }
    if Set(modes).count > 1 { throw ValidationError("give at most one of --no-rebuild and --instrumented") }
    let mode = modes.last
    if mode == .instrumented
      && (!until.isEmpty || systemLibraries || data || !includeModules.isEmpty || !excludeModules.isEmpty)
    {
      throw ValidationError(
        "--until, --system-libraries, --data, --include-module and --exclude-module record without a rebuild; an instrumented program ends its window with orderfile_startup_complete()"
      )
    }
    if mode == .instrumented && noPlanCache {
      throw ValidationError("--no-plan-cache is for recording without a rebuild: an instrumented build plans nothing")
    }
    if data && recorderMethod == .tracer {
      throw ValidationError("--data records in-process: give --recorder in-process or auto")
    }
    if timingLaunch && (recorderMethod == .tracer || mode == .instrumented) {
      throw ValidationError(
        "--timing-launch records in-process: give --recorder in-process or auto, without --instrumented")
    }
    if mode == .noRebuild && capacity != nil {
      throw ValidationError("--capacity is for --instrumented: without a rebuild every function is recorded")
    }
    if includeModules.contains(where: \.isEmpty) || excludeModules.contains(where: \.isEmpty) {
      throw ValidationError("--include-module and --exclude-module need a file name or a path")
    }
  }

  func run() throws {
    try Terminal.run {
      try RecordRequest(
        RecordingRequest(
          output: output, program: words[0], arguments: Array(words.dropFirst()), mode: modes.last,
          timeLimitMilliseconds: launch.timeLimit, afterLaunch: waitForExit ? .waitForExit : .end,
          emulator: emulator.emulator, capacity: capacity, until: until, includeSystemLibraries: systemLibraries,
          modules: .init(include: includeModules, exclude: excludeModules), method: recorderMethod,
          recordsData: data, planCache: noPlanCache ? .disabled : .userDefault(), timingLaunch: timingLaunch),
        quiet: quiet
      ).run()
    }
  }
}

extension RecordCommand: EndsAtFunction {
  static let timeLimitHelp =
    "End the launch window this many milliseconds after process start, for programs that never call orderfile_startup_complete()."
  static let untilHelp =
    "Without a rebuild: end the launch window at the first call of this function (linkage or demangled name; repeatable)."
  static let programHelp = "The program and its arguments, after '--'."
  static let programParsing = ArgumentArrayParsingStrategy.captureForPassthrough
}

extension NoRebuildMethod: ExpressibleByArgument {}

extension RecordingMode: EnumerableFlag {
  public static func help(for value: RecordingMode) -> ArgumentHelp? {
    switch value {
    case .noRebuild:
      "Record the unmodified release binary with first-entry breakpoints (the default unless the executable is instrumented)."
    case .instrumented: "Record with the runtime of an instrumented build."
    }
  }
}

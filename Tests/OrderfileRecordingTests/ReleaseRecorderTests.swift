import Foundation
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A recorder of the release binary, as the tests below run it: each behaviour they state
/// holds for every one of them.
enum ReleaseRecorder: String, CaseIterable, CustomTestStringConvertible {
  /// The ptrace tracer (`TracerRecorder`).
  case tracer
  /// The preloaded library (`InProcessRecorder`), on this machine.
  case inProcess
  /// The preloaded library built for arm64, the program under qemu-user (`record --emulator`).
  case inProcessArm64

  var testDescription: String {
    switch self {
    case .tracer: "tracer"
    case .inProcess: "in-process"
    case .inProcessArm64: "in-process, arm64 under qemu-user"
    }
  }

  /// The in-process recorder Scripts/build-runtime builds beside the tool.
  static let library = PackagePaths.binaryDirectory + "/" + InProcessRecorder.libraryName

  /// Why this recorder cannot run here, or nil.
  var unavailable: String? {
    switch self {
    case .tracer: nil
    case .inProcess:
      FileManager.default.fileExists(atPath: Self.library)
        ? nil : "needs Scripts/build-runtime's \(InProcessRecorder.libraryName)"
    case .inProcessArm64: Arm64.available ? nil : Arm64.skipReason
    }
  }

  /// Ends the test with the reason when this recorder cannot run here: never a silent pass.
  func requireAvailable() throws {
    if let unavailable { try Test.cancel(Comment(rawValue: "\(testDescription): \(unavailable)")) }
  }

  /// Compiles fixtures of Tests/Fixtures/breakpoints for the recorder's machine.
  func build(_ sources: [String], in work: TemporaryDirectory, flags: [String] = [], output: String) throws -> String {
    guard self == .inProcessArm64 else {
      return try buildBreakpointFixture(sources, in: work, flags: flags, output: output)
    }
    let (cc, cross) = Arm64.compiler("clang")
    let binary = work.file(output)
    let fixtures = PackagePaths.fixtures + "/breakpoints/"
    try runChecked(cc, cross + ["-O2", "-g"] + flags + sources.map { fixtures + $0 } + ["-o", binary])
    return binary
  }

  /// Runs `binary` alone, as it runs without a recorder.
  func run(_ binary: String, _ arguments: [String] = []) throws -> ProcessResult {
    self == .inProcessArm64 ? try Arm64.run(binary, arguments) : try runChecked(binary, arguments)
  }

  /// What a recording left: the program's status and standard output, its own trace, the
  /// recording (nil when made through the command line), and the tracer's count of threads
  /// that met at an entry (nil for the others).
  struct Recorded {
    var status: Int32
    var output: String
    var trace: String
    var recording: Recording?
    var races: UInt64?
  }

  /// Records `binary` to `output`, following it past its window (LaunchEndCLITests has it
  /// ended there). On this machine a shell that sends the program's standard output to a
  /// file execs it: the program is an image the recorder meets after the start.
  func record(_ binary: String, _ arguments: [String] = [], output: String, in work: TemporaryDirectory) throws
    -> Recorded
  {
    if self == .inProcessArm64 {
      let runtime = try Arm64.runtimeDirectory(compiler: "clang")
      let emulator = "\(Arm64.qemu) -cpu max -L \(Arm64.sysroot)"
      let result = try ProcessRunner.run(
        PackagePaths.orderfileExecutable,
        ["record", "--emulator", emulator, "--wait-for-exit", "-o", output, "--", binary] + arguments,
        environment: ["ORDERFILE_RUNTIME_DIR": runtime])
      #expect(result.standardError.contains("in-process"), "\(result.standardError)")
      return Recorded(status: result.status, output: result.standardOutput, trace: output)
    }
    let programOutput = output + ".out"
    let request = RecordingRequest(
      output: output, program: "/bin/sh",
      arguments: ["-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", programOutput, binary] + arguments,
      afterLaunch: .waitForExit)
    let recording: Recording
    var races: UInt64?
    if self == .tracer {
      let summary = try TracerRecorder().run(request) { _ in }
      (recording, races) = (summary.recording, summary.races)
    } else {
      recording = try InProcessRecorder(library: Self.library).record(request)
    }
    return Recorded(
      status: recording.status, output: try FileReading.text(atPath: programOutput), trace: recording.tracePath,
      recording: recording, races: races)
  }
}

@Suite("Recording the release binary, the same with every recorder", .serialized)
struct ReleaseRecorderTests {
  @Test("a library loaded with dlopen is armed before its constructor runs", arguments: ReleaseRecorder.allCases)
  func dlopenedLibrary(recorder: ReleaseRecorder) throws {
    try recorder.requireAvailable()
    let work = try TemporaryDirectory("orderfile-release-dlopen")
    defer { work.remove() }
    let plugin = try recorder.build(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    let host = try recorder.build(["host.c"], in: work, flags: ["-ldl"], output: "host")
    let recorded = try recorder.record(host, [plugin], output: work.file("launch.trace"), in: work)
    #expect(recorded.status == 0)
    #expect(recorded.output == "host 44\n")
    let read = try TraceReader.read(path: recorded.trace)
    let pluginCalls = try names(in: read, module: "/plugin.so")
    #expect(
      pluginCalls.filter { $0.hasPrefix("plugin_") } == ["plugin_constructor", "plugin_setup", "plugin_entry"],
      "\(pluginCalls)")
    let hostCalls = try names(in: read, module: "/host")
    let before = try #require(hostCalls.firstIndex(of: "before_load"), "\(hostCalls)")
    let after = try #require(hostCalls.firstIndex(of: "after_load"), "\(hostCalls)")
    #expect(before < after)
    // One first-call order across modules: the plugin's calls come after the host's first.
    let pluginIndex = try #require(read.modules.first { $0.path.hasSuffix("/plugin.so") }?.index)
    #expect(try #require(read.records.map(\.module).firstIndex(of: pluginIndex)) > 0)
  }

  @Test(
    "eight threads racing to each of 1,000 first calls: each recorded once, in the rounds' order; every call runs its body, no thread dies",
    arguments: ReleaseRecorder.allCases)
  func racingThreads(recorder: ReleaseRecorder) throws {
    try recorder.requireAvailable()
    let work = try TemporaryDirectory("orderfile-release-race")
    defer { work.remove() }
    // Frame pointers: every function starts with the one-byte push %rbp on x86-64, so a
    // thread sent on at an entry's second byte skips it and dies of SIGSEGV at its return.
    let binary = try recorder.build(
      ["race.c"], in: work, flags: ["-pthread", "-fno-omit-frame-pointer"], output: "race")
    let expected = try recorder.run(binary).standardOutput
    #expect(expected.hasPrefix("race 1000 functions ran 8 times each "), "\(expected)")
    // Eight threads leave each of 1,000 rounds together, so threads on different cores reach
    // one armed entry at once. Two cores do not always let them meet: the tracer, which
    // counts the meetings, tries a few times to see one.
    var races: UInt64 = 0
    let attempts = recorder == .tracer ? 5 : 2
    for attempt in 0..<attempts where recorder != .tracer || races == 0 {
      let recorded = try recorder.record(binary, output: work.file("race\(attempt).trace"), in: work)
      // A thread that lost the claim and was not sent back to the entry dies (status 139);
      // a call lost or run twice shows in the program's own counts.
      #expect(recorded.status == 0)
      #expect(recorded.output == expected)
      let called = try names(in: try TraceReader.read(path: recorded.trace), module: "/race").filter {
        $0.hasPrefix("f") && Int($0.dropFirst()) != nil
      }
      let twice = Dictionary(grouping: called, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
      #expect(twice.isEmpty, "recorded more than once: \(twice.count) functions, \(twice.prefix(10))")
      #expect(called == (1000..<2000).map { "f\($0)" }, "\(Set(called).count) of 1000 functions, the rounds' order")
      races += recorded.races ?? 0
    }
    if recorder == .tracer { #expect(races > 0, "no two threads ever met at an entry: the test proved nothing") }
  }

  @Test(
    "threads that block every signal are recorded, and the program runs to its end",
    arguments: [ReleaseRecorder.tracer, .inProcess])
  func blockedSignals(recorder: ReleaseRecorder) throws {
    try recorder.requireAvailable()
    let work = try TemporaryDirectory("orderfile-release-blocked")
    defer { work.remove() }
    let binary = try recorder.build(["blocked.c"], in: work, flags: ["-pthread"], output: "blocked")
    let recorded = try recorder.record(binary, output: work.file("launch.trace"), in: work)
    #expect(recorded.status == 0)
    #expect(recorded.output == "blocked 10 15\n")
    let read = try TraceReader.read(path: recorded.trace)
    let called = try calls(in: read, module: "/blocked")
    let inThread = try #require(called.first { $0.name == "in_thread" }?.call)
    let inMain = try #require(called.first { $0.name == "in_main" }?.call)
    #expect(inThread.threadID != read.header.pid, "in_thread ran on its own thread")
    #expect(inMain.threadID == read.header.pid)
  }

  @Test(
    "fork gives the child its own trace; exec starts a new trace of the same pid",
    arguments: [ReleaseRecorder.tracer, .inProcess])
  func forkAndExec(recorder: ReleaseRecorder) throws {
    try recorder.requireAvailable()
    let work = try TemporaryDirectory("orderfile-release-lineage")
    defer { work.remove() }
    let binary = try recorder.build(["lineage.c"], in: work, output: "lineage")
    let trace = work.file("launch.trace")
    let recorded = try recorder.record(binary, output: trace, in: work)
    let recording = try #require(recorded.recording)
    #expect(recorded.status == 0)
    #expect(recorded.output == "child said 4, parent 5\nsecond image 5\n")
    // The program's final image is the main trace; the shell's image before it ran none of
    // the program's code and is not kept.
    let final = try TraceReader.read(path: trace)
    #expect(try names(in: final, module: "/lineage").contains("second_image"))
    #expect(try !names(in: final, module: "/lineage").contains("first_image"))
    // The image exec replaced, named as the runtime names a process's images:
    // <trace>.<pid>.exec1 (exec0 would be the shell's).
    #expect(recording.execTraces == [trace + ".\(final.header.pid).exec1"], "\(recording.execTraces)")
    let firstImage = try names(in: try TraceReader.read(path: recording.execTraces[0]), module: "/lineage")
    #expect(firstImage.contains("first_image") && firstImage.contains("parent_after_fork"), "\(firstImage)")
    #expect(!firstImage.contains("child_only"))
    // The forked child: its parent's calls, then its own.
    #expect(recording.childTraces.count == 1, "\(recording.childTraces)")
    let childPath = try #require(recording.childTraces.first)
    let child = try TraceReader.read(path: childPath)
    #expect(child.header.parentPID == final.header.pid)
    let own = try names(in: child, module: "/lineage")[(child.header.forkRecordIndex ?? 0)...]
    #expect(own.contains("child_only"), "\(own)")
    #expect(!own.contains("first_image"))

    // A second recording replaces the whole set: a child trace of an earlier run that this
    // one does not write goes; a file that is not a trace stays.
    let stale = trace + ".99999"
    try FileManager.default.copyItem(atPath: childPath, toPath: stale)
    try AtomicFile.write("notes\n", to: trace + ".12345")
    _ = try recorder.record(binary, output: trace, in: work)
    #expect(!FileManager.default.fileExists(atPath: stale))
    #expect(FileManager.default.fileExists(atPath: trace + ".12345"))
  }
}

import Foundation
import OrderfileBuild
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

@testable import OrderfileCommands

/// A recorder that writes a made-up trace instead of running anything.
private struct FakeRecorder: Recorder {
  var output: String
  var status: Int32
  var dropped: UInt64 = 0
  var notes: [String] = []
  var warnings: [String] = []

  func record(_ request: RecordingRequest) throws -> Recording {
    let program = request.program
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: 7, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 1, processStartNanoseconds: 100, processStartResolutionNanoseconds: 1,
      traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: dropped, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
    let module = TraceModule(
      index: 0, path: program, buildID: [], loadBase: 0, textRange: 0..<0x1000, isMainExecutable: true)
    let records = [
      FirstCall(module: 0, address: 0x10, timeNanoseconds: 300, threadID: 7, phase: .launch),
      FirstCall(module: 0, address: 0x20, timeNanoseconds: 950, threadID: 7, phase: .postWindow),
    ]
    try AtomicFile.write(
      TraceEncoder.encode(Trace(path: output, header: header, modules: [module], records: records)), to: output)
    return Recording(
      status: status, tracePath: output, childTraces: [output + ".8"], notes: notes, warnings: warnings)
  }
}

@Suite("Commands as requests")
struct RequestTests {
  @Test("record sums up the trace, warns about drops and ends with the program's own status")
  func record() throws {
    let directory = try TemporaryDirectory()
    let trace = directory.file("launch.trace")
    let output = try RecordRequest(RecordingRequest(output: trace, program: "./app")).run(
      with: FakeRecorder(
        output: trace, status: 3, dropped: 2, notes: ["recorded without a rebuild"],
        warnings: ["./lib.so has no symbol table"]))
    #expect(output.standardOutput.isEmpty)
    #expect(
      output.standardError == """
        orderfile: recorded 1 launch function (1 after the window) in 1 module to \(trace)
        orderfile: another process's trace: \(trace).8
        orderfile: recorded without a rebuild
        orderfile: warning: ./lib.so has no symbol table
        orderfile: warning: 2 first calls were dropped: raise --capacity
        orderfile: warning: ./app exited with status 3

        """)
    #expect(output.status == ExitStatus(rawValue: 3))
    let quiet = try RecordRequest(RecordingRequest(output: trace, program: "./app"), quiet: true).run(
      with: FakeRecorder(output: trace, status: 0))
    #expect(quiet.writes.isEmpty)
    #expect(quiet.status == .success)
  }

  @Test("record picks its recorder from the mode asked for, the program, and the options given")
  func recorderChoice() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let trace = directory.file("launch.trace")
    // record's chooser passes the user's signals on and looks for the in-process recorder.
    let chooser = RecordRequest(RecordingRequest(output: trace, program: "/bin/true")).chooser
    #expect(chooser.passesTerminationSignals)
    #expect(try chooser.inProcessLibrary("/bin/true") == RecordRequest.defaultInProcessLibrary())
    // /bin/true calls no recording hook: recorded without a rebuild, in-process where the
    // library is, else with the tracer, which passes signals on as the chooser says.
    let plain = RecordingRequest(output: trace, program: "/bin/true", timeLimitMilliseconds: 50)
    let library = directory.file(InProcessRecorder.libraryName)
    try AtomicFile.write("", to: library)
    let inProcess = try RecorderChooser(inProcessLibrary: { _ in library }).recorder(for: plain)
    #expect((inProcess.recorder as? InProcessRecorder)?.library == library)
    let missing = try RecorderChooser(
      inProcessLibrary: { _ in directory.file("missing.so") }, passesTerminationSignals: true
    ).recorder(for: plain)
    #expect((missing.recorder as? TracerRecorder)?.passesTerminationSignals == true)
    #expect(missing.note?.hasSuffix("is not installed beside the runtime; recorded with the tracer") == true)
    var asked = plain
    asked.mode = .instrumented
    #expect(try RecorderChooser().recorder(for: asked).recorder is RuntimeRecorder)
    var tracer = plain
    tracer.method = .tracer
    #expect(try RecorderChooser(inProcessLibrary: { _ in library }).recorder(for: tracer).recorder is TracerRecorder)
    // The tracer cannot see into an emulated program: refused whatever the mode, before
    // anything runs.
    for mode in [RecordingMode.noRebuild, .instrumented] {
      tracer.mode = mode
      tracer.emulator = Emulator(command: ["qemu-aarch64-static"])
      #expect(throws: RecordingError.tracerUnderEmulator(reason: nil)) { try RecorderChooser().recorder(for: tracer) }
    }
  }

  @Test("record refuses options of the no-rebuild mode for an instrumented program, naming them")
  func noRebuildOptionsForInstrumented() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // A program that references a recording hook counts as instrumented.
    let source = directory.file("hooked.c")
    try AtomicFile.write(
      """
      void __cyg_profile_func_enter(void *f, void *c) {}
      void __cyg_profile_func_exit(void *f, void *c) {}
      int main(void) { return 0; }

      """, to: source)
    let program = directory.file("hooked")
    let compiled = try ProcessRunner.run("/usr/bin/cc", ["-finstrument-functions", "-o", program, source])
    try #require(compiled.status == 0, "cc failed: \(compiled.standardError)")
    let request = RecordingRequest(output: directory.file("t.trace"), program: program, until: ["main"])
    #expect(throws: RecordingError.noRebuildOptionsForInstrumented(program: program, options: ["--until"])) {
      try RecorderChooser().recorder(for: request)
    }
    #expect(
      try RecorderChooser().mode(for: RecordingRequest(output: directory.file("t.trace"), program: program))
        == .instrumented)
  }

  @Test("flags prints both lines under comments, one line, a snippet or JSON")
  func flags() throws {
    let directory = try TemporaryDirectory()
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    let build = Build.release(orderfile: order, format: .gold)
    // A root without libc.so.6: no loader option applies, and the notes say why.
    let both = try FlagsRequest(build: build, sysroot: directory.path).run().standardOutput
    #expect(
      both.hasPrefix(
        """
        # Compile flags for the ordered release build:
        -ffunction-sections
        # Link flags for the ordered release build:
        -fuse-ld=gold -Wl,--build-id -Wl,--section-ordering-file=\(order)
        # Loader options (cut what the loader reads at launch;
        """), "\(both)")
    #expect(both.contains("#   relr: not added: the target's loader is not known to read DT_RELR: no libc.so.6 under"))
    #expect(try FlagsRequest(build: build, shape: .compile).run().standardOutput == "-ffunction-sections\n")
    #expect(try FlagsRequest(build: build, shape: .snippet(.make)).run().standardOutput.hasPrefix("# GNU Make"))
    let json = try FlagsRequest(build: build, shape: .json).run().standardOutput
    let decoded = try JSONDecoder().decode(BuildFlags.self, from: Data(json.utf8))
    #expect(decoded.compile == ["-ffunction-sections"])
  }

  @Test("flags for BOLT keep the relocations, before the ordering flag that comes last")
  func flagsKeepRelocations() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    // A root without libc.so.6: no loader option applies, so the line holds the others alone.
    let flags = FlagsRequest(
      build: .release(orderfile: order, format: .lld), shape: .link, keepRelocations: true, sysroot: directory.path)
    #expect(
      try flags.run().standardOutput
        == "-fuse-ld=lld -Wl,--build-id -Wl,--emit-relocs -Wl,--symbol-ordering-file=\(order)\n")
    let plain = FlagsRequest(build: .release(orderfile: order, format: .lld), shape: .link)
    #expect(!(try plain.run().standardOutput.contains("--emit-relocs")))
  }
}

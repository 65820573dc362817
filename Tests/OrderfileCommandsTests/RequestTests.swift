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

  func record(program: String, arguments: [String]) throws -> Recording {
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
    let output = try RecordRequest(output: trace, program: "./app").run(
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
    let quiet = try RecordRequest(output: trace, program: "./app", quiet: true).run(
      with: FakeRecorder(output: trace, status: 0))
    #expect(quiet.writes.isEmpty)
    #expect(quiet.status == .success)
  }

  @Test("record picks its recorder from the mode asked for, the program, and the options given")
  func recorderChoice() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let trace = directory.file("launch.trace")
    // /bin/true calls no recording hook: recorded without a rebuild, signals passed on.
    let plain = try RecordRequest(output: trace, program: "/bin/true", timeLimitMilliseconds: 50).recorder()
    let breakpoints = try #require(plain as? RecorderChooser)
    #expect(breakpoints.passesTerminationSignals)
    #expect(breakpoints.timeLimitMilliseconds == 50)
    #expect(breakpoints.output == trace)
    let asked = try RecordRequest(output: trace, program: "/bin/true", mode: .instrumented, capacity: 4096).recorder()
    #expect((asked as? RuntimeRecorder)?.capacity == 4096)
    let selected = try RecordRequest(
      output: trace, program: "/bin/true", until: ["main"], includeSystemLibraries: true, excludeModules: ["libz.so"]
    ).recorder()
    let selective = try #require(selected as? RecorderChooser)
    #expect(selective.untilFunctions == ["main"])
    #expect(selective.includeSystemLibraries)
    #expect(selective.modules == ModuleSelection(exclude: ["libz.so"]))
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
    let request = RecordRequest(output: directory.file("t.trace"), program: program, until: ["main"])
    #expect(throws: RecordingError.noRebuildOptionsForInstrumented(program: program, options: ["--until"])) {
      try request.recorder()
    }
    #expect(try RecordRequest(output: directory.file("t.trace"), program: program).chosenMode() == .instrumented)
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

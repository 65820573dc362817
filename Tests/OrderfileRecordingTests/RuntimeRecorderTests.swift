import Foundation
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Tests/Fixtures/runtime/fork_child.c built with clang's instrumentation and the runtime.
private func buildForkingProgram(in directory: TemporaryDirectory) throws -> String {
  let runtime = try RuntimeBuilder.libraryDirectory()
  let sources = PackagePaths.fixtures + "/runtime"
  let output = directory.file("fork_child")
  try runChecked(
    Toolchain.clang,
    [
      "-O2", "-fPIE", "-pie", "-finstrument-functions-after-inlining", "-I", sources, "-I",
      PackagePaths.runtimeInclude, sources + "/fork_child.c", "-o", output, "-L", runtime, "-lOrderfileRuntime",
      "-Wl,-rpath," + runtime, "-lpthread",
    ])
  return output
}

/// The pid of a child that has exited and been waited for: no process has it (for now).
private func deadProcessID() throws -> pid_t {
  var pid: pid_t = 0
  var argv: [UnsafeMutablePointer<CChar>?] = [strdup("true"), nil]
  defer { free(argv[0]) }
  guard posix_spawnp(&pid, "true", nil, nil, &argv, environ) == 0 else { throw TestSupportError("cannot spawn true") }
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return pid
}

@Suite("Recording through the runtime")
struct RuntimeRecorderTests {
  @Test("a runtime dropped by -Wl,--as-needed is named as the cause, with the instrumented binary")
  func runtimeDroppedByAsNeeded() throws {
    let directory = try TemporaryDirectory("orderfile-record")
    let runtime = try RuntimeBuilder.libraryDirectory()
    let program = directory.file("as_needed")
    let source = directory.file("as_needed.c")
    try AtomicFile.write("int helper(int x) { return x * 2; }\nint main(void) { return helper(0); }\n", to: source)
    // As CMake's link options do: the library before the objects, after --as-needed.
    try runChecked(
      Toolchain.gcc,
      [
        "-Wl,--as-needed", "-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime, "-O0",
        "-finstrument-functions",
        source, "-o", program,
      ])
    #expect {
      try RuntimeRecorder().record(
        RecordingRequest(output: directory.file("launch.trace"), program: program, arguments: []))
    } throws: { error in
      guard case .runtimeNotLoaded(_, _, let instrumented) = error as? RecordingError else { return false }
      return instrumented == [program] && error.localizedDescription.contains("-Wl,--no-as-needed -lOrderfileRuntime")
    }
  }

  @Test("the program's trace lands at the output, a forked child's beside it as <trace>.<pid>, no scratch left")
  func forkingProgram() throws {
    let directory = try TemporaryDirectory("orderfile-record")
    let program = try buildForkingProgram(in: directory)
    let output = directory.file("launch.trace")
    // A recording killed earlier left its scratch, with the trace its program wrote later.
    let deadPID = try deadProcessID()
    // A timing launch's scratch (`scratchTag`) too.
    for stale in [
      directory.file(".orderfile-record-\(deadPID)"), directory.file(".orderfile-record-\(deadPID)-timing"),
    ] {
      try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
      try AtomicFile.write("partial", to: stale + "/trace.\(deadPID)")
    }
    let recording = try RuntimeRecorder().record(RecordingRequest(output: output, program: program, arguments: []))
    #expect(recording.status == 0)
    #expect(recording.tracePath == output)
    let parent = try TraceReader.read(path: output)
    #expect(parent.header.isClosed)
    #expect(recording.childTraces.count == 1)
    let child = try #require(recording.childTraces.first)
    #expect(child.hasPrefix(output + "."))
    #expect(try TraceReader.read(path: child).header.parentPID == parent.header.pid)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        == ["fork_child", "launch.trace", (child as NSString).lastPathComponent].sorted())
  }

  @Test("a program without the runtime leaves no trace: bad data (65), naming the program")
  func uninstrumented() throws {
    let directory = try TemporaryDirectory("orderfile-record")
    #expect {
      try RuntimeRecorder().record(
        RecordingRequest(output: directory.file("launch.trace"), program: "/bin/true", arguments: []))
    } throws: { error in
      (error as? RecordingError) == .noTrace(program: "/bin/true", status: 0) && ExitStatus.of(error) == .dataError
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }

  @Test("a program that does not exist cannot be started: a missing input (66)")
  func missingProgram() throws {
    let directory = try TemporaryDirectory("orderfile-record")
    #expect {
      try RuntimeRecorder().record(
        RecordingRequest(
          output: directory.file("launch.trace"), program: directory.file("no-such-program"), arguments: []))
    } throws: { error in
      guard case .launchFailed? = error as? SupportError else { return false }
      return ExitStatus.of(error) == .noInput
    }
  }
}

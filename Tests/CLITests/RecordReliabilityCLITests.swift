import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

private func buildFixture(_ sources: [String], in work: TemporaryDirectory, flags: [String] = [], output: String)
  throws -> String
{
  try buildBreakpointFixture(sources, in: work, flags: flags, output: output)
}

private let isRoot = getuid() == 0
private let setpriv = ProcessRunner.resolve("setpriv")
private let canDropPrivileges = isRoot && setpriv.hasPrefix("/")

/// `orderfile` run as `nobody`, bounded by `timeout` (status 124 when it had to end it).
private func orderfileAsNobody(_ arguments: [String], limit: Int = 30) throws -> ProcessResult {
  try ProcessRunner.run(
    "timeout",
    ["\(limit)", setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", PackagePaths.orderfileExecutable]
      + arguments)
}

@Suite("record never harms the program it records", .serialized)
struct RecordReliabilityCLITests {
  @Test(
    "a program that makes itself non-dumpable, then loads a library, runs to its end under a recorder without privileges",
    .enabled(if: canDropPrivileges, "needs root (to become nobody with setpriv)"))
  func nonDumpableProgram() throws {
    let work = try TemporaryDirectory("orderfile-record-undumpable")
    // nobody must be able to write the trace and read the programs.
    chmod(work.path, 0o777)
    let plugin = try buildFixture(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    let host = try buildFixture(["host.c"], in: work, flags: ["-ldl"], output: "host")
    let trace = work.file("launch.trace")
    let started = Date()
    // The tracer's limit: the in-process recorder, inside the process, goes on arming.
    let result = try orderfileAsNobody([
      "record", "--recorder", "tracer", "-o", trace, "--", host, plugin, "undumpable",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(Date().timeIntervalSince(started) < 20)
    #expect(result.standardOutput == "host 44\n")
    #expect(result.standardError.contains("made itself non-dumpable: libraries it loads from now on are not recorded"))
    // What ran before, in the executable, is recorded still.
    let read = try TraceReader.read(path: trace)
    #expect(read.modules.contains { $0.path.hasSuffix("/host") })
    #expect(!read.records.isEmpty)
  }
}

/// `orderfile record` started in the background with its output in files, for a test to signal.
private struct BackgroundRecord {
  let child: ChildProcess
  let standardOutput: String
  let standardError: String

  init(_ arguments: [String], in work: TemporaryDirectory, launcher: [String] = []) throws {
    standardOutput = work.file("record.stdout")
    standardError = work.file("record.stderr")
    let out = open(standardOutput, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let err = open(standardError, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer {
      close(out)
      close(err)
    }
    let command = launcher + [PackagePaths.orderfileExecutable] + arguments
    let executable = ProcessRunner.resolve(command[0])
    child = try ChildProcess.spawn(
      executable, arguments: command, environment: ChildProcess.environment(adding: [:]), program: command[0],
      standardOutput: out, standardError: err)
  }

  /// Waits (at most 20 s) until the program has printed `text`.
  func waitFor(_ text: String) throws {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if (try? FileReading.text(atPath: standardOutput))?.contains(text) == true { return }
      Thread.sleep(forTimeInterval: 0.02)
    }
    throw TestSupportError("the program never printed \(text)")
  }
}

extension RecordReliabilityCLITests {
  @Test(
    "SIGTERM, SIGHUP or SIGINT to record: the program is let go and sent it, the trace kept, exit 128 + signal",
    arguments: [(SIGTERM, false), (SIGHUP, true), (SIGINT, false)])
  func terminationSignal(signal: Int32, handles: Bool) throws {
    let work = try TemporaryDirectory("orderfile-record-signal")
    let server = try buildFixture(["server.c"], in: work, output: "server")
    let trace = work.file("launch.trace")
    let record = try BackgroundRecord(
      ["record", "--recorder", "tracer", "-o", trace, "--", server] + (handles ? ["handles"] : []), in: work)
    try record.waitFor("ready 2")
    kill(record.child.pid, signal)
    let (status, _) = record.child.wait()
    #expect(status == 128 + signal)
    let errors = try FileReading.text(atPath: record.standardError)
    // The program ends the way the signal meant: by it, or by its own handler.
    let ending = handles ? "ended with status 0" : "ended by it"
    #expect(errors.contains("recording stopped by ") && errors.contains(ending), "\(errors)")
    if handles { #expect(try FileReading.text(atPath: record.standardOutput) == "ready 2\nbye \(signal)\n") }
    let read = try TraceReader.read(path: trace)
    #expect(read.header.windowReason == .signal, "the trace says the recording was stopped by a signal")
    #expect(read.modules.contains { $0.path == server && $0.isMainExecutable })
    #expect(!read.records.isEmpty)
    // record reaped the program before it exited: no process of that pid is left.
    #expect(kill(pid_t(read.header.pid), 0) == -1 && errno == ESRCH, "the program \(read.header.pid) is still there")
    let report = try orderfile(["report", trace])
    #expect(report.standardOutput.contains("→ recording stopped by a signal"), "\(report.standardOutput)")
  }

  @Test(
    "in-process: SIGINT or SIGTERM to record is passed on, the trace kept, no child left, exit 128 + signal",
    arguments: [SIGINT, SIGTERM])
  func inProcessInterrupted(signal: Int32) throws {
    let work = try TemporaryDirectory("orderfile-record-inprocess-signal")
    let server = try buildFixture(["server.c"], in: work, output: "server")
    let trace = work.file("launch.trace")
    let record = try BackgroundRecord(["record", "--recorder", "in-process", "-o", trace, "--", server], in: work)
    try record.waitFor("ready 2")
    kill(record.child.pid, signal)
    let (status, _) = record.child.wait()
    #expect(status == 128 + signal)
    let errors = try FileReading.text(atPath: record.standardError)
    #expect(errors.contains("recording stopped by ") && errors.contains("ended by it"), "\(errors)")
    let read = try TraceReader.read(path: trace)
    #expect(read.modules.contains { $0.path == server && $0.isMainExecutable })
    #expect(!read.records.isEmpty)
    #expect(read.header.windowReason == .signal, "the trace says the recording was stopped by a signal")
    // The server was waited for: no process of that pid is left, not even a zombie.
    #expect(kill(pid_t(read.header.pid), 0) == -1 && errno == ESRCH, "the server outlived record")
  }

  @Test("timeout 2 orderfile record -- ./server: the server ends by SIGTERM, not SIGKILL, and the trace is kept")
  func underTimeout() throws {
    let work = try TemporaryDirectory("orderfile-record-timeout")
    let server = try buildFixture(["server.c"], in: work, output: "server")
    let trace = work.file("launch.trace")
    // timeout(1) sends SIGTERM to record and to its whole process group, the server included.
    let record = try BackgroundRecord(
      ["record", "--recorder", "tracer", "-o", trace, "--", server], in: work, launcher: ["timeout", "2"])
    let (status, _) = record.child.wait()
    #expect(status == 124, "timeout's own status when it had to end the command")
    let errors = try FileReading.text(atPath: record.standardError)
    #expect(errors.contains("recording stopped by SIGTERM") && errors.contains("ended by it"), "\(errors)")
    let read = try TraceReader.read(path: trace)
    #expect(!read.records.isEmpty)
    #expect(read.header.windowReason == .signal)
    #expect(kill(pid_t(read.header.pid), 0) == -1 && errno == ESRCH, "the server \(read.header.pid) is still there")
  }
}

extension RecordReliabilityCLITests {
  @Test(
    "an output whose directory is missing or not writable, or that is a directory, fails record before the program runs: one line naming it, exit 74",
    arguments: [["--no-rebuild"], ["--instrumented"], []])
  func unwritableOutput(mode: [String]) throws {
    let work = try TemporaryDirectory("orderfile-record-output")
    let marker = work.file("ran")
    let readOnly = work.file("read-only")
    try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
    chmod(readOnly, 0o555)
    defer { chmod(readOnly, 0o755) }
    var outputs = [work.file("missing/launch.trace"), work.path]
    // root writes anywhere: a read-only directory stops only others.
    if geteuid() != 0 { outputs.append(readOnly + "/launch.trace") }
    for output in outputs {
      let result = try orderfile(["record", "-o", output] + mode + ["--", "/bin/sh", "-c", "touch \"$0\"", marker])
      #expect(result.status == 74, "\(output): \(result.standardError)")
      let lines = result.standardError.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].contains("'\(output)'"), "\(result.standardError)")
      #expect(!FileManager.default.fileExists(atPath: marker), "the program ran")
    }
  }

  @Test("a program that cannot be started ends record with the documented status: missing 66, not a program 65")
  func launchFailures() throws {
    let work = try TemporaryDirectory("orderfile-record-launch")
    let missing = try orderfile(["record", "-o", work.file("t.trace"), "--", work.file("absent")])
    #expect(missing.status == 66, "\(missing.standardError)")
    let text = work.file("not-a-program")
    try AtomicFile.write("hello\n", to: text)
    chmod(text, 0o755)
    let notProgram = try orderfile(["record", "-o", work.file("t.trace"), "--no-rebuild", "--", text])
    #expect(notProgram.status == 65, "\(notProgram.standardError)")
    #expect(notProgram.standardError.lowercased().contains("exec format error"))
  }

  @Test(
    "record --recorder tracer under strace -f: the program is already traced, exit 69 with a hint that says so",
    .enabled(if: ProcessRunner.resolve("strace").hasPrefix("/"), "needs strace"))
  func alreadyTraced() throws {
    let work = try TemporaryDirectory("orderfile-record-traced")
    let program = try buildFixture(["shell.c"], in: work, output: "shell")
    let result = try ProcessRunner.run(
      "strace",
      [
        "-f", "-o", "/dev/null", PackagePaths.orderfileExecutable, "record", "--recorder", "tracer", "-o",
        work.file("t.trace"), "--", program,
      ])
    #expect(result.status == 69, "\(result.standardError)")
    #expect(result.standardError.contains("it is already traced by process"), "\(result.standardError)")
  }

  @Test("a program that runs a stripped system shell (system()) is recorded without a warning about the shell")
  func systemShell() throws {
    let work = try TemporaryDirectory("orderfile-record-shell")
    let program = try buildFixture(["shell.c"], in: work, output: "shell")
    let result = try orderfile(["record", "-o", work.file("t.trace"), "--", program])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "shell 0 2\n")
    #expect(!result.standardError.contains("warning"), "\(result.standardError)")
    // The shell named as the program to record is the user's choice: its lack of symbols is said.
    let named = try orderfile(
      ["record", "-o", work.file("sh.trace"), "--no-rebuild", "--", "/bin/sh", "-c", "exec \"$0\"", program])
    #expect(named.standardError.contains("has no symbol table"), "\(named.standardError)")
  }

  @Test(
    "an output named relative to a launcher that changes directory before it execs the program: recorded all the same",
    arguments: ["in-process", "tracer"])
  func launcherChangesDirectory(recorder: String) throws {
    let work = try TemporaryDirectory("orderfile-record-cd")
    let program = try buildFixture(["sequence.c"], in: work, output: "sequence")
    // The plan and the runtime's scratch directory, named after the output, must not be
    // looked for in the launcher's new directory.
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      [
        "record", "--recorder", recorder, "-o", "launch.trace", "--", "/bin/sh", "-c", "cd / && exec \"$0\" 3", program,
      ],
      currentDirectory: work.path)
    #expect(result.status == 3, "\(result.standardError)")
    #expect(!result.standardError.contains("recording plan"), "\(result.standardError)")
    // The program's image: the main trace (the tracer's) or the image after the shell's.
    let traces = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix("launch.trace") }
    let modules = try traces.flatMap { try TraceReader.read(path: work.file($0)).modules.map(\.path) }
    #expect(modules.contains(program), "\(traces): \(modules)")
  }

  @Test(
    "a setuid program recorded by a user without privileges: a warning says it runs without them",
    .enabled(if: canDropPrivileges, "needs root (to make a setuid program and become nobody)"))
  func setuidProgram() throws {
    let work = try TemporaryDirectory("orderfile-record-setuid")
    chmod(work.path, 0o777)
    let program = try buildFixture(["shell.c"], in: work, output: "shell")
    chmod(program, 0o4755)
    let result = try orderfileAsNobody(["record", "-o", work.file("t.trace"), "--", program])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardError.contains("\(program) is setuid: traced by a user without privileges it runs without its own")
    )
    // As root the program keeps its privileges, and nothing is said.
    let asRoot = try orderfile(["record", "-o", work.file("root.trace"), "--", program])
    #expect(!asRoot.standardError.contains("is setuid"))
  }
}

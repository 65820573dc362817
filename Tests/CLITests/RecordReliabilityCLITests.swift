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
    let result = try orderfileAsNobody(["record", "-o", trace, "--", host, plugin, "undumpable"])
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
    let record = try BackgroundRecord(["record", "-o", trace, "--", server] + (handles ? ["handles"] : []), in: work)
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
    #expect(read.header.windowReason == .open, "the trace says its process ended inside the window")
    #expect(read.modules.contains { $0.path == server && $0.isMainExecutable })
    #expect(!read.records.isEmpty)
  }

  @Test("timeout 2 orderfile record -- ./server: the server ends by SIGTERM, not SIGKILL, and the trace is kept")
  func underTimeout() throws {
    let work = try TemporaryDirectory("orderfile-record-timeout")
    let server = try buildFixture(["server.c"], in: work, output: "server")
    let trace = work.file("launch.trace")
    // timeout(1) sends SIGTERM to record and to its whole process group, the server included.
    let record = try BackgroundRecord(["record", "-o", trace, "--", server], in: work, launcher: ["timeout", "2"])
    let (status, _) = record.child.wait()
    #expect(status == 124, "timeout's own status when it had to end the command")
    let errors = try FileReading.text(atPath: record.standardError)
    #expect(errors.contains("recording stopped by SIGTERM") && errors.contains("ended by it"), "\(errors)")
    #expect(!(try TraceReader.read(path: trace).records.isEmpty))
  }
}

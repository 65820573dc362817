import Foundation
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

private func build(_ sources: [String], in work: TemporaryDirectory, flags: [String] = [], output: String)
  throws -> String
{
  try buildBreakpointFixture(sources, in: work, flags: flags, output: output)
}

/// Records `binary` with its standard output sent to `programOutput`: the shell that redirects
/// it execs the program, so the program's image is the trace's final one.
private func record(
  _ binary: String, _ arguments: [String] = [], output: String, programOutput: String, until: [String] = [],
  warnings: WarningLog = WarningLog()
) throws -> (summary: TracerRecorder.Summary, warnings: [String]) {
  // These tests follow the program past its window: LaunchEndCLITests has it ended there.
  let request = RecordingRequest(
    output: output, program: "/bin/sh",
    arguments: ["-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", programOutput, binary] + arguments,
    afterLaunch: .waitForExit, until: until)
  let summary = try TracerRecorder().run(request) { warnings.add($0) }
  return (summary, warnings.lines)
}

/// Records `binary` once per entry of `modes` (its arguments after the report's path), each
/// launch's forked children writing a report once their work is done; returns the reports
/// that did not say `expected` within 10 s of the last recording, with what they said.
private func childrenLost(
  recordingEach modes: [[String]], of binary: String, in work: TemporaryDirectory, expecting expected: String
) throws -> [String] {
  var reports: [String] = []
  for (run, mode) in modes.enumerated() {
    let report = work.file("child.\(run)")
    let recorded = try record(
      binary, [report] + mode, output: work.file("launch.\(run).trace"), programOutput: work.file("out"))
    #expect(recorded.summary.recording.status == 0)
    reports.append(report)
  }
  // A report may be written in parts (several children append to it): wait for what it
  // should say, then a little longer, for a line too many.
  let deadline = Date().addingTimeInterval(10)
  while Date() < deadline, !reports.allSatisfy({ (try? FileReading.text(atPath: $0)) == expected }) {
    Thread.sleep(forTimeInterval: 0.05)
  }
  Thread.sleep(forTimeInterval: 0.05)
  return reports.compactMap { report in
    let text = try? FileReading.text(atPath: report)
    return text == expected ? nil : "\((report as NSString).lastPathComponent): \(text ?? "no report")"
  }
}

private final class WarningLog: @unchecked Sendable {
  var lines: [String] = []
  func add(_ line: String) { lines.append(line) }
}

/// What each of several recordings run at once said, or the error it threw, by index.
private final class ConcurrentOutcomes: @unchecked Sendable {
  private let lock = NSLock()
  private var outcomes: [String]

  init(count: Int) { outcomes = Array(repeating: "not run", count: count) }

  func set(_ index: Int, _ body: () throws -> String) {
    let outcome: String
    do { outcome = try body() } catch { outcome = "\(error)" }
    lock.withLock { outcomes[index] = outcome }
  }

  func take() -> [String] {
    lock.withLock {
      defer { outcomes = Array(repeating: "not run", count: outcomes.count) }
      return outcomes
    }
  }
}

@Suite("Recording the release binary with first-entry breakpoints, under the tracer", .serialized)
struct TracerRecorderTests {
  @Test(
    "first calls come in the order the program makes them, for PIE, non-PIE and static executables",
    arguments: [["-fPIE", "-pie"], ["-fno-pie", "-no-pie"], ["-static"]])
  func order(flags: [String]) throws {
    let work = try TemporaryDirectory("orderfile-bp-order")
    let binary = try build(["sequence.c"], in: work, flags: flags, output: "sequence")
    let trace = work.file("launch.trace")
    let recorded = try record(binary, ["3"], output: trace, programOutput: work.file("out"))
    #expect(recorded.summary.recording.status == 3)
    #expect(try FileReading.text(atPath: work.file("out")) == ProcessRunner.run(binary, ["3"]).standardOutput)
    let read = try TraceReader.read(path: trace)
    let order = try names(in: read, module: "/sequence").filter {
      $0.hasPrefix("step_") || $0 == "main" || $0.hasSuffix("marker")
    }
    #expect(order == ["main", "step_a", "step_b", "step_c", "step_d", "step_e", "marker", "after_marker"])
    #expect(try !names(in: read, module: "/sequence").contains("never_called"))
    // crt code runs before main, and is recorded too.
    let all = try names(in: read, module: "/sequence")
    #expect(all.firstIndex(of: "_start").map { $0 < all.firstIndex(of: "main")! } == true, "\(all)")
    #expect(read.modules.first { $0.path.hasSuffix("/sequence") }?.isMainExecutable == true)
    #expect(read.header.isClosed)
    #expect(read.header.windowReason == .exit)
  }

  @Test("--until closes the window at the named function's first call; later calls are post-window")
  func until() throws {
    let work = try TemporaryDirectory("orderfile-bp-until")
    let binary = try build(["sequence.c"], in: work, output: "sequence")
    let trace = work.file("launch.trace")
    let recorded = try record(binary, output: trace, programOutput: work.file("out"), until: ["marker"])
    #expect(recorded.summary.unmatchedUntil == [])
    let read = try TraceReader.read(path: trace)
    let launch = try names(in: read, module: "/sequence", phase: .launch)
    let after = try names(in: read, module: "/sequence", phase: .postWindow)
    #expect(launch.last == "marker", "\(launch)")
    #expect(after.first == "after_marker", "\(after)")
    #expect(read.header.windowReason == .startupComplete)
    #expect(read.header.windowEndNanoseconds == read.launchRecords.last?.timeNanoseconds)
  }

  @Test(
    "a forked child outlives the first process: 50 launches with threads mid-first-call, 5 with a thread held in vfork, no child lost"
  )
  func childrenOutliveTheRecording() throws {
    let work = try TemporaryDirectory("orderfile-bp-outlive")
    let binary = try build(["outlive.c"], in: work, flags: ["-pthread"], output: "outlive")
    let modes = Array(repeating: [String](), count: 50) + Array(repeating: ["vfork"], count: 5)
    // Each child writes its report once its threads are done (about 0.2 s after its parent exits).
    let lost = try childrenLost(recordingEach: modes, of: binary, in: work, expecting: "child ok 142848\n")
    #expect(lost.isEmpty, "children lost or wrong: \(lost)")
  }

  @Test(
    "a forked child still starting threads when the first process exits: 20 launches, every recording ends and no child is lost"
  )
  func childStartingThreads() throws {
    let work = try TemporaryDirectory("orderfile-bp-spawning")
    let binary = try build(["spawning.c"], in: work, flags: ["-pthread"], output: "spawning")
    let modes = Array(repeating: [String](), count: 20)
    let lost = try childrenLost(recordingEach: modes, of: binary, in: work, expecting: "child ok 9152\n")
    #expect(lost.isEmpty, "children lost or wrong: \(lost)")
  }

  @Test(
    "children that exec as the first process exits: 10 launches of four each, every new image let go, none killed"
  )
  func childrenExecAtLetGo() throws {
    let work = try TemporaryDirectory("orderfile-bp-exec-children")
    defer { work.remove() }
    let binary = try build(["exec_children.c"], in: work, output: "exec_children")
    // Letting go removes the breakpoints of each child's image before exec; one whose exec
    // came first has none left, and is let go from its exec event.
    let modes = Array(repeating: [String](), count: 10)
    let lost = try childrenLost(
      recordingEach: modes, of: binary, in: work, expecting: String(repeating: "child ok 9\n", count: 4))
    #expect(lost.isEmpty, "children lost or wrong: \(lost)")
  }

  @Test(
    "a thread execs while the leader makes first calls: 20 launches, each new image recorded, none lost"
  )
  func execBesideTraps() throws {
    let work = try TemporaryDirectory("orderfile-bp-exec-thread")
    defer { work.remove() }
    let binary = try build(["exec_thread.c"], in: work, flags: ["-pthread"], output: "exec_thread")
    for launch in 0..<20 {
      // The exec lands at another point of the leader's 2,000 traps each launch (0 to 19 ms).
      let out = work.file("out.\(launch)")
      let trace = work.file("launch.\(launch).trace")
      let recorded = try record(binary, ["\(launch * 997 % 20000)"], output: trace, programOutput: out)
      #expect(recorded.summary.recording.status == 0, "launch \(launch)")
      #expect(try FileReading.text(atPath: out) == "second image 5\n", "launch \(launch)")
      #expect(try names(in: TraceReader.read(path: trace), module: "/exec_thread").contains("second_image"))
    }
  }

  @Test(
    "two recordings at once on two threads of one host: each writes only its own program's pages (two builds of 1,000 functions a page each, 4 rounds)"
  )
  func concurrentRecordings() throws {
    let work = try TemporaryDirectory("orderfile-bp-concurrent")
    defer { work.remove() }
    // The same layout, other code: a run of pages of one build written into the other's
    // memory makes it print another sum.
    let binaries = try (1...2).map { seed in
      try build(["pages.c"], in: work, flags: ["-DSEED=\(seed)u"], output: "pages\(seed)")
    }
    let expected = try binaries.map { try ProcessRunner.run($0, []).standardOutput }
    #expect(expected[0] != expected[1])
    let outcomes = ConcurrentOutcomes(count: binaries.count)
    for round in 0..<4 {
      // Each recording arms 1,000 pages as soon as its program execs: started together,
      // their armings overlap.
      DispatchQueue.concurrentPerform(iterations: binaries.count) { index in
        let programOutput = work.file("out.\(round).\(index)")
        outcomes.set(index) {
          let recorded = try record(
            binaries[index], output: work.file("launch.\(round).\(index).trace"), programOutput: programOutput)
          return "status \(recorded.summary.recording.status): \(try FileReading.text(atPath: programOutput))"
        }
      }
      for (index, outcome) in outcomes.take().enumerated() {
        #expect(outcome == "status 0: \(expected[index])", "round \(round), pages\(index + 1)")
      }
    }
  }

  @Test(
    "a program that sets SIGTRAP to SIG_IGN survives the SIGTRAP it raises after first calls, dynamic and static; set back to SIG_DFL, it dies of it as alone",
    arguments: [[String](), ["-static"]])
  func ignoredTrap(flags: [String]) throws {
    let work = try TemporaryDirectory("orderfile-bp-ignored")
    let binary = try build(["ignored.c"], in: work, flags: flags, output: "ignored")
    let out = work.file("out")
    let ignored = try record(binary, output: work.file("ignored.trace"), programOutput: out)
    #expect(ignored.summary.recording.status == 0)
    #expect(try FileReading.text(atPath: out) == "ignored 16\n")
    let read = try TraceReader.read(path: work.file("ignored.trace"))
    #expect(
      try names(in: read, module: "/ignored").filter { ["first", "second"].contains($0) } == ["first", "second"])
    // The tracer drops only what the kernel would have dropped.
    let fatal = try record(
      binary, ["default"], output: work.file("default.trace"), programOutput: work.file("default.out"))
    #expect(fatal.summary.recording.status == 128 + SIGTRAP)
    #expect(try FileReading.text(atPath: work.file("default.out")) == "")
  }

  @Test(
    "a stripped executable with its debug file beside it (.gnu_debuglink) is recorded from the debug file's symbols")
  func debugLink() throws {
    let work = try TemporaryDirectory("orderfile-bp-debuglink")
    let binary = try build(["sequence.c"], in: work, output: "sequence")
    let objcopy = ProcessRunner.resolve("objcopy")
    try runChecked(objcopy, ["--only-keep-debug", binary, binary + ".debug"])
    try runChecked(objcopy, ["--strip-all", "--add-gnu-debuglink=" + binary + ".debug", binary])
    let trace = work.file("launch.trace")
    let recorded = try record(binary, output: trace, programOutput: work.file("out"))
    #expect(!recorded.warnings.contains { $0.contains(binary) }, "\(recorded.warnings)")
    let order = try names(in: try TraceReader.read(path: trace), module: "/sequence").filter { $0.hasPrefix("step_") }
    #expect(order == ["step_a", "step_b", "step_c", "step_d", "step_e"])
  }

  @Test("a stripped executable: one warning naming it and the fix, and an error, not an empty trace")
  func strippedExecutable() throws {
    let work = try TemporaryDirectory("orderfile-bp-stripped")
    let binary = try build(["sequence.c"], in: work, flags: ["-s"], output: "stripped")
    let warnings = WarningLog()
    #expect(throws: BreakpointRecordingError.nothingRecorded(program: "/bin/sh", reasons: [])) {
      try record(binary, output: work.file("launch.trace"), programOutput: work.file("out"), warnings: warnings)
    }
    #expect(
      warnings.lines.contains { $0.hasPrefix(binary + " has no symbol table") && $0.contains("debug file") },
      "\(warnings.lines)")
    #expect(!FileManager.default.fileExists(atPath: work.file("launch.trace")))
  }
}

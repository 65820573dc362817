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

private final class WarningLog: @unchecked Sendable {
  var lines: [String] = []
  func add(_ line: String) { lines.append(line) }
}

@Suite("Recording the release binary with first-entry breakpoints", .serialized)
struct BreakpointRecorderTests {
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

  @Test("threads racing to one function's first call: recorded once, every thread runs on correctly")
  func racingThreads() throws {
    let work = try TemporaryDirectory("orderfile-bp-race")
    let binary = try build(["race.c"], in: work, flags: ["-pthread"], output: "race")
    let expected = try runChecked(binary, []).standardOutput
    var races: UInt64 = 0
    // Two cores do not always let two threads meet at an entry; a few tries make it sure.
    for attempt in 0..<5 where races == 0 {
      let trace = work.file("race\(attempt).trace")
      let out = work.file("race\(attempt).out")
      let summary = try record(binary, output: trace, programOutput: out).summary
      #expect(summary.recording.status == 0)
      #expect(try FileReading.text(atPath: out) == expected)
      let called = try names(in: try TraceReader.read(path: trace), module: "/race").filter {
        $0.hasPrefix("f") && Int($0.dropFirst()) != nil
      }
      // race.c: f1000 … f1999, each called by every thread.
      #expect(called.count == 1000, "\(called.count) of 1000 functions recorded")
      #expect(Set(called).count == called.count, "a function was reported twice")
      races += summary.races
    }
    #expect(races > 0, "no two threads ever met at an entry: the test proved nothing")
  }

  @Test("fork gives the child its own trace; exec starts a new trace of the same pid")
  func forkAndExec() throws {
    let work = try TemporaryDirectory("orderfile-bp-lineage")
    let binary = try build(["lineage.c"], in: work, output: "lineage")
    let trace = work.file("launch.trace")
    let recorded = try record(binary, output: trace, programOutput: work.file("out"))
    #expect(recorded.summary.recording.status == 0)
    #expect(try FileReading.text(atPath: work.file("out")) == "child said 4, parent 5\nsecond image 5\n")
    // The program's first image is an image of the main process, replaced by exec; the
    // shell's image before it made no first call (a stripped system program) and is not
    // written; the forked child is another process.
    let images = recorded.summary.recording.execTraces
    #expect(images.count == 1, "\(images)")
    #expect(recorded.summary.recording.childTraces.count == 1, "\(recorded.summary.recording.childTraces)")
    let others = images + recorded.summary.recording.childTraces
    // The final image is the main trace.
    let final = try TraceReader.read(path: trace)
    #expect(try names(in: final, module: "/lineage").contains("second_image"))
    #expect(try !names(in: final, module: "/lineage").contains("first_image"))
    // The image exec replaced, named as the runtime names a process's images:
    // <trace>.<pid>.exec1 (exec0 would be the shell's).
    #expect(images == [trace + ".\(final.header.pid).exec1"], "\(images)")
    let firstImagePath = try #require(others.first { $0.hasSuffix(".\(final.header.pid).exec1") })
    let firstImage = try names(in: try TraceReader.read(path: firstImagePath), module: "/lineage")
    #expect(firstImage.contains("first_image") && firstImage.contains("parent_after_fork"))
    #expect(!firstImage.contains("child_only"))
    // The forked child: its parent's calls, then its own.
    let childPath = try #require(others.first { !$0.hasPrefix(trace + ".\(final.header.pid)") })
    let child = try TraceReader.read(path: childPath)
    #expect(child.header.parentPID == final.header.pid)
    let childNames = try names(in: child, module: "/lineage")
    let own = childNames[(child.header.forkRecordIndex ?? 0)...]
    #expect(own.contains("child_only"), "\(childNames)")
    #expect(!own.contains("first_image"))

    // A second recording replaces the whole set: a child trace of an earlier run that this
    // one does not write goes; a file that is not a trace stays.
    let stale = trace + ".99999"
    try FileManager.default.copyItem(atPath: childPath, toPath: stale)
    try AtomicFile.write("notes\n", to: trace + ".12345")
    _ = try record(binary, output: trace, programOutput: work.file("out"))
    #expect(!FileManager.default.fileExists(atPath: stale))
    #expect(FileManager.default.fileExists(atPath: trace + ".12345"))
  }

  @Test(
    "a forked child outlives the first process: 50 launches with threads mid-first-call, 5 with a thread held in vfork, no child lost"
  )
  func childrenOutliveTheRecording() throws {
    let work = try TemporaryDirectory("orderfile-bp-outlive")
    let binary = try build(["outlive.c"], in: work, flags: ["-pthread"], output: "outlive")
    var reports: [String] = []
    for run in 0..<55 {
      let report = work.file("child.\(run)")
      let mode = run < 50 ? [] : ["vfork"]
      let recorded = try record(
        binary, [report] + mode, output: work.file("launch.\(run).trace"), programOutput: work.file("out"))
      #expect(recorded.summary.recording.status == 0)
      reports.append(report)
    }
    // Each child writes its report once its threads are done (about 0.2 s after its parent exits).
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline, !reports.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
      Thread.sleep(forTimeInterval: 0.05)
    }
    Thread.sleep(forTimeInterval: 0.05)
    let lost = reports.filter { (try? FileReading.text(atPath: $0)) != "child ok 142848\n" }
    #expect(lost.isEmpty, "children lost or wrong: \(lost.map { ($0 as NSString).lastPathComponent })")
  }

  @Test("threads that block every signal are recorded, and the program runs to its end")
  func blockedSignals() throws {
    let work = try TemporaryDirectory("orderfile-bp-blocked")
    let binary = try build(["blocked.c"], in: work, flags: ["-pthread"], output: "blocked")
    let trace = work.file("launch.trace")
    let out = work.file("out")
    let summary = try record(binary, output: trace, programOutput: out).summary
    #expect(summary.recording.status == 0)
    #expect(try FileReading.text(atPath: out) == "blocked 10 15\n")
    let read = try TraceReader.read(path: trace)
    let called = try calls(in: read, module: "/blocked")
    let inThread = try #require(called.first { $0.name == "in_thread" }?.call)
    let inMain = try #require(called.first { $0.name == "in_main" }?.call)
    #expect(inThread.threadID != read.header.pid, "in_thread ran on its own thread")
    #expect(inMain.threadID == read.header.pid)
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

  @Test("a library loaded with dlopen is armed before its constructor runs")
  func dlopenedLibrary() throws {
    let work = try TemporaryDirectory("orderfile-bp-dlopen")
    let plugin = try build(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    let host = try build(["host.c"], in: work, flags: ["-ldl"], output: "host")
    let trace = work.file("launch.trace")
    let recorded = try record(host, [plugin], output: trace, programOutput: work.file("out"))
    #expect(try FileReading.text(atPath: work.file("out")) == "host 44\n")
    #expect(recorded.summary.recording.status == 0)
    let read = try TraceReader.read(path: trace)
    let pluginCalls = try names(in: read, module: "/plugin.so")
    #expect(
      pluginCalls.filter { $0.hasPrefix("plugin_") } == ["plugin_constructor", "plugin_setup", "plugin_entry"],
      "\(pluginCalls)")
    let hostCalls = try names(in: read, module: "/host")
    #expect(hostCalls.firstIndex(of: "before_load")! < hostCalls.firstIndex(of: "after_load")!)
    // Global first-call order across modules: the plugin's calls sit between the host's.
    let order = read.records.map { $0.module }
    let pluginIndex = try #require(read.modules.first { $0.path.hasSuffix("/plugin.so") }?.index)
    #expect(order.firstIndex(of: pluginIndex)! > 0)
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

import Foundation
import OrderfileProfile
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

private let millisecond: Int64 = 1_000_000

/// Checks the profile's split of the time before main against the program's own sleeps. Only
/// differences of times the program and the recorder took are compared, never the test's own
/// clock, so a loaded machine stretches both sides alike.
///
/// `slack` is how much longer than its sleep a module's initializers may take: a millisecond
/// in the instrumented build; under breakpoints each first call stops the program for the
/// tracer, which the recorded times cannot tell apart from the program's own time, so there
/// a module's time must hold its sleep and may exceed it by the stops.
private func expectAttributed(
  _ profile: StartupProfile, sleeps: PreMainProgram.Sleeps, runtime: Bool, slack: Int64 = millisecond
) throws {
  let preMain = try #require(profile.preMain)
  let library = preMain.modules.filter { $0.module.hasSuffix("/libpremain.so") }
  let executable = preMain.modules.filter { $0.module.hasSuffix("/premain") }
  #expect(library.count == 1, "\(preMain.modules.map(\.module))")
  #expect(executable.count == 1, "\(preMain.modules.map(\.module))")
  let libraryTime = Int64(library.reduce(0) { $0 + $1.durationNanoseconds })
  let executableTime = Int64(executable.reduce(0) { $0 + $1.durationNanoseconds })
  let librarySleep = Int64(sleeps.library.count)
  let executableSleep = Int64(sleeps.executable.count)
  // Each sleep lies inside its module's initializers, so they take at least the sleep
  // (less a millisecond for the clock readings in between).
  #expect(
    libraryTime > librarySleep - millisecond && libraryTime < librarySleep + slack,
    "library \(libraryTime) ns against a sleep of \(librarySleep)")
  #expect(
    executableTime > executableSleep - millisecond && executableTime < executableSleep + slack,
    "executable \(executableTime) ns against a sleep of \(executableSleep)")
  #expect(library.first?.initializers.contains { $0.contains("premain_lib_init") } == true)
  #expect(executable.first?.initializers.contains { $0.contains("premain_main_init") } == true)
  #expect(library.first?.functions.contains { $0.contains("premain_lib_sleep") } == true)
  // Process start to main is the loader, the runtime and the two sleeps, within a millisecond.
  let program = Int64(preMain.mainNanoseconds) - Int64(preMain.loaderNanoseconds)
    - Int64(preMain.runtimeStartupNanoseconds ?? 0) - Int64(preMain.otherNanoseconds)
  #expect(
    program > librarySleep + executableSleep - millisecond && program < librarySleep + executableSleep + slack,
    "\(preMain)")
  #expect(
    preMain.loaderNanoseconds + (preMain.runtimeStartupNanoseconds ?? 0) + preMain.otherNanoseconds
      + UInt64(libraryTime + executableTime) == preMain.mainNanoseconds)
  #expect((preMain.runtimeStartupNanoseconds != nil) == runtime)
  #expect(preMain.programNanoseconds == preMain.mainNanoseconds - (preMain.runtimeStartupNanoseconds ?? 0))
}

@Suite("The time before main", .serialized)
struct PreMainTests {
  @Test(
    "instrumented: the exact start, the runtime's start-up apart, each module's initializers to the millisecond",
    arguments: ["clang", "gcc"])
  func instrumented(compiler: String) throws {
    let directory = try TemporaryDirectory("orderfile-premain")
    let program = try PreMainProgram.build(in: directory, instrumented: true, gcc: compiler == "gcc")
    let output = directory.file("launch.trace")
    let recording = try RuntimeRecorder(output: output).record(program: program, arguments: [directory.file("sleeps")])
    #expect(recording.status == 0)
    let trace = try TraceReader.read(path: output)
    #expect(trace.header.processStartSource == .spawn)
    #expect(trace.header.processStartResolutionNanoseconds == 1_000)
    let startupEnd = try #require(trace.header.startupEndNanoseconds)
    #expect(trace.header.processStartNanoseconds < trace.header.traceStartNanoseconds)
    #expect(trace.header.traceStartNanoseconds <= startupEnd)
    let sleeps = try PreMainProgram.Sleeps(path: directory.file("sleeps"))
    #expect(trace.header.processStartNanoseconds < sleeps.library.lowerBound)
    let profile = ProfileBuilder().build(trace: trace, symbols: SymbolTable(trace: trace, binaries: BinaryResolver()))
    #expect(profile.processStartSource == .spawn)
    try expectAttributed(profile, sleeps: sleeps, runtime: true)
  }

  @Test("a process the recorder did not start keeps the estimate from /proc, and says so")
  func startedOtherwise() throws {
    let directory = try TemporaryDirectory("orderfile-premain")
    let program = try PreMainProgram.build(in: directory, instrumented: true)
    let output = directory.file("launch.trace")
    // The recorder's variable reaches the program through a shell, whose child it is not.
    let result = try ProcessRunner.run(
      "/bin/sh", ["-c", "\"$0\" \"$1\"; true", program, directory.file("sleeps")],
      environment: ["ORDERFILE_OUTPUT": output, "ORDERFILE_SPAWN": "\(getpid()):1"])
    #expect(result.succeeded)
    let trace = try TraceReader.read(path: output)
    #expect(trace.header.processStartSource == .procStat)
    #expect(trace.header.processStartResolutionNanoseconds > 1_000)
    #expect(trace.header.startupEndNanoseconds != nil)
  }

  @Test("release binary under breakpoints: each module's initializers hold its sleep, no runtime start-up")
  func breakpoints() throws {
    let directory = try TemporaryDirectory("orderfile-premain")
    let program = try PreMainProgram.build(in: directory, instrumented: false)
    let output = directory.file("launch.trace")
    let summary = try BreakpointRecorder(output: output).record(
      program: program, arguments: [directory.file("sleeps")], warn: { _ in })
    #expect(summary.recording.status == 0)
    let trace = try TraceReader.read(path: output)
    #expect(trace.header.processStartSource == .spawn)
    #expect(trace.header.startupEndNanoseconds == nil)
    let profile = ProfileBuilder().build(trace: trace, symbols: SymbolTable(trace: trace, binaries: BinaryResolver()))
    try expectAttributed(
      profile, sleeps: PreMainProgram.Sleeps(path: directory.file("sleeps")), runtime: false, slack: 10 * millisecond)
    // The executable's initializers start with the first call of its own start code.
    let executable = try #require(profile.preMain?.modules.last)
    #expect(executable.module.hasSuffix("/premain"))
  }
}

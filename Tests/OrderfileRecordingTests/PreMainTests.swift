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
  let program =
    Int64(preMain.mainNanoseconds) - Int64(preMain.loaderNanoseconds)
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
    let recording = try RuntimeRecorder().record(
      RecordingRequest(output: output, program: program, arguments: [directory.file("sleeps")]))
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
    let summary = try TracerRecorder().run(
      RecordingRequest(output: output, program: program, arguments: [directory.file("sleeps")]), warn: { _ in })
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

/// Tests/Fixtures/premain/work_*.c: a library and an executable whose initializers each make
/// 5 first calls, load a plugin of 1,000 functions (the tracer arms them then) and run for 20
/// and 40 ms; main makes 200 more first calls and runs for 100 ms. A release build, by clang.
private func buildWorkProgram(in directory: TemporaryDirectory) throws -> String {
  let sources = PackagePaths.fixtures + "/premain"
  for plugin in ["libworkplugin.so", "libworkplugin2.so"] {
    try runChecked(
      Toolchain.clang, ["-O2", "-g", "-fPIC", "-shared", sources + "/work_plugin.c", "-o", directory.file(plugin)])
  }
  try runChecked(
    Toolchain.clang,
    [
      "-O2", "-g", "-fPIC", "-shared", sources + "/work_lib.c", "-o", directory.file("libwork.so"), "-ldl",
      "-Wl,-rpath,$ORIGIN",
    ])
  let program = directory.file("work")
  try runChecked(
    Toolchain.clang,
    [
      "-O2", "-g", "-fPIE", "-pie", sources + "/work_main.c", "-o", program, "-L", directory.path, "-lwork", "-ldl",
      "-Wl,-rpath," + directory.path,
    ])
  return program
}

@Suite("The recorder's own time, without a rebuild", .serialized)
struct RecorderTimeTests {
  /// The recorder's time can be counted only as well as the kernel's run-delay counts tell
  /// it: a machine loaded by other work stretches what is left over. So the best of five
  /// launches is compared, each initializer against its own known length (0.5 to 0.9 ms off
  /// seen under a load of 9; a launch hit by a burst of other work was 4 ms off). On the
  /// wall clock the same launches are 12 and 20 ms off. Up to 12 launches are made while no
  /// launch yet came within the bound, so that one burst of other work on a shared machine
  /// does not decide; a recorder that counts its own time wrongly misses it in every launch.
  @Test(
    "each initializer is attributed its own run (20 and 40 ms) within 1 ms, its traps and a plugin's arming taken out (best of 5 or more)"
  )
  func initializersOnTheProgramsClock() throws {
    let directory = try TemporaryDirectory("orderfile-recorder-time")
    let program = try buildWorkProgram(in: directory)
    var libraryErrors: [Int64] = []
    var executableErrors: [Int64] = []
    for run in 0..<12 {
      if run >= 5, libraryErrors.min()! < millisecond, executableErrors.min()! < millisecond { break }
      let output = directory.file("launch\(run).trace")
      let summary = try TracerRecorder().run(RecordingRequest(output: output, program: program), warn: { _ in })
      #expect(summary.recording.status == 0)
      let trace = try TraceReader.read(path: output)
      let recorder = try #require(trace.header.recorderTime)
      #expect(recorder.armingNanoseconds > 0 && recorder.totalNanoseconds > recorder.armingNanoseconds)
      #expect(summary.recorderTime == recorder)
      let profile = ProfileBuilder().build(trace: trace, symbols: SymbolTable(trace: trace, binaries: BinaryResolver()))
      #expect(profile.recorderOverhead?.totalNanoseconds == recorder.totalNanoseconds)
      #expect(ProfileTextRenderer().render(profile).contains("recorder overhead, taken out of every time shown"))
      let preMain = try #require(profile.preMain)
      // A plugin's own initializers, run by the dlopen inside an initializer, are a part of it.
      func time(_ suffixes: [String]) -> Int64 {
        Int64(
          preMain.modules.filter { run in suffixes.contains { run.module.hasSuffix($0) } }
            .reduce(0) { $0 + $1.durationNanoseconds })
      }
      #expect(preMain.modules.contains { $0.module.hasSuffix("/libwork.so") && $0.functions.count >= 5 })
      #expect(preMain.modules.contains { $0.module.hasSuffix("/work") && $0.functions.count >= 5 })
      libraryErrors.append(abs(time(["/libwork.so", "/libworkplugin.so"]) - 20 * millisecond))
      executableErrors.append(abs(time(["/work", "/libworkplugin2.so"]) - 40 * millisecond))
    }
    #expect(libraryErrors.min()! < millisecond, "library's initializers off by \(libraryErrors) ns")
    #expect(executableErrors.min()! < millisecond, "executable's initializers off by \(executableErrors) ns")
  }

  @Test(
    "--time-limit counts on the program's clock: arming that takes longer than the limit leaves the initializers inside it"
  )
  func timeLimitWithoutArming() throws {
    let directory = try TemporaryDirectory("orderfile-recorder-time")
    let program = try buildWorkProgram(in: directory)
    let output = directory.file("launch.trace")
    // Followed past its window, for main's calls after it.
    let summary = try TracerRecorder().run(
      RecordingRequest(output: output, program: program, timeLimitMilliseconds: 30, afterLaunch: .waitForExit),
      warn: { _ in })
    #expect(summary.recording.status == 0)
    let trace = try TraceReader.read(path: output)
    #expect(trace.header.recorderTime != nil)
    #expect(trace.header.windowReason == .timeLimit)
    #expect(trace.header.windowEndNanoseconds == trace.header.processStartNanoseconds + 30 * UInt64(millisecond))
    let library = try #require(trace.modules.first { $0.path.hasSuffix("/libwork.so") })
    let librarySymbols = try ELFSymbolizer(path: library.path)
    let libraryCalls = trace.records.filter {
      $0.module == library.index && librarySymbols.function(containing: $0.address)?.name.hasPrefix("lib_") == true
    }
    // The library's initializer starts a few ms into the program's own time, the limit ends
    // during its 20 ms run: its first calls are the launch's, main's (60 ms in) are not.
    #expect(libraryCalls.count == 5 && libraryCalls.allSatisfy { $0.phase == .launch })
    let symbols = try ELFSymbolizer(path: program)
    let mainModule = try #require(trace.modules.first { $0.isMainExecutable })
    let afterMain = trace.records.filter {
      $0.module == mainModule.index && symbols.function(containing: $0.address)?.name.hasPrefix("a_") == true
    }
    #expect(afterMain.count == 100 && afterMain.allSatisfy { $0.phase == .postWindow })
  }

  @Test(
    "a traced launch's phases add up to within 10% of the launch alone (median of 5 each), arming and 250 traps taken out"
  )
  func phasesAgainstTheLaunchAlone() throws {
    let directory = try TemporaryDirectory("orderfile-recorder-time")
    let program = try buildWorkProgram(in: directory)
    var alone: [UInt64] = []
    var traced: [UInt64] = []
    for run in 0..<5 {
      let start = MonotonicClock.nanoseconds()
      let result = try ProcessRunner.run(program, [])
      alone.append(MonotonicClock.nanoseconds() - start)
      #expect(result.succeeded)
      let output = directory.file("launch\(run).trace")
      _ = try TracerRecorder().run(RecordingRequest(output: output, program: program), warn: { _ in })
      let trace = try TraceReader.read(path: output)
      let profile = ProfileBuilder().build(trace: trace, symbols: SymbolTable(trace: trace, binaries: BinaryResolver()))
      #expect(profile.phases.count >= 2)
      traced.append(profile.phases.reduce(0) { $0 + $1.durationNanoseconds })
    }
    let aloneMedian = Double(alone.sorted()[2])
    let tracedMedian = Double(traced.sorted()[2])
    #expect(abs(tracedMedian - aloneMedian) <= 0.1 * aloneMedian, "traced \(traced), alone \(alone)")
  }
}

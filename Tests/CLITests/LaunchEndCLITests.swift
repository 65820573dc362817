import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Whether `pid` is a process that has not ended (a zombie has).
private func isRunning(_ pid: pid_t) -> Bool {
  guard let stat = try? FileReading.text(atPath: "/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else {
    return false
  }
  return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

/// The pids Tests/Fixtures/breakpoints/app_idle.c wrote: its helper, its daemon, itself.
private func appPIDs(_ path: String) throws -> [pid_t] {
  try FileReading.text(atPath: path).split(separator: "\n").compactMap { pid_t($0) }
}

@Suite("the launch's end ends the run: record returns, and leaves no process, for a program that never exits")
struct LaunchEndCLITests {
  @Test(
    "record --until F or --time-limit with either recorder: returns by itself, exit 0, the app, its helper and its daemon ended, the window closed as asked",
    arguments: ["in-process", "tracer"], [["--until", "launch_done"], ["--time-limit", "400"]])
  func endsTheProgram(recorder: String, end: [String]) throws {
    let work = try TemporaryDirectory("orderfile-launch-end")
    let app = try buildBreakpointFixture(["app_idle.c"], in: work, output: "app")
    let trace = work.file("launch.trace")
    let pids = work.file("pids")
    let started = Date()
    // A recorder that never returned would stop the suite: timeout(1) bounds it.
    let result = try ProcessRunner.run(
      "timeout",
      ["30", PackagePaths.orderfileExecutable, "record", "--recorder", recorder, "-o", trace] + end + [
        "--", app, pids,
      ])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(Date().timeIntervalSince(started) < 20)
    #expect(result.standardError.contains("it was ended"), "\(result.standardError)")
    let family = try appPIDs(pids)
    #expect(family.count == 3, "the app wrote its own, its helper's and its daemon's pid")
    for pid in family { #expect(!isRunning(pid), "process \(pid) outlived record") }
    let read = try TraceReader.read(path: trace)
    #expect(read.header.windowReason == (end[0] == "--until" ? .startupComplete : .timeLimit))
    #expect(read.launchRecords.contains { record in read.modules[Int(record.module)].isMainExecutable })
    if end[0] == "--time-limit" {
      let window = try #require(read.header.windowEndNanoseconds)
      #expect(window - read.header.processStartNanoseconds == 400_000_000, "the window ends at the limit")
    }
  }

  @Test("record --until F --wait-for-exit: the app is left running and record waits for it, then takes its status")
  func waitForExit() throws {
    let work = try TemporaryDirectory("orderfile-launch-wait")
    let app = try buildBreakpointFixture(["app_idle.c"], in: work, output: "app")
    let trace = work.file("launch.trace")
    let pids = work.file("pids")
    let err = open(work.file("record.stderr"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let record = try ChildProcess.spawn(
      PackagePaths.orderfileExecutable,
      arguments: [
        PackagePaths.orderfileExecutable, "record", "--until", "launch_done", "--wait-for-exit", "-o", trace, "--",
        app, pids,
      ],
      environment: ChildProcess.environment(adding: [:]), program: "orderfile", standardOutput: err,
      standardError: err)
    close(err)
    let deadline = Date().addingTimeInterval(20)
    var family: [pid_t] = []
    while family.count < 3 && Date() < deadline {
      family = (try? appPIDs(pids)) ?? []
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(family.count == 3)
    // Well after the window closed, everything still runs, record included.
    Thread.sleep(forTimeInterval: 1.5)
    var status: Int32 = 0
    #expect(waitpid(record.pid, &status, WNOHANG) == 0, "record returned at the window's close")
    for pid in family { #expect(isRunning(pid)) }
    guard let app = family.last else { return }
    kill(app, SIGTERM)
    let (code, _) = record.wait()
    #expect(code == 128 + SIGTERM, "record ends with the app's own status")
    for pid in family.dropLast() { kill(pid, SIGKILL) }
  }

  @Test(
    "estimate --measure --until F with F in a library of the app and the library named by its SONAME link: the count ends there and the command returns"
  )
  func measureUntilInLibrary() throws {
    let work = try TemporaryDirectory("orderfile-launch-measure")
    let fixtures = PackagePaths.fixtures + "/breakpoints/"
    let library = work.file("libidle.so.1.0.0")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-fPIC", "-shared", "-Wl,-soname,libidle.so.1", "-DAPP_LIBRARY", fixtures + "app_idle.c", "-o",
        library,
      ])
    try FileManager.default.createSymbolicLink(atPath: work.file("libidle.so.1"), withDestinationPath: library)
    try FileManager.default.createSymbolicLink(atPath: work.file("libidle.so"), withDestinationPath: library)
    let app = work.file("app")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-DAPP_MAIN", fixtures + "app_idle.c", "-o", app, "-L", work.path, "-lidle",
        "-Wl,-rpath," + work.path,
      ])
    let trace = work.file("launch.trace")
    let pids = work.file("pids")
    let recorded = try ProcessRunner.run(
      "timeout",
      ["30", PackagePaths.orderfileExecutable, "record", "--until", "launch_done", "-o", trace, "--", app, pids])
    #expect(recorded.status == 0, "\(recorded.standardError)")
    for name in ["launch_done", "main"] {
      let started = Date()
      let result = try ProcessRunner.run(
        "timeout",
        [
          "30", PackagePaths.orderfileExecutable, "estimate", "--trace", trace, "--binary", work.file("libidle.so.1"),
          "--measure", "--until", name,
          "--json", "--", app, pids,
        ])
      #expect(result.status == 0, "\(name): \(result.standardError)")
      #expect(Date().timeIntervalSince(started) < 20)
      #expect(result.standardOutput.contains("\"end\" : \"until\""), "\(name): \(result.standardOutput)")
      for pid in try appPIDs(pids) { #expect(!isRunning(pid), "process \(pid) outlived estimate") }
    }
  }
}

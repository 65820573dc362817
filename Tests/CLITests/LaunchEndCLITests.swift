import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

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
    let family = try BackgroundProcess.pids(writtenTo: pids)
    #expect(family.count == 3, "the app wrote its own, its helper's and its daemon's pid")
    for pid in family { #expect(!BackgroundProcess.isRunning(pid), "process \(pid) outlived record") }
    let read = try TraceReader.read(path: trace)
    #expect(read.header.windowReason == (end[0] == "--until" ? .startupComplete : .timeLimit))
    // Cut after its records, as a closed trace is: the runtime of a process that was ended
    // never closed it, and it kept its whole reserved capacity (34 MB).
    let size = try #require(try FileManager.default.attributesOfItem(atPath: trace)[.size] as? Int)
    #expect(size < 2 << 20, "\(trace) is \(size) bytes")
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
      family = (try? BackgroundProcess.pids(writtenTo: pids)) ?? []
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(family.count == 3)
    // Well after the window closed, everything still runs, record included.
    Thread.sleep(forTimeInterval: 1.5)
    var status: Int32 = 0
    #expect(waitpid(record.pid, &status, WNOHANG) == 0, "record returned at the window's close")
    for pid in family { #expect(BackgroundProcess.isRunning(pid)) }
    guard let app = family.last else { return }
    kill(app, SIGTERM)
    let (code, _) = record.wait()
    #expect(code == 128 + SIGTERM, "record ends with the app's own status")
    for pid in family.dropLast() { kill(pid, SIGKILL) }
  }

  @Test(
    "estimate --measure --until F, F in the app's library or its executable, the library named by its real file or its SONAME link: the count ends there and the command returns"
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
    // One release binary and one orderfile: the library's, not the executable's.
    let order = work.file("idle.order")
    let generated = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["generate", trace, "--release-binary", library, "-o", order])
    #expect(generated.status == 0, "\(generated.standardError)")
    let entries = try FileReading.text(atPath: order).split(separator: "\n")
    #expect(entries.contains("launch_done") && !entries.contains("main"), "\(entries)")
    // The in-process recorder preloads the runtime into the release binary: its trace is no
    // instrumented build's, and the match rate is against the binary that ran.
    let plain = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["generate", trace, "--module", library, "-o", work.file("plain.order")])
    #expect(plain.standardOutput.contains("(against the recorded binary, recorded without a rebuild)"), "\(plain)")
    for (name, binary) in [("launch_done", library), ("main", work.file("libidle.so.1"))] {
      let started = Date()
      let result = try ProcessRunner.run(
        "timeout",
        [
          "30", PackagePaths.orderfileExecutable, "estimate", "--trace", trace, "--binary", binary,
          "--measure", "--until", name,
          "--json", "--", app, pids,
        ])
      #expect(result.status == 0, "\(name): \(result.standardError)")
      #expect(Date().timeIntervalSince(started) < 20)
      #expect(result.standardOutput.contains("\"end\" : \"until\""), "\(name): \(result.standardOutput)")
      for pid in try BackgroundProcess.pids(writtenTo: pids) {
        #expect(!BackgroundProcess.isRunning(pid), "process \(pid) outlived estimate")
      }
    }
  }

  @Test(
    "diff --measure of two copies of an app's own library: each is measured in a run of the program after '--', the loader pointed at that copy, and the app ended at the time limit"
  )
  func diffMeasuresLibraries() throws {
    let work = try TemporaryDirectory("orderfile-launch-diff")
    let fixtures = PackagePaths.fixtures + "/breakpoints/"
    // The base copy is linked in source order, the head with the launch's functions first:
    // both load under one program, built against a third copy its run path names.
    for (folder, order) in [("base", nil), ("head", "launch_done\nconfigure\napp_run\n"), ("built", nil)]
      as [(
        String, String?
      )]
    {
      let directory = work.file(folder)
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      var flags = ["-O2", "-g", "-fPIC", "-shared", "-ffunction-sections", "-fuse-ld=lld", "-Wl,-soname,libidle.so.1"]
      if let order {
        try AtomicFile.write(order, to: directory + "/idle.order")
        flags.append("-Wl,--symbol-ordering-file=" + directory + "/idle.order")
      }
      try runChecked(
        Toolchain.clang, flags + ["-DAPP_LIBRARY", fixtures + "app_idle.c", "-o", directory + "/libidle.so.1"])
    }
    let app = work.file("app")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-DAPP_MAIN", fixtures + "app_idle.c", "-o", app, work.file("built/libidle.so.1"),
        "-Wl,-rpath," + work.file("built"),
      ])
    try AtomicFile.write("main\n", to: work.file("base.order"))
    try AtomicFile.write("main\n", to: work.file("head.order"))
    let pids = work.file("pids")
    let result = try ProcessRunner.run(
      "timeout",
      [
        "60", PackagePaths.orderfileExecutable, "diff", work.file("base.order"), work.file("head.order"), "--json",
        "--base-binary", work.file("base/libidle.so.1"), "--head-binary", work.file("head/libidle.so.1"),
        "--time-limit", "300", "--", app, pids,
      ])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
    let measured = try #require(json["measured"] as? [String: Any], "\(result.standardOutput)")
    #expect(measured["baseBinary"] as? String == work.file("base/libidle.so.1"))
    let rows = measured["rows"] as? [[String: Any]] ?? []
    let pages = try #require(rows.first { $0["pageSize"] as? Int == 4096 }?["pages"] as? [String: Any], "\(rows)")
    #expect((pages["base"] as? Int ?? 0) > 0 && (pages["head"] as? Int ?? 0) > 0, "\(pages)")
    for pid in try BackgroundProcess.pids(writtenTo: pids) {
      #expect(!BackgroundProcess.isRunning(pid), "process \(pid) outlived diff")
    }
  }
}

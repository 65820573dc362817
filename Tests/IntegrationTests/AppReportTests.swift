import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// Tests/Fixtures/app: an executable and its own library, installed as a libtool build does
/// (`libappcore.so.1.0.0`, the SONAME `libappcore.so.1` a link to it). The library's two
/// constructors run for 1 and 6 ms, the executable's for 2; main runs 10 ms to `app_launch_done`;
/// then the app idles 300 ms and calls two functions more before it exits.
private func buildApp(in directory: TemporaryDirectory) throws -> String {
  let sources = PackagePaths.fixtures + "/app"
  let library = directory.file("libappcore.so.1.0.0")
  try runChecked(
    Toolchain.clang,
    ["-O2", "-g", "-fPIC", "-shared", "-Wl,-soname,libappcore.so.1", sources + "/appcore.c", "-o", library])
  try FileManager.default.createSymbolicLink(
    atPath: directory.file("libappcore.so.1"), withDestinationPath: "libappcore.so.1.0.0")
  try FileManager.default.createSymbolicLink(
    atPath: directory.file("libappcore.so"), withDestinationPath: "libappcore.so.1")
  let program = directory.file("app")
  try runChecked(
    Toolchain.clang,
    [
      "-O2", "-g", "-fPIE", "-pie", sources + "/app.c", "-o", program, "-L", directory.path, "-lappcore",
      "-Wl,-rpath," + directory.path,
    ])
  return program
}

private func object(_ text: String) throws -> [String: Any] {
  try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// The recorded launch of an app that idles after it, by either recorder: each arms the
/// library before its constructors run (the tracer at the loader's notice, the in-process
/// recorder, on this fixture, before the loader runs them). The library is named by the
/// path the loader opened (in-process) or by the real file (tracer).
@Suite("orderfile report on an app that idles after its launch", .serialized)
struct AppReportTests {
  @Test(
    "the idle time is one folded line, the bars scale to the launch, and the library's constructors are its own, in load order",
    arguments: ["tracer", "in-process"])
  func recordedApp(recorder: String) throws {
    let directory = try TemporaryDirectory("orderfile-app-report")
    let program = try buildApp(in: directory)
    let trace = directory.file("app.trace")
    let recorded = try orderfile([
      "record", "--recorder", recorder, "-o", trace, "--until", "app_launch_done", "--wait-for-exit", "--", program,
    ])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let html = directory.file("app.html")
    let chrome = directory.file("app.json")
    let json = try orderfile(["report", trace, "--json", "--html", html, "--chrome-trace", chrome])
    #expect(json.succeeded, "\(json.standardError)")
    let report = try object(json.standardOutput)

    // The launch ends at app_launch_done; the 300 ms after it are one phase, folded.
    let phases = report["phases"] as? [[String: Any]] ?? []
    let after = try #require(phases.last)
    #expect(after["isAfterLaunch"] as? Bool == true && after["name"] as? String == "after the launch")
    #expect(phases.filter { $0["isAfterLaunch"] as? Bool == true }.count == 1)
    let launchEnd = try #require(after["startNanoseconds"] as? Int)
    let afterDuration = try #require(after["endNanoseconds"] as? Int) - launchEnd
    #expect(afterDuration >= 300_000_000, "\(after)")
    // Times are on the program's clock, which a loaded machine shortens (the tracer takes out
    // the time the program waited to run): only the order of things is certain.
    #expect(launchEnd < afterDuration, "\(phases)")
    let afterFunctions = after["functions"] as? [String] ?? []
    #expect(afterFunctions.starts(with: ["app_on_idle", "app_on_quit"]), "\(afterFunctions)")
    let text = try orderfile(["report", trace])
    #expect(text.succeeded)
    let folded = String(format: "%.3f", Double(afterDuration) / 1e6)
    #expect(
      text.standardOutput.contains(
        "  after the launch: \(folded) ms, \(afterFunctions.count) functions (folded: not drawn to scale"),
      "\(text.standardOutput)")
    #expect(!text.standardOutput.contains("→ exit"), "\(text.standardOutput)")

    // Before main, by module in load order: the executable, then the library it needs, with
    // the library's two constructors its own and before the executable's.
    let preMain = try #require(report["preMain"] as? [String: Any])
    let libraries = preMain["libraries"] as? [[String: Any]] ?? []
    let names = libraries.compactMap { ($0["module"] as? String).map { PathName.split($0).base } }
    #expect(names.count == 2 && names.first == "app" && names.last?.hasPrefix("libappcore.so.1") == true, "\(names)")
    #expect(libraries.map { $0["loadOrder"] as? Int } == [0, 1])
    try #require(libraries.count == 2, "\(libraries)")
    let (app, core) = (libraries[0], libraries[1])
    let coreConstructors = core["constructors"] as? [String] ?? []
    #expect(coreConstructors.contains("appcore_register_types") && coreConstructors.contains("appcore_load_resources"))
    #expect(!(app["constructors"] as? [String] ?? []).contains { $0.hasPrefix("appcore") })
    #expect((app["constructors"] as? [String] ?? []).contains("app_early_init"))
    let coreStart = try #require(core["constructorsStartNanoseconds"] as? Int)
    let appStart = try #require(app["constructorsStartNanoseconds"] as? Int)
    #expect(coreStart < appStart)
    // The executable's constructors run last, up to main, whatever the recorder stamped late
    // (`frame_dummy` of the library, after the executable's entry).
    let runs = preMain["modules"] as? [[String: Any]] ?? []
    #expect((runs.last?["module"] as? String)?.hasSuffix("/app") == true, "\(runs)")
    #expect(runs.last?["endNanoseconds"] as? Int == preMain["mainNanoseconds"] as? Int)
    let coreCalls = try #require(core["calls"] as? [String: Any])
    // register_types, register_type, load_resources, load_resource at least.
    #expect((coreCalls["firstCalls"] as? Int ?? 0) >= 4, "\(coreCalls)")
    #expect((core["relocations"] as? [String: Any])?["relative"] as? Int ?? 0 > 0)
    for note in ["measured: process start → main", "inferred: where each module's constructors start"] {
      #expect(text.standardOutput.contains(note), "\(text.standardOutput)")
    }

    // main → launch end by module: the window and show calls are the library's.
    let window = report["mainToLaunchEnd"] as? [[String: Any]] ?? []
    let coreWindow = try #require(window.first { ($0["module"] as? String)?.contains("/libappcore.so.1") == true })
    #expect(coreWindow["firstCalls"] as? Int == 2, "\(window)")
    let appWindow = try #require(window.first { ($0["module"] as? String)?.hasSuffix("/app") == true })
    #expect(appWindow["lastNanoseconds"] as? Int ?? .max <= launchEnd, "\(window)")

    // The HTML bar: each phase of the launch in proportion to the launch, not to the idle.
    let page = try FileReading.text(atPath: html)
    let bar = try #require(page.components(separatedBy: "</svg>").first)
    let widths = svgRectWidths(bar, class: "phase")
    let launchPhases = phases.dropLast()
    #expect(widths.count == launchPhases.count)
    let launchWidth = 780.0
    for (width, phase) in zip(widths, launchPhases) {
      let duration = Double((phase["endNanoseconds"] as? Int ?? 0) - (phase["startNanoseconds"] as? Int ?? 0))
      let expected = max(duration / Double(launchEnd) * launchWidth, 1)
      #expect(abs(width - expected) <= 0.1, "\(phase["name"] ?? ""): \(width) px against \(expected)")
    }
    #expect(abs(widths.reduce(0, +) - launchWidth) <= 1)
    #expect(svgRectWidths(bar, class: "after-launch") == [110])

    // The Chrome trace ends at the launch's end.
    let events = try object(try FileReading.text(atPath: chrome))["traceEvents"] as? [[String: Any]] ?? []
    let latest = events.compactMap { event in (event["ts"] as? Double).map { $0 + (event["dur"] as? Double ?? 0) } }
      .max()
    #expect(latest.map { $0 <= Double(launchEnd) / 1000 + 0.001 } == true, "\(latest ?? 0) µs")
    #expect(events.contains { $0["cat"] as? String == "after the launch" })
  }
}

import Foundation
import OrderfileProfile
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// An app's launch: the executable and its own library (written `/opt/app/lib/libcore.so.1.2.0`,
/// the real file behind the SONAME `libcore.so.1` the executable needs), and a plugin the
/// executable opens with `dlopen` before main. The library's constructor runs from 2 to 7 ms,
/// the executable's from 7 to 9 ms, main at 10 ms; the launch ends at 30 ms; the app then
/// idles until 1,000 ms, with a mark and two first calls after the window.
private let core = TableSymbolizer(["core_ctor", "core_types", "core_window", "core_idle", "core_frame"])
private let app = TableSymbolizer(["app_ctor", "main", "app_ready", "app_quit"])
private let plugin = TableSymbolizer(["plugin_ctor", "plugin_run"])

private func appTrace() -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 2, pid: 100, parentPID: nil, forkRecordIndex: nil, recordCapacity: 64,
    moduleCapacity: 3, processStartNanoseconds: start, processStartResolutionNanoseconds: 1_000,
    processStartSource: .spawn, traceStartNanoseconds: start + 2 * ms, startupEndNanoseconds: nil,
    timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true, windowReason: .startupComplete,
    windowEndNanoseconds: start + 30 * ms, endNanoseconds: start + 1_000 * ms, minorFaults: nil, majorFaults: nil)
  // The module table in address order, as the tracer writes it: not the load order.
  let modules = [
    TraceModule(
      index: 0, path: "/opt/app/lib/plugin.so", buildID: [], loadBase: 0, textRange: 0..<0x100000,
      isMainExecutable: false),
    TraceModule(
      index: 1, path: "/opt/app/lib/libcore.so.1.2.0", buildID: [], loadBase: 0, textRange: 0..<0x100000,
      isMainExecutable: false),
    TraceModule(
      index: 2, path: "/opt/app/bin/app", buildID: [], loadBase: 0, textRange: 0..<0x100000, isMainExecutable: true),
  ]
  let tables = [plugin, core, app]
  func call(_ module: Int, _ name: String, _ at: UInt64, thread: UInt32 = 100, _ phase: Phase = .launch)
    -> FirstCall
  {
    FirstCall(
      module: module, address: tables[module].address(name), timeNanoseconds: start + at, threadID: thread,
      phase: phase)
  }
  let records = [
    call(1, "core_ctor", 2 * ms), call(1, "core_types", 3 * ms),
    // The library's last initializer, stamped late (after the executable's began), as both
    // recorders stamp `frame_dummy`, which only jumps on.
    call(2, "app_ctor", 7 * ms), call(1, "core_frame", 7 * ms + 500_000), call(0, "plugin_ctor", 8 * ms),
    call(2, "main", 10 * ms), call(1, "core_window", 12 * ms), call(0, "plugin_run", 20 * ms, thread: 101),
    call(2, "app_ready", 30 * ms),
    call(1, "core_idle", 600 * ms, .postWindow), call(2, "app_quit", 990 * ms, .postWindow),
  ]
  return Trace(
    path: "app.trace", header: header, modules: modules, records: records,
    marks: [
      Mark(name: "window mapped", timeNanoseconds: start + 25 * ms, threadID: 100),
      Mark(name: "first idle", timeNanoseconds: start + 500 * ms, threadID: 100),
    ])
}

private func relocations(_ relative: Int) -> ModuleLoading.Relocations {
  .init(relative: relative, symbolic: 10, procedureLinkage: 5, bindNow: false)
}

private func appSymbols() -> SymbolTable {
  SymbolTable(
    symbolizers: [0: plugin, 1: core, 2: app],
    initializers: [
      0: [StaticInitializer(source: .initArray, address: plugin.address("plugin_ctor"))],
      1: [
        StaticInitializer(source: .initArray, address: core.address("core_ctor")),
        StaticInitializer(source: .initArray, address: core.address("core_frame")),
      ],
      2: [StaticInitializer(source: .initArray, address: app.address("app_ctor"))],
    ],
    loading: [
      0: ModuleLoading(soname: "plugin.so", needed: ["libc.so.6"], relocations: relocations(1)),
      1: ModuleLoading(soname: "libcore.so.1", needed: ["libc.so.6"], relocations: relocations(200)),
      2: ModuleLoading(soname: nil, needed: ["libc.so.6", "libcore.so.1"], relocations: relocations(30)),
    ])
}

@Suite("A report for apps")
struct AppLaunchTests {
  let profile = ProfileBuilder().build(trace: appTrace(), symbols: appSymbols())

  @Test("the launch ends at the window's end: what follows, marks and all, is one folded phase")
  func folded() throws {
    #expect(
      profile.phases.map(\.name) == [
        "process start → first hook", "first hook → main", "main → window mapped", "window mapped → startup complete",
        "after the launch",
      ])
    #expect(profile.launchEndNanoseconds == 30 * ms)
    let after = try #require(profile.afterLaunch)
    #expect(after.startNanoseconds == 30 * ms && after.endNanoseconds == 1_000 * ms)
    #expect(after.functions == ["core_idle", "app_quit"])
    #expect(profile.launchPhases.count == 4 && profile.launchPhases.allSatisfy { $0.endNanoseconds <= 30 * ms })
    // The call that closed the window belongs to the launch.
    #expect(profile.launchPhases.last?.functions == ["app_ready"])
    let text = ProfileTextRenderer().render(profile)
    #expect(text.contains("  after the launch: 970.000 ms, 2 functions (folded"), "\(text)")
    #expect(!text.contains("→ first idle") && !text.contains("startup complete → exit"), "\(text)")
    #expect(ProfileMarkdownRenderer().render(profile).contains("After the launch: 970.000 ms, 2 functions"))
  }

  @Test("a launch that ran to its exit folds nothing")
  func nothingFolded() {
    var trace = appTrace()
    trace.header.windowReason = .exit
    trace.records.removeAll { $0.phase == .postWindow }
    let profile = ProfileBuilder().build(trace: trace, symbols: appSymbols())
    #expect(profile.afterLaunch == nil)
    #expect(profile.launchEndNanoseconds == 1_000 * ms)
    #expect(!ProfileTextRenderer().render(profile).contains("after the launch"))
  }

  @Test("the HTML phase bar is scaled to the launch window; the idle time after it is a box of fixed width")
  func htmlScale() throws {
    let html = ProfileHTMLRenderer().render(profile)
    let bar = try #require(html.components(separatedBy: "</svg>").first)
    let widths = svgRectWidths(bar, class: "phase")
    let launchWidth = Double(900 - ProfileHTMLRenderer.foldedWidth - ProfileHTMLRenderer.foldedGap)
    #expect(widths.count == 4)
    for (width, phase) in zip(widths, profile.launchPhases) {
      let expected = Double(phase.durationNanoseconds) / Double(30 * ms) * launchWidth
      #expect(abs(width - max(expected, 1)) <= 0.1, "\(phase.name): \(width) px against \(expected)")
    }
    #expect(abs(widths.reduce(0, +) - launchWidth) <= 0.5)
    #expect(svgRectWidths(bar, class: "after-launch") == [Double(ProfileHTMLRenderer.foldedWidth)])
    #expect(bar.contains("after: 970.000 ms"))
    #expect(html.contains("After the launch: 970.000 ms, 2 functions"))
  }

  @Test("the Chrome trace ends at the launch's end, the rest one instant")
  func chromeTrace() throws {
    let json = try ChromeTraceExporter(trace: appTrace(), symbols: appSymbols()).render(profile)
    try ChromeTraceValidator.validate(json)
    let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    let events = document?["traceEvents"] as? [[String: Any]] ?? []
    let ends = events.compactMap { event -> Double? in
      guard let ts = event["ts"] as? Double else { return nil }
      return ts + (event["dur"] as? Double ?? 0)
    }
    #expect(ends.max() == 30_000, "µs from process start")
    let folded = events.filter { $0["cat"] as? String == "after the launch" }
    #expect(folded.count == 1)
    #expect((folded.first?["args"] as? [String: Any])?["durationNanoseconds"] as? Int == Int(970 * ms))
    #expect(!events.contains { $0["name"] as? String == "app_quit" || $0["name"] as? String == "first idle" })
  }

  @Test("before main by module: in load order from DT_NEEDED, each with its own constructors and first calls")
  func beforeMainByModule() throws {
    let preMain = try #require(profile.preMain)
    // The executable, then the library it needs by SONAME (recorded by its real file); the
    // plugin no DT_NEEDED names comes last, without a place in the load order.
    #expect(
      preMain.libraries.map(\.module) == [
        "/opt/app/bin/app", "/opt/app/lib/libcore.so.1.2.0", "/opt/app/lib/plugin.so",
      ])
    #expect(preMain.libraries.map(\.loadOrder) == [0, 1, nil])
    // A library loaded at start has one run: the late stamp of its last initializer stays
    // in the executable's run, which the plugin's (opened by it) follows.
    #expect(
      preMain.modules.map(\.module) == [
        "/opt/app/lib/libcore.so.1.2.0", "/opt/app/bin/app", "/opt/app/lib/plugin.so",
      ])
    #expect(preMain.modules.map(\.durationNanoseconds) == [5 * ms, 1 * ms, 2 * ms])
    let core = preMain.libraries[1]
    #expect(core.constructors == ["core_ctor"])
    #expect(core.constructorsStartNanoseconds == 2 * ms && core.constructorsNanoseconds == 5 * ms)
    #expect(core.calls?.firstCalls == 3 && core.calls?.firstNanoseconds == 2 * ms)
    #expect(core.calls?.lastNanoseconds == 7 * ms + 500_000)
    #expect(core.relocations?.relative == 200)
    let executable = preMain.libraries[0]
    #expect(executable.constructors == ["app_ctor"])
    #expect(executable.constructorsStartNanoseconds == 7 * ms)
    // The plugin's constructor ran inside the executable's: its run, and its own first call.
    #expect(preMain.libraries[2].calls?.firstCalls == 1)
    // The loader's time is measured in all only, and each renderer says so.
    #expect(preMain.loaderNanoseconds == 2 * ms)
    let text = ProfileTextRenderer().render(profile)
    #expect(text.contains("before main by module, in load order"))
    for note in StartupProfile.PreMain.libraryNotes {
      #expect(text.contains(note))
      #expect(ProfileMarkdownRenderer().render(profile).contains(note))
      #expect(ProfileHTMLRenderer().render(profile).contains(TextFormatting.html(note)))
    }
    let row = text.split(separator: "\n").first { $0.contains("libcore.so.1.2.0") && $0.contains("relative") }
    #expect(
      row?.split(separator: " ").joined(separator: " ")
        == "1 libcore.so.1.2.0 210 (200 relative + 10 symbolic; 5 PLT at first call) 2.000 ms 5.000 ms 3 2.000 ms → 7.500 ms",
      "\(text)")
  }

  @Test("main → launch end by module: each module's first calls in the window, any thread, and their span")
  func mainToLaunchEnd() throws {
    let modules = try #require(profile.mainToLaunchEnd)
    #expect(modules.map(\.module) == ["/opt/app/bin/app", "/opt/app/lib/libcore.so.1.2.0", "/opt/app/lib/plugin.so"])
    #expect(modules.map(\.firstCalls) == [2, 1, 1])
    #expect(modules[0].firstNanoseconds == 10 * ms && modules[0].lastNanoseconds == 30 * ms)
    #expect(modules[0].spanNanoseconds == 20 * ms)
    #expect(profile.mainToLaunchEndTitle.hasPrefix("main → launch end by module: 20.000 ms"))
    let text = ProfileTextRenderer().render(profile)
    let row = text.split(separator: "\n").first { $0.hasPrefix("  plugin.so") }
    #expect(
      row?.split(separator: " ").joined(separator: " ") == "plugin.so 1 20.000 ms 20.000 ms 0.000 ms 1", "\(text)")
  }

  @Test("JSON carries the folded phase, the modules before main and after it, and reads back the same")
  func json() throws {
    let text = try JSONRenderer<StartupProfile>().render(profile)
    #expect(text.contains("\"isAfterLaunch\" : true"))
    #expect(text.contains("\"mainToLaunchEnd\""))
    #expect(text.contains("\"loadOrder\" : 1"))
    #expect(text.contains("\"procedureLinkage\" : 5"))
    #expect(try JSONDecoder().decode(StartupProfile.self, from: Data(text.utf8)) == profile)
    // Deterministic: the same trace gives the same bytes.
    let again = try JSONRenderer<StartupProfile>().render(
      ProfileBuilder().build(trace: appTrace(), symbols: appSymbols()))
    #expect(again == text)
  }
}

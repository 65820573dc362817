import Foundation
import OrderfileProfile
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing

/// A library and an executable built by clang: the library's constructor is instrumented, the
/// executable's `_GLOBAL__sub_I_app` is not (only the helper it calls is), and the
/// executable's initializers call into the library.
private let library = TableSymbolizer(["lib_ctor", "lib_sleep", "lib_util"])
private let executable = TableSymbolizer(["_GLOBAL__sub_I_app", "app_init_helper", "main", "later"])

/// Process start at 0; first hook at 1 ms, runtime up at 1.5 ms, first record at 2 ms; the
/// library's initializers from 2 to 7 ms, the executable's from 7 to 10 ms; main at 10 ms.
private func clangTrace(startupEnd: UInt64? = start + 1_500_000, source: ProcessStartSource = .spawn) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 2, pid: 100, parentPID: nil, forkRecordIndex: nil, recordCapacity: 64,
    moduleCapacity: 2, processStartNanoseconds: start, processStartResolutionNanoseconds: 1_000,
    processStartSource: source, traceStartNanoseconds: start + 1 * ms, startupEndNanoseconds: startupEnd,
    timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true, windowReason: .exit,
    windowEndNanoseconds: start + 12 * ms, endNanoseconds: start + 12 * ms, minorFaults: nil, majorFaults: nil)
  let modules = [
    TraceModule(
      index: 0, path: "/lib/libx.so", buildID: [], loadBase: 0, textRange: 0..<0x100000, isMainExecutable: false),
    TraceModule(index: 1, path: "/bin/app", buildID: [], loadBase: 0, textRange: 0..<0x100000, isMainExecutable: true),
  ]
  func call(_ module: Int, _ name: String, _ at: UInt64, thread: UInt32 = 100) -> FirstCall {
    let symbols = module == 0 ? library : executable
    return FirstCall(
      module: module, address: symbols.address(name) + 4, timeNanoseconds: start + at, threadID: thread, phase: .launch)
  }
  let records = [
    call(0, "lib_ctor", 2 * ms), call(0, "lib_sleep", 2 * ms + 100_000),
    // A thread the library's constructor started: the loader runs no initializer there.
    call(1, "later", 3 * ms, thread: 101),
    call(1, "app_init_helper", 7 * ms), call(0, "lib_util", 8 * ms), call(1, "main", 10 * ms),
  ]
  return Trace(path: "premain.trace", header: header, modules: modules, records: records)
}

private func symbols() -> SymbolTable {
  SymbolTable(
    symbolizers: [0: library, 1: executable],
    initializers: [
      0: [StaticInitializer(source: .initArray, address: library.address("lib_ctor"))],
      1: [StaticInitializer(source: .initArray, address: executable.address("_GLOBAL__sub_I_app"))],
    ])
}

@Suite("The time before main, split")
struct PreMainBuilderTests {
  @Test("loader, runtime start-up, then each module's initializers, up to main")
  func split() throws {
    let preMain = try #require(ProfileBuilder().build(trace: clangTrace(), symbols: symbols()).preMain)
    #expect(preMain.mainNanoseconds == 10 * ms)
    #expect(preMain.loaderNanoseconds == 1 * ms)
    // From the first hook to the first record: the runtime's start-up and its module lookup.
    #expect(preMain.runtimeStartupNanoseconds == 1 * ms)
    #expect(preMain.modules.map(\.module) == ["/lib/libx.so", "/bin/app"])
    #expect(preMain.modules.map(\.durationNanoseconds) == [5 * ms, 3 * ms])
    #expect(preMain.modules.map(\.initializers) == [["lib_ctor"], []])
    // The executable's initializers start at the helper an uninstrumented initializer called,
    // and the library function they call stays theirs.
    #expect(preMain.modules.map(\.functions) == [["lib_ctor", "lib_sleep"], ["app_init_helper", "lib_util"]])
    #expect(preMain.otherNanoseconds == 0)
    #expect(preMain.programNanoseconds == 9 * ms)
    #expect(
      preMain.parts.map(\.name) == [
        "loader (exec, mapping, relocation)", "runtime start-up (overhead)", "initializers of libx.so",
        "initializers of app",
      ])
    #expect(preMain.parts.map(\.isOverhead) == [false, true, false, false])
  }

  @Test("without the runtime in the process the loader runs to the first initializer")
  func outsideRecorder() throws {
    let preMain = try #require(
      ProfileBuilder().build(trace: clangTrace(startupEnd: nil), symbols: symbols()).preMain)
    #expect(preMain.runtimeStartupNanoseconds == nil)
    #expect(preMain.loaderNanoseconds == 2 * ms)
    #expect(preMain.programNanoseconds == preMain.mainNanoseconds)
  }

  @Test("a trace recorded without the runtime has no runtime start-up to leave out, in any report")
  func noRuntimeReports() throws {
    let launches = (0..<2).map { index -> (trace: Trace, profile: StartupProfile) in
      var trace = clangTrace(startupEnd: nil)
      trace.path = "launch\(index).trace"
      return (trace, ProfileBuilder().build(trace: trace, symbols: symbols()))
    }
    let series = try LaunchSeries(profiles: launches)
    #expect(!series.statistics.contains { $0.name.contains("without the runtime") })
    let profile = launches[0].profile
    let text = ProfileTextRenderer().render(profile)
    #expect(text.contains("before main: ") && !text.contains("the program's own"), "\(text)")
    let html = ProfileHTMLRenderer().render(profile)
    #expect(!html.contains("hatched"))
    #expect(html.contains("Recorded without the runtime"))
  }

  @Test("without main there is no split; the text names the start's source")
  func sourcesAndText() throws {
    var trace = clangTrace(source: .procStat)
    trace.header.processStartResolutionNanoseconds = 10 * ms
    let profile = ProfileBuilder().build(trace: trace, symbols: symbols())
    let text = ProfileTextRenderer().render(profile)
    #expect(
      text.contains("known to 10.000 ms (estimated from /proc: its clock tick, and its time run and waiting to run)"))
    #expect(text.contains("before main: 10.000 ms, the program's own 9.000 ms"))
    #expect(text.contains("initializers of libx.so"))
    let exact = ProfileTextRenderer().render(ProfileBuilder().build(trace: clangTrace(), symbols: symbols()))
    #expect(exact.contains("times from process start, exact, from the recorder's spawn time"))
    trace.records.removeAll { $0.timeNanoseconds == start + 10 * ms }
    #expect(ProfileBuilder().build(trace: trace, symbols: symbols()).preMain == nil)
  }

  @Test("JSON carries the source by name and the split")
  func json() throws {
    let profile = ProfileBuilder().build(trace: clangTrace(), symbols: symbols())
    let text = try JSONRenderer<StartupProfile>().render(profile)
    #expect(text.contains("\"processStartSource\" : \"spawn\""))
    #expect(text.contains("\"runtimeStartupNanoseconds\" : 1000000"))
    let decoded = try JSONDecoder().decode(StartupProfile.self, from: Data(text.utf8))
    #expect(decoded == profile)
  }

  @Test("the HTML report shows the split and each module's initializers")
  func htmlReport() {
    let html = ProfileHTMLRenderer().render(ProfileBuilder().build(trace: clangTrace(), symbols: symbols()))
    #expect(html.contains("<h2>Before main: 10.000 ms</h2>"))
    #expect(html.contains("<b>lib_ctor</b>, lib_sleep"))
    #expect(html.contains("url(#overhead)"))
  }
}

@Suite("Several launches of one program")
struct LaunchSeriesTests {
  /// Launches whose library initializers took 4, 5, 6 and 9 ms.
  func profiles() -> [(trace: Trace, profile: StartupProfile)] {
    [4, 5, 6, 9].enumerated().map { index, libraryMilliseconds in
      var trace = clangTrace()
      trace.path = "launch\(index).trace"
      // The executable's calls move with the end of the library's initializers.
      for position in trace.records.indices where trace.records[position].module == 1 {
        trace.records[position].timeNanoseconds =
          trace.records[position].timeNanoseconds + UInt64(libraryMilliseconds) * ms - 5 * ms
      }
      return (trace, ProfileBuilder().build(trace: trace, symbols: symbols()))
    }
  }

  @Test("each phase and part: launches, median, quartiles and range")
  func statistics() throws {
    let series = try LaunchSeries(profiles: profiles())
    #expect(series.traces == ["launch0.trace", "launch1.trace", "launch2.trace", "launch3.trace"])
    #expect(series.processStartSources == ["spawn": 4])
    let library = try #require(series.statistics.first { $0.name == "initializers of libx.so" })
    #expect(library.launches == 4)
    #expect(library.medianNanoseconds == 5_500_000)
    #expect(library.percentile25Nanoseconds == 4_750_000)
    #expect(library.percentile75Nanoseconds == 6_750_000)
    #expect(library.minimumNanoseconds == 4 * ms && library.maximumNanoseconds == 9 * ms)
    let executable = try #require(series.statistics.first { $0.name == "initializers of app" })
    #expect(executable.medianNanoseconds == 3 * ms && executable.minimumNanoseconds == executable.maximumNanoseconds)
    let main = try #require(series.statistics.first { $0.name == "process start → main" })
    #expect(main.medianNanoseconds == 10_500_000)
    #expect(series.statistics.first { $0.isOverhead }?.name == "runtime start-up (overhead)")
    #expect(series.statistics.contains { $0.group == .phase && $0.name == "first hook → main" })
    let text = LaunchSeriesTextRenderer().render(series)
    #expect(text.hasPrefix("4 launches of /bin/app; process start from 4 spawn\n"))
    let row = text.split(separator: "\n").first { $0.contains("initializers of libx.so") }
    #expect(
      row?.split(separator: " ").joined(separator: " ")
        == "initializers of libx.so 4 5.500 ms 4.750 ms 6.750 ms 4.000 ms 9.000 ms")
    #expect(LaunchSeriesMarkdownRenderer().render(series).contains("| initializers of libx.so | 4 | 5.500 ms |"))
  }

  @Test("launches of different programs are refused, naming both")
  func differentPrograms() {
    var launches = profiles()
    launches[2].trace.modules[1].path = "/bin/other"
    #expect(
      throws: ProfileError.differentPrograms(
        first: "launch0.trace", firstProgram: "/bin/app", other: "launch2.trace", otherProgram: "/bin/other")
    ) { try LaunchSeries(profiles: launches) }
  }
}

import OrderfileOrdering
import OrderfileSymbolization
import OrderfileTrace
import Testing

func launchTrace(_ addresses: [UInt64]) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 0, pid: 1, parentPID: nil, forkRecordIndex: nil, recordCapacity: 64,
    moduleCapacity: 1, processStartNanoseconds: 0, processStartResolutionNanoseconds: 1, traceStartNanoseconds: 0,
    timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true, windowReason: .startupComplete,
    windowEndNanoseconds: 100, endNanoseconds: 100, minorFaults: nil, majorFaults: nil)
  let module = TraceModule(
    index: 0, path: "/build/instrumented/app", buildID: [], loadBase: 0, textRange: 0..<0x10000, isMainExecutable: true)
  let records = addresses.enumerated().map {
    FirstCall(module: 0, address: $0.element, timeNanoseconds: UInt64($0.offset), threadID: 1, phase: .launch)
  }
  return Trace(path: "t.trace", header: header, modules: [module], records: records)
}

@Suite("Release comparison")
struct ReleaseComparisonTests {
  let instrumented = FakeSymbolizer(
    path: "/build/instrumented/app",
    functions: [symbol("main", 0x1000), symbol("_ZNKSt6vector4sizeEv", 0x1100), symbol("parse", 0x1200)])
  let release = FakeSymbolizer(
    path: "/build/release/app",
    functions: [symbol("main", 0x1000), symbol("parse.constprop.0", 0x1040, binding: .local)])

  @Test("functions the release binary lacks are named inlined or renamed, left out, and lower the match rate")
  func leftOut() throws {
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1100, 0x1200]), module: 0, symbolizer: instrumented)
    #expect(order.matchRate == 1)
    let compared = ReleaseComparison.apply(to: order, release: release, keepAbsent: false)
    // parse is gone, but its release copy takes its place: an entry, not a match.
    #expect(compared.functions.map(\.symbol.name) == ["main", "parse.constprop.0"])
    #expect(compared.release?.placedCopies == ["parse.constprop.0"])
    #expect(
      compared.release?.absent == [
        AbsentFunction(name: "_ZNKSt6vector4sizeEv", reason: .inlined),
        AbsentFunction(name: "parse", reason: .renamed, releaseName: "parse.constprop.0"),
      ])
    #expect(compared.recordedFunctions == 3)
    #expect(compared.matchRate == 1.0 / 3.0)
  }

  @Test("a Rust function with another hash in the release build is entered under the release name, and matched")
  func rustHashChanged() {
    let recorded = FakeSymbolizer(
      path: "/build/instrumented/app",
      functions: [
        symbol("_ZN2rg4main17h0123456789abcdefE", 0x1000), symbol("_ZN2rg4args17haaaaaaaaaaaaaaaaE", 0x1100),
        symbol("_ZN2rg6inline17hbbbbbbbbbbbbbbbbE", 0x1200),
      ])
    let shipped = FakeSymbolizer(
      path: "/build/release/app",
      functions: [
        symbol("_ZN2rg4main17hfedcba9876543210E", 0x1000), symbol("_ZN2rg4args17haaaaaaaaaaaaaaaaE", 0x1040),
      ])
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1100, 0x1200]), module: 0, symbolizer: recorded)
    let compared = ReleaseComparison.apply(to: order, release: shipped, keepAbsent: false)
    #expect(
      compared.functions.map(\.symbol.name) == ["_ZN2rg4main17hfedcba9876543210E", "_ZN2rg4args17haaaaaaaaaaaaaaaaE"])
    #expect(
      compared.release?.rehashed == [
        ReleaseComparison.Rehash(
          recorded: "_ZN2rg4main17h0123456789abcdefE", release: "_ZN2rg4main17hfedcba9876543210E")
      ])
    #expect(compared.release?.absent == [AbsentFunction(name: "_ZN2rg6inline17hbbbbbbbbbbbbbbbbE", reason: .inlined)])
    #expect(compared.matchRate == 2.0 / 3.0)
  }

  @Test("kept absent entries stay in the order but still count as unmatched")
  func kept() {
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1100, 0x1200]), module: 0, symbolizer: instrumented)
    let compared = ReleaseComparison.apply(to: order, release: release, keepAbsent: true)
    #expect(compared.functions.map(\.symbol.name) == ["main", "_ZNKSt6vector4sizeEv", "parse", "parse.constprop.0"])
    #expect(compared.matchRate == 1.0 / 3.0)
  }

  @Test("the release build's copies of a launch function follow it; cold parts and unplaceable copies do not")
  func copiesFollowTheirFunction() {
    let recorded = FakeSymbolizer(
      path: "/build/instrumented/app",
      functions: [symbol("main", 0x1000), symbol("draw", 0x1100), symbol("idle", 0x1200)])
    let shipped = FakeSymbolizer(
      path: "/build/release/app",
      functions: [
        symbol("main", 0x1000), symbol("draw.isra.0", 0x1040, binding: .local), symbol("idle", 0x1080),
        symbol("draw", 0x10c0), symbol("draw.part.0", 0x1100, binding: .local),
        symbol("draw.cold", 0x1140, binding: .local),
        symbol("main.constprop.0", 0x1180, size: 0, binding: .local), symbol("other.part.0", 0x11c0, binding: .local),
      ])
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1100]), module: 0, symbolizer: recorded)
    let compared = ReleaseComparison.apply(to: order, release: shipped, keepAbsent: false)
    #expect(compared.functions.map(\.symbol.name) == ["main", "draw", "draw.isra.0", "draw.part.0"])
    #expect(compared.release?.placedCopies == ["draw.isra.0", "draw.part.0"])
    #expect(compared.recordedFunctions == 2)
    #expect(compared.matchRate == 1)
  }

  @Test("for an instrumented build's trace, the release build's cold parts of launch functions go last, in call order")
  func coldPartsOfAnInstrumentedTrace() {
    let recorded = FakeSymbolizer(
      path: "/build/instrumented/app",
      functions: [symbol("main", 0x1000), symbol("parse", 0x1100), symbol("draw", 0x1200)])
    let shipped = FakeSymbolizer(
      path: "/build/release/app",
      functions: [
        symbol("draw.cold", 0x0f00, binding: .local), symbol("main", 0x1000), symbol("draw", 0x1040),
        symbol("draw.part.0", 0x1080, binding: .local), symbol("draw.part.0.cold", 0x10c0, binding: .local),
        symbol("parse", 0x1100), symbol("parse.cold", 0x1140, binding: .local),
        symbol("idle.cold", 0x1180, binding: .local), symbol("main.cold", 0x11c0, size: 0, binding: .local),
      ])
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1200, 0x1100]), module: 0, symbolizer: recorded)
    let compared = ReleaseComparison.apply(to: order, release: shipped, keepAbsent: false, placeColdParts: true)
    // idle did not run, and main.cold has no size to place.
    #expect(
      compared.functions.map(\.symbol.name) == [
        "main", "draw", "draw.part.0", "parse", "draw.cold", "draw.part.0.cold", "parse.cold",
      ])
    #expect(compared.release?.placedColdParts == ["draw.cold", "draw.part.0.cold", "parse.cold"])
    #expect(compared.recordedFunctions == 3)
    #expect(compared.matchRate == 1)
    // A trace of the binary itself saw which cold parts ran: none is added.
    let exact = ReleaseComparison.apply(to: order, release: shipped, keepAbsent: false)
    #expect(exact.functions.map(\.symbol.name) == ["main", "draw", "draw.part.0", "parse"])
  }

  @Test("release binaries match modules by file name; a stray one is refused")
  func matchedByFileName() throws {
    let trace = launchTrace([0x1000, 0x1100, 0x1200])
    let order = OrderBuilder().order(trace: trace, module: 0, symbolizer: instrumented)
    let matched = ReleaseBinaries(paths: ["/build/release/app"], open: { _ in self.release })
    #expect(try matched.compare(order).matchRate == 1.0 / 3.0)
    try matched.checkMatched(modules: trace.modules, traces: [trace.path])
    let stray = ReleaseBinaries(paths: ["/build/release/other"], open: { _ in self.release })
    #expect(throws: OrderingError.self) { try stray.checkMatched(modules: trace.modules, traces: [trace.path]) }
  }
}

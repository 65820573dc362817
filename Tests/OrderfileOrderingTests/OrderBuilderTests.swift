import OrderfileOrdering
import OrderfileSymbolization
import OrderfileTrace
import Testing

private func trace(_ calls: [(UInt64, UInt32, Phase)], module: Int = 0) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 0, pid: 1, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
    moduleCapacity: 2, processStartNanoseconds: 1000, processStartResolutionNanoseconds: 1,
    traceStartNanoseconds: 1000, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
    windowReason: .startupComplete, windowEndNanoseconds: 5000, endNanoseconds: 6000, minorFaults: nil,
    majorFaults: nil)
  let modules = [
    TraceModule(
      index: 0, path: "/usr/bin/app", buildID: [], loadBase: 0, textRange: 0..<0x10000, isMainExecutable: true),
    TraceModule(
      index: 1, path: "/usr/lib/libx.so", buildID: [], loadBase: 0, textRange: 0..<0x10000,
      isMainExecutable: false),
  ]
  let records = calls.enumerated().map { index, call in
    FirstCall(
      module: module, address: call.0, timeNanoseconds: 1000 + UInt64(index) * 10, threadID: call.1,
      phase: call.2)
  }
  return Trace(path: "t.trace", header: header, modules: modules, records: records)
}

@Suite("Order builder")
struct OrderBuilderTests {
  let symbols = FakeSymbolizer(functions: [
    symbol("main", 0x1000),
    symbol("init_config", 0x1040, aliases: ["config_init_alias"]),
    symbol("parse", 0x1080, binding: .local),
    symbol("parse", 0x2000, binding: .local),
    symbol("worker", 0x1100),
    symbol("render.cold", 0x3000, binding: .local),
    symbol("later", 0x4000),
    symbol("helper.isra.0", 0x5000, binding: .local),
  ])

  @Test("first-call order is kept and repeated functions keep their first position")
  func firstCallOrder() {
    let order = OrderBuilder().order(
      trace: trace([
        (0x1000, 1, .launch), (0x1100, 2, .launch), (0x1040, 1, .launch), (0x1108, 3, .launch),
        (0x1080, 1, .launch),
      ]),
      module: 0, symbolizer: symbols)
    #expect(order.functions.map(\.symbol.name) == ["main", "worker", "init_config", "parse"])
    // 0x1108 is inside worker: a second address in a function already listed.
    #expect(order.duplicateRecords == 1)
    #expect(order.functions.map(\.threadID) == [1, 2, 1, 1])
    #expect(order.functions.map(\.firstCallNanoseconds) == [0, 10, 20, 40])
    #expect(order.matchRate == 1)
  }

  @Test("aliases fold into one entry, and a shared local name is reported")
  func aliasesAndAmbiguousLocals() {
    let order = OrderBuilder().order(
      trace: trace([(0x1040, 1, .launch), (0x1080, 1, .launch)]), module: 0, symbolizer: symbols)
    #expect(order.functions.map(\.symbol.name) == ["init_config", "parse"])
    #expect(order.foldedAliases == 1)
    #expect(order.ambiguousNames == [AmbiguousName(name: "parse", addresses: [0x1080, 0x2000])])
  }

  @Test("unresolved addresses count against the match rate; cold parts that ran are entries")
  func unresolvedAndCold() {
    let order = OrderBuilder().order(
      trace: trace([(0x1000, 1, .launch), (0x9000, 1, .launch), (0x9000, 2, .launch), (0x3000, 1, .launch)]),
      module: 0, symbolizer: symbols)
    #expect(order.functions.map(\.symbol.name) == ["main", "render.cold"])
    #expect(order.unresolvedAddresses == [0x9000])
    #expect(order.coldParts.isEmpty)
    #expect(order.placedColdParts == ["render.cold"])
    #expect(order.recordedFunctions == 3)
    #expect(abs(order.matchRate - 2.0 / 3.0) < 1e-9)
  }

  @Test("cold parts that ran go after every other entry, in the order they first ran")
  func coldPartsLast() {
    let symbols = FakeSymbolizer(functions: [
      symbol("main", 0x1000), symbol("parse", 0x1100), symbol("parse.cold", 0x8000, binding: .local),
      symbol("render", 0x1200), symbol("render.cold.1", 0x8100, binding: .local),
    ])
    let order = OrderBuilder().order(
      trace: trace([
        (0x1000, 1, .launch), (0x8100, 1, .launch), (0x1100, 1, .launch), (0x8000, 1, .launch),
        (0x1200, 1, .launch),
      ]),
      module: 0, symbolizer: symbols)
    #expect(order.functions.map(\.symbol.name) == ["main", "parse", "render", "render.cold.1", "parse.cold"])
    #expect(order.placedColdParts == ["render.cold.1", "parse.cold"])
  }

  @Test("code without a symbol is an entry only for a format that names input sections")
  func codeWithoutSymbol() {
    let unnamed = FunctionSymbol(
      name: "main.o(.text..Lobjectdestroy.3)", address: 0x1400, size: 0x20, binding: .local, sectionName: ".text",
      hasSymbol: false, inputSection: InputSection(object: "main.o", section: ".text..Lobjectdestroy.3"))
    let symbols = FakeSymbolizer(functions: [symbol("main", 0x1000), unnamed])
    let calls = trace([(0x1000, 1, .launch), (0x1400, 1, .launch)])
    let symbolOrder = OrderBuilder().order(trace: calls, module: 0, symbolizer: symbols)
    #expect(symbolOrder.functions.map(\.symbol.name) == ["main"])
    #expect(symbolOrder.withoutSymbol == ["main.o(.text..Lobjectdestroy.3)"])
    #expect(symbolOrder.withoutSymbolBytes == 0x20)
    #expect(symbolOrder.matchRate == 1)
    let sectionOrder = OrderBuilder(placeCodeWithoutSymbol: true).order(trace: calls, module: 0, symbolizer: symbols)
    #expect(sectionOrder.functions.map(\.symbol.name) == ["main", "main.o(.text..Lobjectdestroy.3)"])
    #expect(sectionOrder.withoutSymbol.isEmpty)
  }

  @Test("post-window calls are left out unless asked for")
  func postWindow() {
    let calls: [(UInt64, UInt32, Phase)] = [(0x1000, 1, .launch), (0x4000, 1, .postWindow)]
    #expect(OrderBuilder().order(trace: trace(calls), module: 0, symbolizer: symbols).functions.count == 1)
    let all = OrderBuilder(includePostWindow: true).order(trace: trace(calls), module: 0, symbolizer: symbols)
    #expect(all.functions.map(\.symbol.name) == ["main", "later"])
  }

  @Test("records of other modules are not part of this module's order")
  func otherModules() {
    let order = OrderBuilder().order(trace: trace([(0x1000, 1, .launch)], module: 1), module: 0, symbolizer: symbols)
    #expect(order.functions.isEmpty)
    #expect(order.recordCount == 0)
  }
}

@Suite("Clone names")
struct CloneNameTests {
  @Test(arguments: [
    ("foo.part.0", "foo", [CloneName.Kind.part]),
    ("foo.isra.12", "foo", [.isra]),
    ("foo.constprop.0.isra.0", "foo", [.constprop, .isra]),
    ("foo.cold", "foo", [.cold]),
    ("foo.part.0.cold", "foo", [.part, .cold]),
    ("foo.lto_priv.3", "foo", [.ltoPrivate]),
  ])
  func parses(name: String, base: String, kinds: [CloneName.Kind]) {
    let clone = CloneName(name)
    #expect(clone?.base == base)
    #expect(clone?.kinds == kinds)
  }

  @Test(arguments: ["foo", "foo.bar", ".cold", "foo.cold.bar", "_ZN1a4coldEv"])
  func rejects(name: String) {
    #expect(CloneName(name) == nil)
  }

  @Test func coldness() {
    #expect(CloneName("f.cold")?.isCold == true)
    #expect(CloneName("f.part.1")?.isCold == false)
  }

  @Test("a cold part names the entry part it belongs to: gcc's foo.cold, BOLT's foo.cold.N")
  func coldPartParent() {
    #expect(CloneName.coldPartParent(of: "foo.cold") == "foo")
    #expect(CloneName.coldPartParent(of: "foo.cold.0") == "foo")
    #expect(CloneName.coldPartParent(of: "foo.cold.12") == "foo")
    #expect(CloneName.coldPartParent(of: "foo.part.0.cold") == "foo.part.0")
    #expect(CloneName.coldPartParent(of: "foo.isra.0.cold.1") == "foo.isra.0")
    #expect(CloneName.coldPartParent(of: "foo.cold.0.part.1") == nil)
    #expect(CloneName.coldPartParent(of: "foo.part.0") == nil)
    #expect(CloneName.coldPartParent(of: "foo") == nil)
  }
}

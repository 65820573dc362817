import OrderfileOrdering
import OrderfileSymbolization
import Testing

@Suite("Static initializers first")
struct InitializerPlacementTests {
  let binary = FakeSymbolizer(
    path: "/build/release/app",
    functions: [
      symbol("main", 0x1000), symbol("parse", 0x1100), symbol("_GLOBAL__sub_I_a.cpp", 0x1200, binding: .local),
      symbol("_GLOBAL__sub_I_b.cpp", 0x1300, binding: .local), symbol("frame_dummy", 0x1400, size: 0, binding: .local),
      symbol("sancov.module_ctor_trace_pc_guard", 0x1500, binding: .local),
    ])

  func initializer(_ name: String, _ source: StaticInitializer.Source = .initArray) -> StaticInitializer {
    let function = binary.functions.first { $0.name == name }
    return StaticInitializer(source: source, address: function?.address ?? 0, function: function)
  }

  @Test("initializers go first in run order; a recorded one moves with its record, an unrecorded one is not a match")
  func placedFirst() {
    // b.cpp's initializer was recorded after main; a.cpp's was not recorded at all.
    let order = OrderBuilder().order(trace: launchTrace([0x1000, 0x1300, 0x1100]), module: 0, symbolizer: binary)
    let placed = InitializerPlacement.apply(
      [
        initializer("frame_dummy"), initializer("sancov.module_ctor_trace_pc_guard"),
        initializer("_GLOBAL__sub_I_a.cpp"),
        initializer("_GLOBAL__sub_I_b.cpp"),
      ], to: order)
    #expect(placed.functions.map(\.symbol.name) == ["_GLOBAL__sub_I_a.cpp", "_GLOBAL__sub_I_b.cpp", "main", "parse"])
    #expect(placed.staticInitializers == ["_GLOBAL__sub_I_a.cpp", "_GLOBAL__sub_I_b.cpp"])
    #expect(placed.unrecordedInitializers == 1)
    #expect(placed.recordedFunctions == 3)
    #expect(placed.matchedFunctions == 3)
    #expect(placed.functions[1].recordIndex == 1)
  }

  @Test("instrumentation constructors are told from the program's own")
  func instrumentation() {
    #expect(InitializerPlacement.isInstrumentationConstructor("sancov.module_ctor_trace_pc_guard"))
    #expect(InitializerPlacement.isInstrumentationConstructor("asan.module_ctor"))
    #expect(InitializerPlacement.isInstrumentationConstructor("of_check_binding"))
    #expect(!InitializerPlacement.isInstrumentationConstructor("_GLOBAL__sub_I_main.cpp"))
    #expect(!InitializerPlacement.isInstrumentationConstructor(".module_ctor"))
  }

  @Test("an initializer without a function symbol, or one listed twice, adds nothing")
  func unresolved() {
    let order = OrderBuilder().order(trace: launchTrace([0x1000]), module: 0, symbolizer: binary)
    let placed = InitializerPlacement.apply(
      [
        StaticInitializer(source: .initArray, address: 0x9000), initializer("_GLOBAL__sub_I_b.cpp", .ctors),
        initializer("_GLOBAL__sub_I_b.cpp"),
      ], to: order)
    #expect(placed.functions.map(\.symbol.name) == ["_GLOBAL__sub_I_b.cpp", "main"])
    #expect(placed.matchRate == 1)
  }
}

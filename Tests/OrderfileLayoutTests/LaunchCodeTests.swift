import OrderfileLayout
import OrderfileOrdering
import OrderfileSymbolization
import Testing

private func function(_ name: String, _ address: UInt64, _ size: UInt64) -> FunctionSymbol {
  FunctionSymbol(name: name, address: address, size: size, binding: .local, sectionName: ".text", sectionAlignment: 16)
}

/// A binary over a hand-written symbol table.
final class Binary: Symbolizer {
  let path = "/build/release/app"
  let buildID: BuildID? = nil
  let functions: [FunctionSymbol]
  init(_ functions: [FunctionSymbol]) { self.functions = functions }
  func function(containing address: UInt64) -> FunctionSymbol? { functions.first { $0.contains(address) } }
  func sourceLocation(for address: UInt64) -> OrderfileSymbolization.SourceLocation? { nil }
}

@Suite("Launch code the trace does not name, and orders worse than the default layout")
struct LaunchCodeTests {
  @Test("copies and recorded cold parts count, unrecorded cold parts are listed apart, initializers count once")
  func releaseOnlyCode() {
    let functions = [
      function("main", 0x1000, 0x40), function("parse.constprop.0", 0x1040, 0x40), function("parse.cold", 0x1080, 0x10),
      function("draw.part.0", 0x1100, 0x20), function("draw.cold", 0x1120, 0x10),
      function("other.isra.0", 0x1140, 0x10),
      function("_GLOBAL__sub_I_a.cpp", 0x1200, 0x30), function("sancov.module_ctor_trace_pc_guard", 0x1240, 0x10),
    ]
    let initializers = ["_GLOBAL__sub_I_a.cpp", "sancov.module_ctor_trace_pc_guard", "main", "_GLOBAL__sub_I_a.cpp"].map
    { name in
      StaticInitializer(source: .initArray, address: 0, function: functions.first { $0.name == name })
    }
    let code = ReleaseLaunchCode(
      launch: ["main", "parse", "draw"], recordedColdParts: ["draw.cold"], functions: functions,
      initializers: initializers)
    #expect(code.pieces.map(\.name) == ["parse.constprop.0", "draw.part.0", "draw.cold"])
    #expect(code.pieces.first?.of == "parse")
    #expect(code.uncountedColdParts.map(\.name) == ["parse.cold"])
    #expect(code.staticInitializers == ["_GLOBAL__sub_I_a.cpp"])
    #expect(code.names == ["_GLOBAL__sub_I_a.cpp", "parse.constprop.0", "draw.part.0", "draw.cold"])

    // The report tells the same account as generate: the cold part was recorded, the
    // initializer was not.
    var estimate = Estimator(pageSizes: [4096]).estimate(
      launch: ["main", "parse", "draw"], functions: functions, order: nil, binary: "app", trace: nil, orderPath: nil,
      measured: nil)
    estimate.releaseOnly = code
    let text = EstimateTextRenderer().render(estimate)
    #expect(!text.contains("the trace does not name"), "\(text)")
    #expect(text.contains("1 static initializer the trace did not record"), "\(text)")
    #expect(text.contains("cold parts the trace recorded"), "\(text)")
  }

  @Test("additional launch code counts in pages and bytes, not in the launch functions")
  func additionalCounted() throws {
    let functions = [function("main", 0x1000, 0x100), function("main.part.0", 0x3000, 0x100)]
    let estimate = Estimator(pageSizes: [4096]).estimate(
      launch: ["main"], functions: functions, order: nil, binary: "app", trace: nil, orderPath: nil, measured: nil,
      additional: ["main.part.0"])
    #expect(estimate.launchFunctions == 1 && estimate.matchedFunctions == 1)
    #expect(estimate.launchBytes == 0x200)
    #expect(estimate.pages.first?.current == 2)
  }

  /// Two launch functions, each inside one 4 KiB page where they are; packed after a function
  /// that ends mid-page, the first straddles a boundary and the second another one.
  ///
  ///   0x1800 filler (0x800)   not launched: the ordered block starts here
  ///   0x2000 main   (0x1000)  4 KiB page 2; ordered 0x1800...0x2800, pages 1 and 2
  ///   0x4000 load   (0x1000)  4 KiB page 4; ordered 0x2800...0x3800, pages 2 and 3
  let binary = Binary([
    function("filler", 0x1800, 0x800), function("main", 0x2000, 0x1000), function("load", 0x4000, 0x1000),
  ])

  @Test("an order that straddles page boundaries the default layout kept is worse: 2 pages become 3")
  func worse() throws {
    let check = LayoutRegressionCheck(estimator: Estimator(pageSizes: [4096]))
    let worse = try #require(check.worseLayout(launch: ["main", "load"], in: binary))
    #expect(worse.pages == [WorseLayout.Pages(pageSize: 4096, defaultLayout: 2, ordered: 3)])
    #expect(worse.message.contains("3 pages ordered against 2 at 4 KiB"))
    #expect(worse.message.contains("do not apply it"))
    #expect(!worse.recommendApplying)
  }

  @Test("an order that wins at some page size is not called worse")
  func mixed() {
    // At 16 KiB the two pages of the default layout become one.
    let check = LayoutRegressionCheck(estimator: Estimator(pageSizes: [4096, 16384]))
    #expect(check.worseLayout(launch: ["main", "load"], in: binary) == nil)
  }

  /// Four launch functions on four pages; two of them have no symbol, so a symbol order
  /// packs only the other two and leaves them where they are.
  ///
  ///   0x1000 a (0x100)   0x3000 a.unnamed (0x10)   0x5000 b (0x100)   0x7000 b.unnamed (0x10)
  let scattered: Binary = {
    func unnamed(_ name: String, _ address: UInt64) -> FunctionSymbol {
      FunctionSymbol(name: name, address: address, size: 0x10, binding: .local, sectionName: ".text", hasSymbol: false)
    }
    return Binary([
      function("a", 0x1000, 0x100), function("pad1", 0x1100, 0x1f00), unnamed("o.o(.text..La)", 0x3000),
      function("pad2", 0x3010, 0x1ff0), function("b", 0x5000, 0x100), function("pad3", 0x5100, 0x1f00),
      unnamed("o.o(.text..Lb)", 0x7000),
    ])
  }()

  @Test("code without a symbol that a symbol order leaves out counts where it stays, and its cost is told")
  func codeWithoutSymbolCost() {
    let check = LayoutRegressionCheck(estimator: Estimator(pageSizes: [4096]))
    let unplaced = ["o.o(.text..La)", "o.o(.text..Lb)"]
    // Packed, a and b share the first page; the code left out stays on pages 3 and 7.
    #expect(
      check.costOfCodeWithoutSymbol(launch: ["a", "b"], unplaced: unplaced, in: scattered)
        == [CodeWithoutSymbolCost(pageSize: 4096, ordered: 3, placed: 1)])

    // Each named function shares its page with code without a symbol: packing the named ones
    // pushes that code apart, which only counting it shows (2 pages become 3).
    //   0x1000 a (0x800)  0x1800 o.o(.text..La)  0x1810 pad  0x3000 b (0x800)  0x3800 o.o(.text..Lb)
    let paired = Binary([
      function("a", 0x1000, 0x800),
      FunctionSymbol(
        name: "o.o(.text..La)", address: 0x1800, size: 0x10, binding: .local, sectionName: ".text", hasSymbol: false),
      function("pad", 0x1810, 0x17f0), function("b", 0x3000, 0x800),
      FunctionSymbol(
        name: "o.o(.text..Lb)", address: 0x3800, size: 0x10, binding: .local, sectionName: ".text", hasSymbol: false),
    ])
    #expect(check.worseLayout(launch: ["a", "b"], in: paired) == nil)
    let worse = check.worseLayout(launch: ["a", "b"], in: paired, unplaced: ["o.o(.text..La)", "o.o(.text..Lb)"])
    #expect(worse?.pages == [WorseLayout.Pages(pageSize: 4096, defaultLayout: 2, ordered: 3)])
  }

  @Test("reports give the linker's name, which the orderfile holds, with the demangled one beside it")
  func namesBesideDemangled() {
    #expect(
      Demangler.withLinkerName("_ZN6shapes10makeSquareEd") == "_ZN6shapes10makeSquareEd (shapes::makeSquare(double))")
    #expect(Demangler.withLinkerName("main") == "main")
    #expect(markdownFunction("_ZN6shapes10makeSquareEd") == "`_ZN6shapes10makeSquareEd` (`shapes::makeSquare(double)`)")
    #expect(markdownFunction("main") == "`main`")
  }
}

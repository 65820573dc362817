import OrderfileLayout
import OrderfileOrdering
import OrderfileSymbolization
import Testing

private func function(_ name: String, _ address: UInt64, _ size: UInt64, section: String = ".text") -> FunctionSymbol {
  FunctionSymbol(name: name, address: address, size: size, binding: .global, sectionName: section, sectionAlignment: 16)
}

/// A layout small enough to count by hand:
///
///   0x1000 a   (0x100)         4 KiB page 1, 16 KiB page 0
///   0x2000 e   (0x1000)        not launched
///   0x3000 b   (0x800)         4 KiB page 3, 16 KiB page 0
///   0x5F00 c   (0x200)         4 KiB pages 5 and 6, 16 KiB page 1
///   0x9000 d   (0x10)          4 KiB page 9, 16 KiB page 2
private let functions = [
  function("a", 0x1000, 0x100), function("e", 0x2000, 0x1000), function("b", 0x3000, 0x800),
  function("c", 0x5F00, 0x200), function("d", 0x9000, 0x10),
]
private let launch = ["a", "c", "b", "d", "gone"]

@Suite("Page estimates on a hand-computed layout")
struct EstimatorTests {
  let estimate = Estimator().estimate(
    launch: launch, functions: functions, order: nil, binary: "app", trace: nil, orderPath: nil, measured: nil)

  @Test("functions the binary lacks are counted and named")
  func missing() {
    #expect(estimate.launchFunctions == 5)
    #expect(estimate.matchedFunctions == 4)
    #expect(estimate.missingFunctions == ["gone"])
    #expect(estimate.launchBytes == 0x100 + 0x200 + 0x800 + 0x10)
  }

  @Test("4 KiB pages: now, ordered, lower bound and curve areas")
  func fourKiB() throws {
    let counts = try #require(estimate.pages.first { $0.pageSize == 4096 })
    #expect(counts.current == 5)  // pages 1, 5, 6, 3, 9
    #expect(counts.ordered == 1)  // 0x1000...0x1B10
    #expect(counts.lowerBound == 1)  // 2832 bytes
    #expect(counts.currentCurveArea == 1 + 3 + 4 + 5)
    #expect(counts.orderedCurveArea == 4)
  }

  @Test("16 KiB and 64 KiB pages, and fault-around windows")
  func largerPages() throws {
    let sixteen = try #require(estimate.pages.first { $0.pageSize == 16384 })
    #expect(sixteen.current == 3)
    #expect(sixteen.ordered == 1)
    #expect(sixteen.lowerBound == 1)
    let sixtyFour = try #require(estimate.pages.first { $0.pageSize == 65536 })
    #expect(sixtyFour.current == 1)
    #expect(estimate.currentFaults == 1)
    #expect(estimate.orderedFaults == 1)
    let small = Estimator(faultAroundBytes: 8192).estimate(
      launch: launch, functions: functions, order: nil, binary: "app", trace: nil, orderPath: nil, measured: nil)
    #expect(small.currentFaults == 5)  // 8 KiB windows 0 (a), 2 and 3 (c), 1 (b), 4 (d)
    #expect(small.orderedFaults == 1)
  }

  @Test("the simulated layout places ordered functions first, aligned, and the rest after")
  func simulatedAddresses() {
    let addresses = LayoutSimulator().layout(functions, order: ["c", "a"])
    // c at the text start, a after it at 16-byte alignment, then e, b, d in their old order.
    #expect(addresses == [0x1200, 0x1300, 0x2300, 0x1000, 0x2B00])
  }

  @Test("an orderfile's names are what get simulated, not the launch order")
  func explicitOrder() throws {
    let reversed = Estimator().estimate(
      launch: launch, functions: functions, order: ["d", "b", "c", "a"], binary: "app", trace: nil, orderPath: "x",
      measured: nil)
    let counts = try #require(reversed.pages.first { $0.pageSize == 4096 })
    #expect(counts.ordered == 1)
    // Launch order a, c, b, d over the reversed block d(0x1000) b(0x1010) c(0x1810) a(0x1A10).
    #expect(reversed.placements.map(\.orderedAddress) == [0x1A10, 0x1810, 0x1010, 0x1000])
  }

  @Test("functions outside the text section keep their place")
  func otherSectionsStay() {
    let withInit = [function("_init", 0x800, 0x20, section: ".init")] + functions
    let addresses = LayoutSimulator().layout(withInit, order: ["d"])
    #expect(addresses[0] == 0x800)
    #expect(addresses[5] == 0x1000)
  }
}

@Suite("Page math")
struct PageMathTests {
  @Test func spanAcrossABoundary() {
    #expect(Span(address: 0xFFF, size: 2).pages(4096) == 0...1)
    #expect(Span(address: 0x1000, size: 0x1000).pages(4096) == 1...1)
    #expect(Span(address: 0x1000, size: 0).pages(4096) == 1...1)
  }

  @Test func lowerBound() {
    #expect(PageMath.lowerBound(bytes: 0, pageSize: 4096) == 0)
    #expect(PageMath.lowerBound(bytes: 4096, pageSize: 4096) == 1)
    #expect(PageMath.lowerBound(bytes: 4097, pageSize: 4096) == 2)
  }
}

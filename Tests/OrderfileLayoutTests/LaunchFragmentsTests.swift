import OrderfileLayout
import OrderfileSymbolization
import Testing

private func function(_ name: String, _ address: UInt64, _ size: UInt64) -> FunctionSymbol {
  FunctionSymbol(name: name, address: address, size: size, binding: .local, sectionName: ".text", sectionAlignment: 16)
}

/// A split layout small enough to count by hand: the launch runs main, parse and helper;
/// their cold parts sit after the hot text, and `other` (not launched) is in the middle
/// of the second layout.
///
///   0x1000 main          (0x800)
///   0x1800 parse         (0x700)
///   0x1F00 helper        (0x200)     hot bytes 0x1100: one 4 KiB page, 0x1000...0x2100 spans two
///   0x3000 main.cold.0   (0x1000)
///   0x4000 parse.cold.0  (0x1800)    cold bytes 0x2800
@Suite("Launch fragments of split functions")
struct LaunchFragmentsTests {
  let split = [
    function("main", 0x1000, 0x800), function("parse", 0x1800, 0x700), function("helper", 0x1F00, 0x200),
    function("main.cold.0", 0x3000, 0x1000), function("parse.cold.0", 0x4000, 0x1800),
  ]

  @Test("entry parts count as run, cold parts give the whole-function bound")
  func bounds() throws {
    let fragments = try #require(
      LaunchFragments(launch: ["main", "parse", "helper", "main"], functions: split, pageSizes: [4096, 16384]))
    #expect(fragments.splitFunctions == 2)
    #expect(fragments.hotBytes == 0x1100)
    #expect(fragments.coldBytes == 0x2800)
    #expect(fragments.hotSpanStart == 0x1000)
    #expect(fragments.hotSpanEnd == 0x2100)
    #expect(fragments.runs == 1)
    #expect(fragments.hotPartsContiguous)
    let small = try #require(fragments.bounds.first { $0.pageSize == 4096 })
    #expect(small.hotBound == 2)  // 0x1100 bytes
    #expect(small.wholeFunctionBound == 4)  // 0x3900 bytes
    #expect(small.hotSpanPages == 2)  // pages 1 and 2
    let large = try #require(fragments.bounds.first { $0.pageSize == 16384 })
    #expect(large.hotBound == 1)
    #expect(large.wholeFunctionBound == 1)
  }

  @Test("a function between the entry parts splits them into runs and is named")
  func interloper() throws {
    var layout = split
    layout[2] = function("other", 0x1F00, 0x80)
    layout.append(function("helper", 0x5800, 0x200))
    let fragments = try #require(
      LaunchFragments(launch: ["main", "parse", "helper"], functions: layout, pageSizes: [4096]))
    #expect(fragments.runs == 2)
    #expect(!fragments.hotPartsContiguous)
    #expect(fragments.outsideLargestRun == ["helper"])
  }

  @Test("a binary without cold parts of launch functions has no fragments")
  func unsplit() {
    let whole = [function("main", 0x1000, 0x800), function("unused.cold.0", 0x3000, 0x100)]
    #expect(LaunchFragments(launch: ["main"], functions: whole, pageSizes: [4096]) == nil)
  }

  @Test("the estimate of a split binary carries its fragments")
  func estimateCarriesFragments() throws {
    let estimate = Estimator(pageSizes: [4096]).estimate(
      launch: ["main", "parse", "helper"], functions: split, order: nil, binary: "app", trace: nil, orderPath: nil,
      measured: nil)
    // The estimate matches names, so only entry parts count as touched.
    #expect(estimate.launchBytes == 0x1100)
    #expect(estimate.pages.first?.current == 2)
    #expect(estimate.fragments == nil)  // attached by LaunchEstimation, which reads the binary
  }
}

import Testing

@testable import OrderfileSymbolization

@Suite("FunctionIndex folding and lookup")
struct FunctionIndexTests {
  private func symbol(
    _ name: String, _ address: UInt64, _ size: UInt64, _ binding: SymbolBinding = .global
  ) -> RawFunctionSymbol {
    RawFunctionSymbol(
      name: name, address: address, size: size, binding: binding, sectionName: ".text",
      sectionAlignment: 16)
  }

  @Test("the primary is global before weak before local, then the shorter name, then the first")
  func primaryChoice() {
    let index = FunctionIndex([
      symbol("local_name", 0x100, 8, .local), symbol("weak_name", 0x100, 8, .weak),
      symbol("global_bb", 0x100, 8), symbol("global_aa", 0x100, 8),
      symbol("global_longer", 0x100, 8),
    ])
    #expect(index.functions.count == 1)
    #expect(index.functions.first?.name == "global_aa")
    #expect(
      index.functions.first?.aliases == ["global_bb", "global_longer", "local_name", "weak_name"])
    #expect(index.functions.first?.binding == .global)
  }

  @Test("the fold does not depend on the order of the symbol table")
  func orderIndependent() {
    let symbols = [
      symbol("b", 0x10, 4, .weak), symbol("a", 0x10, 4, .weak), symbol("c", 0x20, 4),
      symbol("c", 0x20, 4), symbol("z", 0x30, 0, .local),
    ]
    let forward = FunctionIndex(symbols).functions
    #expect(FunctionIndex(symbols.reversed()).functions == forward)
    #expect(forward.map(\.name) == ["a", "c", "z"])
    #expect(forward[1].aliases.isEmpty)
  }

  @Test("a sized symbol is primary over a zero-size one at the same address")
  func sizedWins() {
    let index = FunctionIndex([symbol("a", 0x100, 0), symbol("longer_name", 0x100, 32, .local)])
    #expect(index.functions.map(\.name) == ["longer_name"])
    #expect(index.functions.first?.aliases == ["a"])
    #expect(index.functions.first?.size == 32)
  }

  @Test("zero-size symbols are kept unless a sized function covers them")
  func zeroSize() {
    let index = FunctionIndex([
      symbol("sized", 0x100, 0x20), symbol("label_inside", 0x110, 0), symbol("alone", 0x200, 0),
    ])
    #expect(index.functions.map(\.name) == ["sized", "alone"])
    #expect(index.function(containing: 0x110)?.name == "sized")
    #expect(index.function(containing: 0x200)?.name == "alone")
    #expect(index.function(containing: 0x201) == nil)
    #expect(index.function(containing: 0x1ff) == nil)
  }

  @Test("lookups honour half-open ranges, gaps and nesting")
  func lookups() {
    let index = FunctionIndex([
      symbol("outer", 0x1000, 0x100), symbol("inner", 0x1040, 0x10), symbol("next", 0x1200, 0x10),
    ])
    #expect(index.function(containing: 0xfff) == nil)
    #expect(index.function(containing: 0x1000)?.name == "outer")
    #expect(index.function(containing: 0x1040)?.name == "inner")
    #expect(index.function(containing: 0x104f)?.name == "inner")
    #expect(index.function(containing: 0x1050)?.name == "outer")
    #expect(index.function(containing: 0x10ff)?.name == "outer")
    #expect(index.function(containing: 0x1100) == nil)
    #expect(index.function(containing: 0x1205)?.name == "next")
    #expect(index.function(containing: 0x1210) == nil)
  }

  @Test("an empty index finds nothing")
  func empty() {
    let index = FunctionIndex([])
    #expect(index.functions.isEmpty)
    #expect(index.function(containing: 0) == nil)
    #expect(index.function(containing: .max) == nil)
  }

  @Test("a function reaching the top of the address space does not overflow")
  func topOfAddressSpace() {
    let index = FunctionIndex([symbol("top", .max - 4, 100)])
    #expect(index.function(containing: .max)?.name == "top")
  }

  @Test("lookups across many blocks of functions agree with a scan of every function")
  func manyFunctionsAgreeWithScan() {
    // Sizes and gaps that vary, a function nested in a larger one, and labels without a size,
    // over several hundred functions: every block boundary of the index is crossed.
    var symbols: [RawFunctionSymbol] = []
    var address: UInt64 = 0x1000
    for number in 0..<700 {
      let size = UInt64(number % 5 == 0 ? 0 : 4 + number % 13)
      symbols.append(symbol("f\(number)", address, size))
      address += size + UInt64(number % 3) * 8 + 1
    }
    symbols.append(symbol("outer", address, 0x200))
    symbols.append(symbol("inner", address + 0x40, 0x10))
    let index = FunctionIndex(symbols)
    // Sorted by address, the last function holding an address is the innermost.
    func scan(_ target: UInt64) -> FunctionSymbol? { index.functions.last { $0.contains(target) } }
    var probes: [UInt64] = [0, 0xfff, address + 0x300, .max]
    for function in index.functions {
      probes += [function.address, function.address &- 1, function.address + function.size / 2]
      probes += [function.address + function.size, function.address + max(function.size, 1) - 1]
    }
    for probe in probes {
      #expect(index.function(containing: probe)?.address == scan(probe)?.address, "at 0x\(String(probe, radix: 16))")
    }
  }
}

@Suite("BuildID")
struct BuildIDTests {
  @Test("hex round-trips in lowercase")
  func hex() {
    let id = BuildID(hex: "00Ab10ff")
    #expect(id?.bytes == [0x00, 0xab, 0x10, 0xff])
    #expect(id?.description == "00ab10ff")
  }

  @Test("bad hex is rejected", arguments: ["", "a", "abc", "zz", "0x12", "12 34"])
  func badHex(text: String) {
    #expect(BuildID(hex: text) == nil)
  }

  @Test("a note's descriptor is copied; no pointer or no bytes is no build-id")
  func descriptor() {
    let bytes: [UInt8] = [0xde, 0xad, 0xbe, 0xef]
    bytes.withUnsafeBytes { raw in
      #expect(BuildID(raw.baseAddress, count: 4)?.description == "deadbeef")
      #expect(BuildID(raw.baseAddress, count: 0) == nil)
    }
    #expect(BuildID(nil, count: 4) == nil)
  }

  @Test("ordering follows the bytes")
  func ordering() {
    #expect(BuildID([0x01, 0xff]) < BuildID([0x02]))
    #expect(BuildID([0x01]) < BuildID([0x01, 0x00]))
    #expect(!(BuildID([0x02]) < BuildID([0x02])))
  }
}

@Suite("DebugInfoFinder candidates")
struct DebugInfoFinderTests {
  @Test("the build-id tree comes first, then the debuglink name beside the binary")
  func order() throws {
    let id = try #require(BuildID(hex: "abcdef0123"))
    #expect(
      DebugInfoFinder.candidates(buildID: id, binary: "/opt/app/bin/tool", debuglink: "tool.debug")
        == [
          "/usr/lib/debug/.build-id/ab/cdef0123.debug", "/opt/app/bin/tool.debug",
          "/opt/app/bin/.debug/tool.debug", "/usr/lib/debug/opt/app/bin/tool.debug",
        ])
  }

  @Test("a debuglink with a slash is ignored, and nothing is guessed without clues")
  func noClues() {
    #expect(
      DebugInfoFinder.candidates(buildID: nil, binary: "/bin/x", debuglink: "../x.debug").isEmpty)
    #expect(DebugInfoFinder.candidates(buildID: nil, binary: nil, debuglink: nil).isEmpty)
  }
}

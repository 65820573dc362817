import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileSymbolization

/// `orderfile symbolize` names addresses from the mapped symbol table without opening the
/// binary with `ELFSymbolizer`; what it prints must not change for that.
@Suite("Symbolize from the mapped symbol table: the lines ELFSymbolizer gives")
struct MappedLookupTests {
  /// Every function's start, second byte, last byte and end, the gaps, and addresses no
  /// function holds, one a line.
  private func addresses(of binary: String) throws -> [UInt8] {
    let symbolizer = try ELFSymbolizer(path: binary)
    var addresses: [UInt64] = [0, 1, UInt64.max, 0xffff_ffff_0000]
    for function in symbolizer.functions {
      addresses += [function.address, function.address + 1, function.address &- 1]
      if function.size > 0 { addresses += [function.address + function.size - 1, function.address + function.size] }
    }
    // Input order is kept whatever the lookup order: reversed, with a repeat and a blank line.
    let lines = addresses.reversed().map { "0x" + String($0, radix: 16) } + ["", String(addresses[0], radix: 16)]
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// What `orderfile symbolize` prints for `address` alone.
  private func line(for address: UInt64, in binary: String) throws -> String {
    try AddressLookup.lookUp(Array("0x\(String(address, radix: 16))\n".utf8), inBinary: binary).text
  }

  private func expectSameLines(_ binary: String, input: [UInt8]) throws {
    for (demangle, sourceLines) in [(false, false), (true, false), (false, true), (true, true)] {
      let mapped = try AddressLookup.lookUp(input, inBinary: binary, demangle: demangle, sourceLines: sourceLines)
      let full = AddressLookup(
        symbolizer: try ELFSymbolizer(path: binary), demangle: demangle, sourceLines: sourceLines
      )
      .lookUp(input)
      #expect(mapped.badLine == nil && full.badLine == nil)
      let mappedLines = mapped.text.split(separator: "\n", omittingEmptySubsequences: false)
      let fullLines = full.text.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(mappedLines.count == fullLines.count)
      let differing = zip(mappedLines, fullLines).filter { $0 != $1 }.prefix(3)
      #expect(differing.isEmpty, "\(binary) demangle \(demangle) lines \(sourceLines): \(Array(differing))")
    }
  }

  @Test("C and C++ fixtures, with DWARF 4 and 5, executables and libraries", arguments: FixtureVariant.all)
  func fixtures(_ variant: FixtureVariant) throws {
    let binary = try FixtureBinaries.path(for: variant)
    try expectSameLines(binary, input: try addresses(of: binary))
  }

  @Test("C++ names, demangled and not")
  func cplusplus() throws {
    let binary = try FixtureBinaries.widget(.clang)
    try expectSameLines(binary, input: try addresses(of: binary))
  }

  @Test("code without a symbol is named after the symbol before it, as ELFSymbolizer names it")
  func codeWithoutSymbol() throws {
    let program = try UnnamedProgram()
    let input = try addresses(of: program.binary)
    try expectSameLines(program.binary, input: input)
    let text = try line(for: program.hidden.address + 1, in: program.binary)
    #expect(text.contains("+0x"), "\(text)")
  }

  @Test("a link map beside the binary still names the code without a symbol by its input section")
  func withLinkMap() throws {
    let program = try UnnamedProgram()
    try FileManager.default.copyItem(atPath: program.map, toPath: program.binary + ".map")
    let text = try line(for: program.hidden.address, in: program.binary)
    #expect(text.hasSuffix("\tunnamed.o(.text.hidden)\n"), "\(text)")
  }

  @Test("a line that is not an address stops the output before it, as before")
  func badLine() throws {
    let binary = try FixtureBinaries.path(for: FixtureVariant.all[0])
    let result = try AddressLookup.lookUp(Array("0x0\nnot an address\n0x1\n".utf8), inBinary: binary)
    #expect(result.text == "0x0\t??\n")
    #expect(result.badLine == .notAnAddress(line: 2, text: "not an address"))
  }

  @Test("the walk back over compile units' ranges reaches every range that can hold an address")
  func previousReaching() {
    // Nested, overlapping, touching and repeated ranges, sorted by start as the table keeps them.
    var state: UInt64 = 0x2545_f491_4f6c_dd1d
    var ranges: [(start: UInt64, end: UInt64)] = []
    for _ in 0..<400 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let start = (state >> 40) % 1000
      let length = (state >> 20) % 7 == 0 ? (state >> 8) % 900 : (state >> 12) % 20 + 1
      ranges.append((start, start + length))
    }
    ranges.sort { $0.start < $1.start }
    let found = LineTable.previousReaching(starts: ranges.map(\.start), ends: ranges.map(\.end))
    for index in ranges.indices {
      let expected = ranges.indices.prefix(index).last { ranges[$0].end > ranges[index].start } ?? -1
      #expect(found[index] == expected, "range \(index)")
    }
  }
}

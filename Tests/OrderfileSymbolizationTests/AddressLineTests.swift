import OrderfileSymbolization
import Testing

@Suite("Address lines of symbolize's input")
struct AddressLineTests {
  @Test("hexadecimal with or without 0x, either case, spaces, tabs and a CR around it")
  func addresses() {
    #expect(AddressLine("0x1140") == .address(0x1140))
    #expect(AddressLine("0X1140") == .address(0x1140))
    #expect(AddressLine("1140") == .address(0x1140))
    #expect(AddressLine("  00000000004011aF\t\r") == .address(0x4011af))
    #expect(AddressLine("ffffffffffffffff") == .address(.max))
    #expect(AddressLine("0x0") == .address(0))
  }

  @Test("a line of only spaces, tabs or a CR is blank")
  func blank() {
    #expect(AddressLine("") == .blank)
    #expect(AddressLine(" \t\r") == .blank)
  }

  @Test("anything else is not an address")
  func refused() {
    for line in ["not-an-address", "0x", "x10", "0x12 34", "1ffffffffffffffff", "0x-1", "12g", "+12"] {
      #expect(AddressLine(line) == nil, "\(line)")
    }
  }

  @Test("the lookup prints each address with its function, ?? for none, and stops at a bad line")
  func lookup() {
    let table = FakeTable(functions: [
      FunctionSymbol(
        name: "main", address: 0x1000, size: 0x40, binding: .global, sectionName: ".text", sectionAlignment: 16)
    ])
    let result = AddressLookup(symbolizer: table, sourceLines: true).lookUp(
      Array("0x1010\n\n2000\nnope\n0x1000\n".utf8))
    #expect(result.text == "0x1010\tmain\t??\n0x2000\t??\t??\n")
    #expect(result.badLine == .notAnAddress(line: 4, text: "nope"))
    #expect(AddressLookup(symbolizer: table).lookUp(Array("1000".utf8)).text == "0x1000\tmain\n")
  }
}

/// A symbolizer over a few functions, without line information.
private final class FakeTable: Symbolizer {
  let path = "fake"
  let buildID: BuildID? = nil
  let functions: [FunctionSymbol]

  init(functions: [FunctionSymbol]) { self.functions = functions }

  func function(containing address: UInt64) -> FunctionSymbol? { functions.first { $0.contains(address) } }
  func sourceLocation(for address: UInt64) -> OrderfileSymbolization.SourceLocation? { nil }
}

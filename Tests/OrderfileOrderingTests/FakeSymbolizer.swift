import OrderfileSymbolization

/// A symbolizer over a hand-written symbol table.
final class FakeSymbolizer: Symbolizer {
  let path: String
  let buildID: BuildID?
  let functions: [FunctionSymbol]

  init(path: String = "/usr/bin/app", buildID: BuildID? = nil, functions: [FunctionSymbol]) {
    self.path = path
    self.buildID = buildID
    self.functions = functions.sorted { $0.address < $1.address }
  }

  func function(containing address: UInt64) -> FunctionSymbol? {
    functions.first { $0.contains(address) }
  }

  func sourceLocation(for address: UInt64) -> SourceLocation? {
    function(containing: address).map { SourceLocation(file: "\($0.name).c", line: 1) }
  }
}

func symbol(
  _ name: String, _ address: UInt64, size: UInt64 = 0x40, binding: SymbolBinding = .global,
  aliases: [String] = []
) -> FunctionSymbol {
  FunctionSymbol(
    name: name, aliases: aliases, address: address, size: size, binding: binding, sectionName: ".text",
    sectionAlignment: 16)
}

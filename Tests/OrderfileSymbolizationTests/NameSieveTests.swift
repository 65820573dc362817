import OrderfileSymbolization
import Testing

@Suite("NameSieve and positions(named:)")
struct NameSieveTests {
  /// Names shaped like a C++ program's: long shared prefixes and suffixes, as in a compiler.
  static func mangled(_ count: Int, salt: String) -> [String] {
    (0..<count).map { "_ZN4llvm2cl3optI\(salt)\($0)Lb0ENS0_6parserIS3_EEED2Ev" }
  }

  @Test("every name of the set passes: short, long, empty and not ASCII")
  func members() {
    let names =
      ["", "a", "main", "seven77", "eight888", "_Z3foov", "$s3App4mainyyF", "naïve", "函数"]
      + Self.mangled(5_000, salt: "In")
    let sieve = NameSieve(names)
    #expect(names.allSatisfy(sieve.mayContain))
  }

  @Test("nearly every other name is turned away, however alike the names are")
  func others() {
    let sieve = NameSieve(Self.mangled(5_000, salt: "In"))
    let others = Self.mangled(200_000, salt: "Out") + (0..<50_000).map { "f\($0)" }
    let through = others.filter(sieve.mayContain).count
    // About 64 bits per name: near 1 in 64 get through; a sieve that lets all through fails.
    #expect(through < others.count / 20, "\(through) of \(others.count) passed")
  }

  @Test("positions are those of every function carrying the name or an alias, in address order")
  func positions() {
    var functions: [FunctionSymbol] = []
    for index in 0..<3_000 {
      let aliases: [String] = index % 7 == 0 ? ["alias_\(index % 10)"] : []
      let address = UInt64(0x1000 + index * 16)
      functions.append(
        FunctionSymbol(
          name: "fn_\(index % 1_000)", aliases: aliases, address: address, size: 16, binding: .local,
          sectionName: ".text"))
    }
    let asked = ["fn_3", "alias_0", "alias_7", "fn_999", "absent", "fn_3_"]
    let found = functions.positions(named: asked)
    var expected: [String: [Int]] = [:]
    for (index, function) in functions.enumerated() {
      for name in function.allNames where asked.contains(name) { expected[name, default: []].append(index) }
    }
    #expect(found == expected)
    #expect(found["fn_3"] == [3, 1_003, 2_003])
    #expect(found["absent"] == nil)
  }
}

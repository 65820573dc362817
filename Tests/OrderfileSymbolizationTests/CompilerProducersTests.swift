import OrderfileSymbolization
import Testing

@Suite("Compiler producers")
struct CompilerProducersTests {
  @Test("gcc's options tell whether every unit had function sections; rustc always has; others do not say")
  func functionSections() {
    let gcc = "GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O2"
    #expect(CompilerProducers([gcc + " -ffunction-sections"]).functionSections == .all)
    #expect(CompilerProducers([gcc + " -ffunction-sections", gcc]).functionSections == .missing)
    let rustc = "clang LLVM (rustc version 1.95.0 (59807616e 2026-04-14))"
    #expect(CompilerProducers([rustc]).functionSections == .all)
    #expect(CompilerProducers([rustc]).language == .rust)
    #expect(!CompilerProducers([rustc]).functionSectionsFlag.contains("-ffunction-sections"))
    #expect(CompilerProducers(["clang version 21.1.0"]).functionSections == .unknown)
    #expect(CompilerProducers(["Swift version 6.3.1 (swift-6.3.1-RELEASE)"]).functionSections == .unknown)
    #expect(CompilerProducers(["Swift version 6.3.1"]).functionSectionsFlag.contains("-function-sections"))
    #expect(CompilerProducers([]).functionSections == .unknown)
  }
}

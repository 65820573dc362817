import OrderfileSupport
import OrderfileSymbolization
import Testing

@testable import OrderfileOrdering

@Suite("generate's text")
struct GenerationTextTests {
  @Test("a cut list says how many more there are")
  func cutLists() {
    #expect(TextFormatting.list(["a", "b"]) == "a, b")
    #expect(TextFormatting.list(["a", "b", "c", "d", "e"]) == "a, b, c, d, e")
    #expect(TextFormatting.list(["a", "b", "c", "d", "e", "f", "g"]) == "a, b, c, d, e and 2 more")
    let comparison = ReleaseComparison(
      binaryPath: "/release/app", absent: (1...7).map { AbsentFunction(name: "f\($0)", reason: .inlined) },
      keptAbsent: false)
    let line = GenerationTextRenderer.releaseLines(.init(comparison, present: 1)).joined()
    #expect(line.hasSuffix(": f1, f2, f3, f4, f5 and 2 more"), "\(line)")
  }

  @Test("names in the notes are demangled from the linkage name alone")
  func demangledNotes() {
    let comparison = ReleaseComparison(
      binaryPath: "/release/app", absent: [AbsentFunction(name: "_ZN5shape4areaEv", reason: .renamed, releaseName: "x")],
      keptAbsent: false)
    let line = GenerationTextRenderer.releaseLines(.init(comparison, present: 1)).joined()
    #expect(line.contains("shape::area()"), "\(line)")
  }
}

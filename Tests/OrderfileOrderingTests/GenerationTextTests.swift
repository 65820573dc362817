import Foundation
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
      binaryPath: "/release/app",
      absent: [AbsentFunction(name: "_ZN5shape4areaEv", reason: .renamed, releaseName: "x")],
      keptAbsent: false)
    let line = GenerationTextRenderer.releaseLines(.init(comparison, present: 1)).joined()
    #expect(line.contains("shape::area()"), "\(line)")
  }

  @Test("a module with nothing recorded is not called 100% matched; the rate's wording follows the recorder")
  func emptyModuleAndWording() throws {
    let json = """
      {"trace": {"path": "t.trace", "pid": 1, "closed": true, "windowReason": 3, "records": 1, "launchRecords": 1,
                 "uncommittedRecords": 0, "droppedFirstCalls": 0, "fromRuntime": false},
       "format": "lld", "matchRate": 1,
       "modules": [{"path": "/opt/x/libempty.so", "binary": "/opt/x/libempty.so", "buildID": "", "recordedFunctions": 0,
                    "entries": 0, "lines": 0, "matchRate": 1, "staticInitializers": [], "unrecordedInitializers": 0,
                    "duplicateRecords": 0, "foldedAliases": 0, "unresolvedAddresses": [], "coldParts": [],
                    "placedColdParts": [], "unplaceable": [], "refusedByLinker": [], "warnedByLinker": [], "withoutSymbol": [],
                    "withoutSymbolBytes": 0, "withoutSymbolCost": [], "ambiguousNames": []}],
       "skippedModules": []}
      """
    let report = try JSONDecoder().decode(GenerationReport.self, from: Data(json.utf8))
    let text = try GenerationTextRenderer().render(report)
    #expect(!text.contains("100.0% matched"), "\(text)")
    #expect(text.contains("0 lines: no launch function of this module was recorded"), "\(text)")
    #expect(text.contains("(against the recorded binary, recorded without a rebuild)"), "\(text)")
  }
}

import Foundation
import OrderfileBolt
import Testing

@testable import OrderfileCommands

@Suite("bolt's warnings")
struct BoltWarningsTests {
  /// A report as llvm-bolt's default 2 MiB alignment left it: 120 KB in, 6.3 MB out.
  private func report(outputBytes: Int, absent: Int = 0) throws -> BoltReport {
    let json = """
      {"binary": "t", "output": "t.bolt", "order": "t.order", "bolt": "/usr/bin/llvm-bolt-22", "command": ["./t"],
       "launchStatus": 0, "orderedFunctions": 7, "absentFunctions": [\((0..<absent).map { "\"f\($0)\"" }.joined(separator: ", "))],
       "coldPartsLeftToBolt": 0, "inputBytes": 122560, "outputBytes": \(outputBytes),
       "debugInfoBytes": {"input": 0, "output": 0},
       "seconds": {"instrument": 0.1, "launch": 0.1, "optimize": 0.1}, "optimizeOptions": [], "warnings": [],
       "leftInPlace": [], "compilerSplitFunctions": 0}
      """
    return try JSONDecoder().decode(BoltReport.self, from: Data(json.utf8))
  }

  @Test("an output much larger than the binary is named before it ships; one near its size is not")
  func sizeWarning() throws {
    let grown = BoltRequest.warnings(for: try report(outputBytes: 6_313_840))
    #expect(
      grown == [
        "t.bolt is 51.5 times the size of t (6313840 bytes against 122560): BOLT keeps the old text and adds a new segment; check the size before shipping it"
      ])
    #expect(BoltRequest.warnings(for: try report(outputBytes: 118_848)).isEmpty)
  }

  @Test("a cut list of absent entries says how many more there are")
  func absentList() throws {
    let warnings = BoltRequest.warnings(for: try report(outputBytes: 118_848, absent: 5))
    #expect(
      warnings == [
        "5 orderfile entries are not functions of t ('f0', 'f1', 'f2' and 2 more): inlined or removed in this build"
      ])
  }
}

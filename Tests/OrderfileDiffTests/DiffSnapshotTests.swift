import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileDiff

/// The fixture directory with two known orderfiles and their expected reports.
let diffFixtures = PackagePaths.fixtures + "/diff"

/// The report of the two fixture orderfiles, named as `orderfile diff base.order head.order`
/// names them when run in the fixture directory.
func fixtureReport() throws -> DiffReport {
  try OrderfileComparison(
    basePath: diffFixtures + "/base.order", headPath: diffFixtures + "/head.order", baseLabel: "base.order",
    headLabel: "head.order"
  ).run()
}

/// Compares `actual` with the snapshot file, or rewrites the file when ORDERFILE_UPDATE_SNAPSHOTS=1.
func expectSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let path = diffFixtures + "/" + name
  if ProcessInfo.processInfo.environment["ORDERFILE_UPDATE_SNAPSHOTS"] == "1" {
    try AtomicFile.write(actual, to: path)
    return
  }
  let expected = try FileReading.text(atPath: path)
  #expect(actual == expected, "\(name) differs from the snapshot", sourceLocation: sourceLocation)
}

@Suite("Diff report of two known orderfiles")
struct DiffSnapshotTests {
  @Test("the counts are what the fixtures were written to show")
  func counts() throws {
    let summary = try fixtureReport().summary
    #expect(summary.baseEntries == 28)
    #expect(summary.headEntries == 29)
    #expect(summary.added == 3)
    #expect(summary.removed == 2)
    #expect(summary.moved == 3)
    #expect(summary.unchanged == 23)
  }

  @Test("Markdown matches the snapshot")
  func markdown() throws {
    try expectSnapshot(DiffMarkdownRenderer(limit: 6).render(try fixtureReport()), named: "expected.md")
  }

  @Test("JSON matches the snapshot")
  func json() throws {
    try expectSnapshot(try JSONRenderer().render(try fixtureReport()), named: "expected.json")
  }

  @Test("CSV matches the snapshot")
  func csv() throws {
    try expectSnapshot(DiffCSVRenderer().render(try fixtureReport()), named: "expected.csv")
  }

  @Test("the Markdown folds the tail into one row and ends with a total")
  func folding() throws {
    let report = try fixtureReport()
    let lines = DiffMarkdownRenderer(limit: 6).render(report).split(separator: "\n")
    #expect(lines.contains("| | [\(report.changes.count - 6) others] | | |"))
    #expect(lines.last?.hasPrefix("| +1 | **total**: 3 new, 2 deleted, 3 moved | 28 | 29 |") == true)
    let unfolded = DiffMarkdownRenderer(limit: 100).render(report)
    #expect(!unfolded.contains("others]"))
  }

  @Test("identical orderfiles say no change and list nothing")
  func identical() throws {
    let report = try OrderfileComparison(
      basePath: diffFixtures + "/base.order", headPath: diffFixtures + "/base.order"
    ).run()
    let markdown = DiffMarkdownRenderer().render(report)
    #expect(markdown.contains("No change: both list the same 28 entries in the same order."))
    #expect(!markdown.contains("Largest changes"))
    #expect(DiffCSVRenderer().render(report) == DiffCSVRenderer.header.joined(separator: ",") + "\r\n")
  }

  @Test("the example report of Docs/DailyJob.md is the snapshot's")
  func documentedExample() throws {
    let page = try FileReading.text(atPath: PackagePaths.root + "/Docs/DailyJob.md")
    let snapshot = Set(try FileReading.text(atPath: diffFixtures + "/expected.md").split(separator: "\n"))
    let start = try #require(page.range(of: "```markdown\n| entries (base → head)"))
    let block = page[start.lowerBound...].dropFirst("```markdown\n".count)
    let end = try #require(block.range(of: "```"))
    let lines = block[..<end.lowerBound].split(separator: "\n")
    #expect(lines.count > 10)
    for line in lines { #expect(snapshot.contains(line), "Docs/DailyJob.md line not in expected.md: \(line)") }
  }

  @Test("CSV quotes fields with commas and quotes")
  func csvQuoting() {
    #expect(DiffCSVRenderer.quote("plain") == "plain")
    #expect(DiffCSVRenderer.quote("f(int, char)") == "\"f(int, char)\"")
    #expect(DiffCSVRenderer.quote("say \"hi\"") == "\"say \"\"hi\"\"\"")
  }
}

import Foundation
import OrderfileDiff
import OrderfileLayout
import Testing
import _OrderfileTestSupport

/// Renders Markdown the way a forge does (Python-Markdown with tables) and prints, as JSON,
/// each table's rows as lists of cell texts, and any paragraph that still holds a `|`.
private let tableDumper = """
  import html.parser, json, sys, markdown
  text = open(sys.argv[1], encoding="utf-8").read()
  body = markdown.markdown(text, extensions=["tables"])
  class Tables(html.parser.HTMLParser):
      def __init__(self):
          super().__init__()
          self.tables, self.stray, self.cell, self.paragraph = [], [], None, None
      def handle_starttag(self, tag, attrs):
          if tag == "table": self.tables.append([])
          elif tag == "tr": self.tables[-1].append([])
          elif tag in ("td", "th"): self.cell = ""
          elif tag == "p": self.paragraph = ""
      def handle_endtag(self, tag):
          if tag in ("td", "th"):
              self.tables[-1][-1].append(self.cell); self.cell = None
          elif tag == "p":
              if "|" in self.paragraph: self.stray.append(self.paragraph)
              self.paragraph = None
      def handle_data(self, data):
          if self.cell is not None: self.cell += data
          if self.paragraph is not None: self.paragraph += data
  parser = Tables()
  parser.feed(body)
  print(json.dumps({"tables": parser.tables, "stray": parser.stray}))
  """

private struct RenderedTables: Decodable {
  var tables: [[[String]]]
  var stray: [String]
}

private func render(_ markdown: String) throws -> RenderedTables {
  try Python.require(module: "markdown", package: "markdown")
  let output = try Python.run(tableDumper, input: markdown)
  return try JSONDecoder().decode(RenderedTables.self, from: Data(output.utf8))
}

@Suite("The Markdown report renders as tables")
struct MarkdownRenderingTests {
  @Test("summary and changes are tables with a cell for every column")
  func fixtureRendersAsTables() throws {
    let report = try fixtureReport()
    let rendered = try render(DiffMarkdownRenderer(limit: 6).render(report))
    #expect(rendered.stray.isEmpty, "text with | outside a table: \(rendered.stray)")
    try #require(rendered.tables.count == 2)
    let summary = rendered.tables[0]
    #expect(summary.count == 2)
    #expect(summary.allSatisfy { $0.count == 8 })
    #expect(summary[1] == ["28 → 29", "3", "2", "3", "23", "25.8%", "0.914", "0.945"])
    let changes = rendered.tables[1]
    #expect(changes.allSatisfy { $0.count == 4 }, "\(changes)")
    #expect(changes[0] == ["change", "function", "base", "head"])
    // Header, 6 changes, the folded row, the total.
    #expect(changes.count == 1 + 6 + 1 + 1)
    #expect(changes.contains(["[NEW]", "crash_reporter_init", "", "2"]))
    #expect(changes[7][1] == "[2 others]")
  }

  @Test("a name with | stays in its cell")
  func pipeInName() throws {
    let diff = OrderDiff(base: ["main", "a"], head: ["operator|", "main", "a"])
    let report = DiffReport(base: "x|y.order", head: "head.order", diff: diff)
    let rendered = try render(DiffMarkdownRenderer().render(report))
    #expect(rendered.stray.isEmpty, "\(rendered.stray)")
    let changes = try #require(rendered.tables.last)
    #expect(changes.allSatisfy { $0.count == 4 })
    #expect(changes[1] == ["[NEW]", "operator|", "", "1"])
  }

  @Test("the page table renders with signed deltas")
  func pageTable() throws {
    var report = try fixtureReport()
    report.pages = PageComparison.sample
    let rendered = try render(DiffMarkdownRenderer().render(report))
    let pages = try #require(rendered.tables.first { $0.first?.first == "launch" })
    #expect(pages.count == 4)
    #expect(pages[1] == ["4 KiB pages", "40", "30", "-10 (-25.0%)"])
    #expect(pages[3] == ["faults (64 KiB fault-around)", "5", "6", "+1 (+20.0%)"])
    #expect(!DiffMarkdownRenderer().render(report).contains("Caution"))
  }

  @Test("a caution about an already ordered binary follows the page table")
  func reorderedBinaryCaution() throws {
    var report = try fixtureReport()
    var pages = PageComparison.sample
    pages.reorderedBinary = ReorderedBinaryCaution(
      compileUnits: 23, compileUnitRuns: 108, compileUnitDescents: 40, launchFunctionsOutsideOrder: 111,
      orderfile: "base.order")
    report.pages = pages
    let markdown = DiffMarkdownRenderer().render(report)
    let rendered = try render(markdown)
    #expect(rendered.stray.isEmpty, "\(rendered.stray)")
    #expect(
      markdown.contains(
        "**Caution:** app looks already reordered, by an orderfile or a call-graph sort (its code returns to an earlier compile unit 40 times): the 111 launch functions base.order leaves out keep their places there"
      ), "\(markdown)")
  }
}

extension PageComparison {
  /// Numbers for rendering tests.
  static var sample: PageComparison {
    let json = """
      {"trace": "launch.trace", "binary": "app", "launchFunctions": 10, "matchedFunctions": 9,
       "faultAroundBytes": 65536, "faults": {"base": 5, "head": 6, "delta": 1, "deltaPercent": 20},
       "pages": [
         {"pageSize": 4096, "lowerBound": 20, "pages": {"base": 40, "head": 30, "delta": -10, "deltaPercent": -25}},
         {"pageSize": 16384, "lowerBound": 5, "pages": {"base": 10, "head": 10, "delta": 0, "deltaPercent": 0}}
       ]}
      """
    return try! JSONDecoder().decode(PageComparison.self, from: Data(json.utf8))
  }
}

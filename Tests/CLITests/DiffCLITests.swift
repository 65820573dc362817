import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

private let fixtures = PackagePaths.fixtures + "/diff"

/// The launch page counts of `estimate --json`: the ordered count per page size, and faults.
private func estimatedPages(_ arguments: [String]) throws -> (pages: [UInt64: Int], faults: Int) {
  let result = try orderfile(["estimate", "--json"] + arguments)
  guard result.succeeded else { throw TestSupportError("estimate failed: \(result.standardError)") }
  let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
  var pages: [UInt64: Int] = [:]
  for row in json["pages"] as? [[String: Any]] ?? [] {
    if let size = row["pageSize"] as? Int, let ordered = row["ordered"] as? Int { pages[UInt64(size)] = ordered }
  }
  return (pages, json["orderedFaults"] as? Int ?? -1)
}

@Suite("orderfile diff", .serialized)
struct DiffCLITests {
  @Test("the report of two known orderfiles matches the snapshots, in each format")
  func snapshots() throws {
    for (flags, snapshot) in [([String](), "expected.md"), (["--json"], "expected.json"), (["--csv"], "expected.csv")] {
      let result = try ProcessRunner.run(
        PackagePaths.orderfileExecutable, ["diff", "base.order", "head.order", "--limit", "6"] + flags,
        currentDirectory: fixtures)
      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput == (try FileReading.text(atPath: fixtures + "/" + snapshot)), "\(snapshot)")
    }
  }

  @Test("page deltas are the numbers estimate prints for each orderfile")
  func pagesMatchEstimate() throws {
    let directory = try TemporaryDirectory("orderfile-diff")
    let fixture = try ManyFunctions(directory: directory)
    let trace = try fixture.trace("launch.trace", "main f0 f5 f10 f3")
    // The base lists every function in address order, so the launch spreads over the text;
    // the head lists the launch functions only, so they sit together.
    let base = directory.file("base.order")
    let head = directory.file("head.order")
    try AtomicFile.write((["main"] + (0..<12).map { "f\($0)" }).joined(separator: "\n") + "\n", to: base)
    try AtomicFile.write("main\nf0\nf5\nf10\nf3\n", to: head)

    let result = try orderfile(["diff", base, head, "--trace", trace, "--binary", fixture.binary, "--json"])
    #expect(result.status == 0, "\(result.standardError)")
    let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
    let pages = try #require(report["pages"] as? [String: Any])
    let rows = pages["pages"] as? [[String: Any]] ?? []
    #expect(rows.compactMap { $0["pageSize"] as? Int } == [4096, 16384])

    let before = try estimatedPages(["--trace", trace, "--binary", fixture.binary, "--order", base])
    let after = try estimatedPages(["--trace", trace, "--binary", fixture.binary, "--order", head])
    for row in rows {
      let size = UInt64(row["pageSize"] as? Int ?? 0)
      let counts = row["pages"] as? [String: Any] ?? [:]
      #expect(counts["base"] as? Int == before.pages[size], "base at \(size)")
      #expect(counts["head"] as? Int == after.pages[size], "head at \(size)")
      #expect(counts["delta"] as? Int == (after.pages[size] ?? 0) - (before.pages[size] ?? 0))
    }
    let faults = pages["faults"] as? [String: Any] ?? [:]
    #expect(faults["base"] as? Int == before.faults)
    #expect(faults["head"] as? Int == after.faults)
    // The fixture is built so the order matters at 4 KiB.
    let fourK = rows.first { $0["pageSize"] as? Int == 4096 }?["pages"] as? [String: Any]
    #expect((fourK?["delta"] as? Int ?? 0) < 0)

    // The Markdown shows the same numbers with signed deltas.
    let markdown = try orderfile(["diff", base, head, "--trace", trace, "--binary", fixture.binary])
    let fourKRow = "| 4 KiB pages | \(before.pages[4096]!) | \(after.pages[4096]!) |"
    #expect(markdown.standardOutput.contains(fourKRow), "\(markdown.standardOutput)")
  }

  @Test("--max-page-growth exits 1 when the head needs more pages, after printing the report, naming the gate")
  func pageGate() throws {
    let directory = try TemporaryDirectory("orderfile-diff")
    let fixture = try ManyFunctions(directory: directory)
    let trace = try fixture.trace("launch.trace", "main f0 f5 f10 f3")
    let spread = directory.file("spread.order")
    let compact = directory.file("compact.order")
    try AtomicFile.write((["main"] + (0..<12).map { "f\($0)" }).joined(separator: "\n") + "\n", to: spread)
    try AtomicFile.write("main\nf0\nf5\nf10\nf3\n", to: compact)
    let estimate = ["--trace", trace, "--binary", fixture.binary]

    let regress = try orderfile(["diff", compact, spread, "--max-page-growth", "5%"] + estimate)
    #expect(regress.status == 1)
    #expect(regress.standardOutput.contains("Gate max-page-growth: launch pages may grow by at most 5%: **failed**"))
    let lines = regress.standardError.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("orderfile: error: launch pages grow +") == true, "\(lines)")
    #expect(lines.first?.hasSuffix("pages, more than --max-page-growth 5%") == true, "\(lines)")
    let json = try orderfile(["diff", compact, spread, "--max-page-growth", "5%", "--json"] + estimate)
    let gate = try #require(
      (try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["gate"]
        as? [String: Any], "\(json.standardOutput)")
    #expect(gate["maxPageGrowth"] as? Double == 5 && gate["passed"] as? Bool == false, "\(gate)")

    let improve = try orderfile(["diff", spread, compact, "--max-page-growth", "0"] + estimate)
    #expect(improve.status == 0, "\(improve.standardError)")
    #expect(improve.standardOutput.contains("**passed**"))
  }

  @Test("an empty base lists every entry as new")
  func emptyBase() throws {
    let directory = try TemporaryDirectory("orderfile-diff")
    let empty = directory.file("empty.order")
    try AtomicFile.write("", to: empty)
    let result = try orderfile(["diff", empty, fixtures + "/head.order", "--json"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.contains("\"added\" : 29"))
  }

  @Test("usage errors name the flag; a missing orderfile is exit 66")
  func errors() throws {
    let gateWithoutTrace = try orderfile(["diff", "a.order", "b.order", "--max-page-growth", "5"])
    #expect(gateWithoutTrace.status == 64)
    #expect(gateWithoutTrace.standardError.contains("--max-page-growth needs --trace and --binary"))
    let coldGateAlone = try orderfile(["diff", "a.order", "b.order", "--max-cold-growth", "5"])
    #expect(coldGateAlone.status == 64)
    #expect(coldGateAlone.standardError.contains("--cold-method and --max-cold-growth need --measure-cold"))
    let badPercent = try orderfile([
      "diff", "a.order", "b.order", "--trace", "t", "--binary", "b", "--max-page-growth", "lots",
    ])
    #expect(badPercent.status == 64)
    #expect(badPercent.standardError.contains("The value 'lots' is invalid for '--max-page-growth <pct>'"))
    #expect(badPercent.standardError.contains("2 or 2%"), "the help line says what a percentage looks like")
    let both = try orderfile(["diff", "a.order", "b.order", "--json", "--csv"])
    #expect(both.status == 64)
    #expect(both.standardError.contains("give --json or --csv, not both"))
    let missing = try orderfile(["diff", fixtures + "/base.order", "/nonexistent/head.order"])
    #expect(missing.status == 66)
    #expect(missing.standardError.split(separator: "\n").count == 1)
    #expect(missing.standardError.contains("/nonexistent/head.order"))
  }
}

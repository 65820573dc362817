import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The `coldLaunch` or `cold` object of a JSON report.
private func json(_ text: String) throws -> [String: Any] {
  try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

@Suite("Cold launch on the command line", .serialized)
struct ColdLaunchCLITests {
  @Test("estimate --measure-cold --cold-method page-cache --json: the method, the device and the kinds, without root")
  func estimatePageCache() throws {
    let work = try TemporaryDirectory("cold-cli")
    defer { work.remove() }
    let binary = try buildColdSectionsFixture(in: work)
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", binary])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let page = work.file("estimate.html")
    let result = try orderfile([
      "estimate", "--trace", trace, "--binary", binary, "--measure-cold", "--cold-method", "page-cache", "--json",
      "--html", page, "--", binary,
    ])
    #expect(result.succeeded, "\(result.standardError)")
    let cold = try json(result.standardOutput)["coldLaunch"] as? [String: Any] ?? [:]
    #expect(cold["method"] as? String == "page-cache")
    let module = (cold["modules"] as? [[String: Any]])?.first ?? [:]
    #expect((module["device"] as? [String: Any])?["readAheadKiB"] is Int)
    let kinds = (module["kinds"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    #expect(kinds.contains("readOnlyData") && kinds.contains("relocations"), "\(kinds)")
    let html = try FileReading.text(atPath: page)
    #expect(html.contains("<h2>Cold launch</h2>") && html.contains("<td>read-only data</td>"))

    let refused = try orderfile(["estimate", "--trace", trace, "--binary", binary, "--cold-method", "perf"])
    #expect(refused.status == 64 && refused.standardError.contains("--cold-method needs --measure-cold"))
  }

  @Test("report --measure-cold: the cold launch's tables by section in JSON, text, Markdown and on the HTML page")
  func reportPageCache() throws {
    let work = try TemporaryDirectory("cold-report")
    defer { work.remove() }
    let binary = try buildColdSectionsFixture(in: work)
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", binary])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    func report(_ options: [String]) throws -> ProcessResult {
      try orderfile(["report", trace] + options + ["--measure-cold", "--cold-method", "page-cache", "--", binary])
    }
    let page = work.file("report.html")
    let asJSON = try report(["--json", "--html", page])
    #expect(asJSON.succeeded, "\(asJSON.standardError)")
    let cold = try json(asJSON.standardOutput)["coldLaunch"] as? [String: Any] ?? [:]
    #expect(cold["method"] as? String == "page-cache")
    let module = (cold["modules"] as? [[String: Any]])?.first ?? [:]
    #expect(module["path"] as? String == binary)
    let sections = (module["sections"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    #expect(sections.contains(".rodata") && sections.contains(".rela.dyn"), "\(sections)")
    let html = try FileReading.text(atPath: page)
    #expect(html.contains("<h2>Cold launch</h2>") && html.contains("<td>read-only data</td>"))
    let text = try report([])
    #expect(text.succeeded && text.standardOutput.contains("cold launch: \(binary)"), "\(text.standardOutput)")
    #expect(text.standardOutput.contains("by section: "))
    let markdown = try report(["--markdown"])
    #expect(markdown.standardOutput.contains("Cold launch (counted to exit"), "\(markdown.standardOutput)")
    #expect(markdown.standardOutput.contains("| read-only data |"))

    let noCommand = try orderfile(["report", trace, "--measure-cold"])
    #expect(noCommand.status == 64 && noCommand.standardError.contains("give the command after '--'"))
    let several = try orderfile(["report", trace, trace, "--measure-cold", "--", binary])
    #expect(several.status == 64 && several.standardError.contains("--measure-cold reports with one launch"))
    let method = try orderfile(["report", trace, "--cold-method", "perf"])
    #expect(method.status == 64 && method.standardError.contains("--cold-method needs --measure-cold"))
  }

  @Test(
    "diff --measure-cold --max-cold-growth: a head that reads 3 more .rodata pages fails, the other way passes",
    .enabled(if: LoopFileSystem.unavailableWithPerf == nil, "\(LoopFileSystem.unavailableWithPerf ?? "")"))
  func diffGate() throws {
    let disk = try LoopFileSystem(megabytes: 16, type: "ext4")
    defer { disk.unmount() }
    try disk.setReadAhead(kibibytes: 16)
    let work = try TemporaryDirectory("cold-diff")
    defer { work.remove() }
    let fewer = try buildColdSectionsFixture(in: work, name: "fewer")
    let more = try buildColdSectionsFixture(in: work, name: "more", stride: 8)
    try FileManager.default.copyItem(atPath: fewer, toPath: disk.file("fewer"))
    try FileManager.default.copyItem(atPath: more, toPath: disk.file("more"))
    let empty = work.file("empty.order")
    #expect(FileManager.default.createFile(atPath: empty, contents: nil))
    func diff(_ base: String, _ head: String) throws -> ProcessResult {
      try orderfile([
        "diff", empty, empty, "--base-binary", disk.file(base), "--head-binary", disk.file(head), "--measure-cold",
        "--cold-method", "perf", "--max-cold-growth", "2", "--json",
      ])
    }
    let worse = try diff("fewer", "more")
    #expect(worse.status == 1, "\(worse.standardError)")
    #expect(
      worse.standardError.contains("orderfile: error: cold launch major faults grow +")
        && worse.standardError.contains("more than --max-cold-growth 2%"), "\(worse.standardError)")
    let cold = try json(worse.standardOutput)["cold"] as? [String: Any] ?? [:]
    #expect(cold["method"] as? String == "perf")
    let rodata = (cold["rows"] as? [[String: Any]] ?? []).first { $0["kind"] as? String == "readOnlyData" }
    let faults = rodata?["faults"] as? [String: Any] ?? [:]
    #expect(faults["base"] as? Int == 4 && faults["head"] as? Int == 7, "\(faults)")
    let gate = cold["gate"] as? [String: Any] ?? [:]
    #expect(gate["passed"] as? Bool == false && gate["maxColdGrowth"] as? Double == 2, "\(gate)")

    let better = try diff("more", "fewer")
    #expect(better.status == 0, "\(better.standardError)")
  }
}

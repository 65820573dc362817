import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

private func json(_ text: String) throws -> [String: Any] {
  try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

@Suite("Scripts/regenerate-orderfile on the bundled example", .serialized)
struct MergeRegenerationTests {
  static var environment: [String: String] {
    var environment = Toolchain.environment
    environment["ORDERFILE"] = PackagePaths.orderfileExecutable
    return environment
  }

  @Test(
    "the wrapper runs orderfile regenerate on Examples/launchpad: first run writes, second says no change"
  )
  func twoRuns() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate")
    let orders = directory.file("orders")
    let script = PackagePaths.root + "/Scripts/regenerate-orderfile"
    // The configuration's own 10 runs per scenario: the setting Docs/DailyJob.md's churn figures are about.
    let arguments = ["--orderfiles", orders, "--work", directory.file("work"), "--json", "-q"]

    let first = try ProcessRunner.run(script, arguments, environment: Self.environment)
    #expect(first.status == 0, "\(first.standardOutput)\n\(first.standardError)")
    let firstReport = try json(first.standardOutput)
    #expect(firstReport["outcome"] as? String == "replaced")
    let modules = (firstReport["modules"] as? [[String: Any]])?.compactMap { $0["module"] as? String }
    #expect(modules == ["launchpad", "libwidgets.so"])
    let body = try FileReading.text(atPath: directory.file("work/report.md"))
    #expect(body.hasPrefix("## Launch orderfile refresh"))
    #expect(body.contains("### Orderfile: `\(orders)/launchpad.order` → `regenerated`"), "\(body)")
    let launchOrder = try FileReading.text(atPath: orders + "/launchpad.order").split(separator: "\n")
    #expect(launchOrder.contains("main"))
    #expect(FileManager.default.fileExists(atPath: orders + "/libwidgets.so.order"))
    // The library is measured as the executable is: its shipped copy and the relinked file,
    // each loaded by a run of the scenario's program.
    let library = try #require(
      (firstReport["modules"] as? [[String: Any]])?.first { $0["module"] as? String == "libwidgets.so" })
    let measured = try #require(
      (library["measuredPages"] as? [[String: Any]])?.first?["pages"] as? [String: Any], "\(library)")
    #expect((measured["base"] as? Int ?? 0) > 0 && (measured["head"] as? Int ?? 0) > 0, "\(measured)")
    #expect(body.contains("| `libwidgets.so` |"), "\(body)")

    // Unchanged code: the second run's launches differ from the first's only by thread
    // timing (the warm-up threads start early in some, late in others), which never
    // reorders the committed orderfiles.
    let second = try ProcessRunner.run(script, arguments, environment: Self.environment)
    #expect(second.status == 0, "\(second.standardOutput)\n\(second.standardError)")
    let secondReport = try json(second.standardOutput)
    #expect(secondReport["outcome"] as? String == "noChange", "\(second.standardOutput)")
  }

  @Test("a bad configuration is an error that names its line, before anything is built")
  func badConfiguration() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-bad")
    let configuration = try FileReading.text(atPath: PackagePaths.root + "/Examples/ci/launchpad.yml")
      .replacingOccurrences(of: "runs: 10", with: "runs: many")
    try AtomicFile.write(configuration, to: directory.file("launchpad.yml"))
    let result = try ProcessRunner.run(
      PackagePaths.root + "/Scripts/regenerate-orderfile", ["--config", directory.file("launchpad.yml")],
      environment: Self.environment)
    #expect(result.status == 65)
    #expect(
      result.standardError
        == "orderfile: error: \(directory.file("launchpad.yml")):24: runs: 'many' is not a positive whole number\n",
      "\(result.standardError)")
  }
}

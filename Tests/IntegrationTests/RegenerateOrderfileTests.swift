import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The churn ceiling the README documents for the daily job's second run ("below 5%").
private let documentedChurnCeiling = 5.0

/// The churn percentages of the "module: … churn X%" lines the script prints.
private func churnFigures(_ output: String) -> [Double] {
  output.split(separator: "\n").compactMap { line in
    guard let range = line.range(of: "churn ", options: .backwards), line.hasSuffix("%") else { return nil }
    return Double(line[range.upperBound...].dropLast())
  }
}

@Suite("Scripts/regenerate-orderfile on the bundled example", .serialized)
struct MergeRegenerationTests {
  @Test("the first run writes a report and the orderfiles; the second says no change or churns little")
  func twoRuns() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate")
    let orders = directory.file("orders")
    var environment = Toolchain.environment
    environment["ORDERFILE"] = PackagePaths.orderfileExecutable
    environment["ORDERFILE_RUNTIME_DIR"] = try RuntimeBuilder.libraryDirectory()
    environment["ORDERFILE_INCLUDE_DIR"] = PackagePaths.runtimeInclude
    environment["REGEN_WORK"] = directory.file("work")
    environment["REGEN_ORDER_DIR"] = orders
    let script = PackagePaths.root + "/Scripts/regenerate-orderfile"
    let report = directory.file("work/report.md")

    let first = try ProcessRunner.run(script, [], environment: environment)
    #expect(first.status == 0, "\(first.standardOutput)\n\(first.standardError)")
    #expect(first.standardOutput.contains("updated 2 orderfiles in \(orders)"), "\(first.standardOutput)")
    let firstReport = try FileReading.text(atPath: report)
    #expect(firstReport.hasPrefix("## Launch orderfile refresh"))
    #expect(firstReport.contains("### Orderfile: `\(orders)/launchpad.order` → `regenerated`"))
    #expect(firstReport.contains("| [NEW] | `main` |"))
    // The example's release build is made before the merge, which checks the entries against it.
    #expect(firstReport.contains("checked against the release binaries as they ship"), "\(firstReport)")
    let merged = try FileReading.text(atPath: directory.file("work/merge.txt"))
    #expect(merged.contains("against the release binaries"), "\(merged)")
    let launchOrder = try FileReading.text(atPath: orders + "/launchpad.order").split(separator: "\n")
    #expect(launchOrder.first == "main")
    #expect(FileManager.default.fileExists(atPath: orders + "/libwidgets.so.order"))

    let second = try ProcessRunner.run(script, [], environment: environment)
    #expect(second.status == 0, "\(second.standardOutput)\n\(second.standardError)")
    let secondReport = try FileReading.text(atPath: report)
    // Against a committed orderfile, the report carries the page comparison.
    #expect(secondReport.contains("#### Launch pages (estimated)"))
    if !second.standardOutput.contains("no change: the committed orderfiles in \(orders) are up to date") {
      let churn = churnFigures(second.standardOutput)
      #expect(churn.count >= 2, "\(second.standardOutput)")
      #expect(churn.allSatisfy { $0 < documentedChurnCeiling }, "churn \(churn) on the second run")
    }
    let readme = try FileReading.text(atPath: PackagePaths.root + "/README.md")
    #expect(readme.contains("below \(Int(documentedChurnCeiling))%"), "the README documents the ceiling")
  }

  @Test("a bad setting is a usage error that names it")
  func badSetting() throws {
    let result = try ProcessRunner.run(
      PackagePaths.root + "/Scripts/regenerate-orderfile", [],
      environment: ["REGEN_RUNS": "many", "ORDERFILE": PackagePaths.orderfileExecutable])
    #expect(result.status == 64)
    #expect(result.standardError.contains("REGEN_RUNS must be a positive number, not 'many'"))
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// What the runtime measured at the end of one launch window, as `estimate --json` shows it.
private struct Measured {
  let minorFaults: Int
  let textResidentBytes: Int
}

private func median(_ values: [Int]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
}

@Suite("Faults and resident text measured by the runtime on the bundled example", .serialized)
struct MeasuredFaultsTests {
  static let example = PackagePaths.root + "/Examples/launchpad"
  static let runs = 5

  /// Builds the example instrumented into `directory`, with the orderfiles when given.
  private func build(_ directory: String, runtime: String, orders: String? = nil) throws -> String {
    var arguments = ["-s", "-C", Self.example, "instrumented", "CC=clang", "BUILD_DIR=" + directory,
                     "ORDERFILE_RUNTIME_DIR=" + runtime]
    if let orders {
      arguments += ["ORDER_FILE=" + orders + "/launchpad.order", "LIB_ORDER_FILE=" + orders + "/libwidgets.so.order"]
    }
    try runChecked(ProcessRunner.resolve("make"), arguments)
    return directory + "/launchpad"
  }

  /// Records `program` once and reads back what the runtime measured for the executable.
  private func measure(_ program: String, trace: String) throws -> Measured {
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", program])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardError.isEmpty, "record -q printed: \(recorded.standardError)")
    let estimate = try orderfile(["estimate", "--json", "--trace", trace, "--binary", program])
    #expect(estimate.succeeded, "\(estimate.standardError)")
    let object = try JSONSerialization.jsonObject(with: Data(estimate.standardOutput.utf8)) as? [String: Any]
    let measured = try #require(object?["measured"] as? [String: Any], "no measurements in \(trace)")
    return Measured(
      minorFaults: try #require(measured["minorFaults"] as? Int),
      textResidentBytes: try #require(measured["textResidentBytes"] as? Int))
  }

  @Test("the ordered build has fewer minor faults and less resident text than the default one (median of 5)")
  func orderedLaunchFaultsLess() throws {
    let work = try TemporaryDirectory("orderfile-measured")
    let runtime = try RuntimeBuilder.libraryDirectory()
    let defaultProgram = try build(work.file("default"), runtime: runtime)

    let recordTrace = work.file("record.trace")
    let recorded = try orderfile(["record", "-q", "-o", recordTrace, "--", defaultProgram])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let orders = work.file("orders")
    let generated = try orderfile(["generate", recordTrace, "--output-dir", orders])
    #expect(generated.succeeded, "\(generated.standardError)")
    let orderedProgram = try build(work.file("ordered"), runtime: runtime, orders: orders)

    var byLayout: [String: [Measured]] = [:]
    // Interleaved, so that a burst of load on the machine hits both layouts alike.
    for run in 1...Self.runs {
      for (layout, program) in [("default", defaultProgram), ("ordered", orderedProgram)] {
        byLayout[layout, default: []].append(try measure(program, trace: work.file("\(layout)-\(run).trace")))
      }
    }
    let before = try #require(byLayout["default"]), after = try #require(byLayout["ordered"])
    #expect(before.allSatisfy { $0.minorFaults > 0 && $0.textResidentBytes > 0 })
    #expect(after.allSatisfy { $0.minorFaults > 0 && $0.textResidentBytes > 0 })

    let residentBefore = median(before.map(\.textResidentBytes)), residentAfter = median(after.map(\.textResidentBytes))
    let faultsBefore = median(before.map(\.minorFaults)), faultsAfter = median(after.map(\.minorFaults))
    #expect(residentAfter < residentBefore, "text resident: default \(residentBefore) B, ordered \(residentAfter) B")
    #expect(faultsAfter < faultsBefore, "minor faults: default \(faultsBefore), ordered \(faultsAfter)")
  }
}

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

/// The example built instrumented twice, in link order and with the orderfiles it recorded;
/// built once for the suite.
private struct LaunchpadBuilds: @unchecked Sendable {
  static let example = PackagePaths.root + "/Examples/launchpad"
  static let shared = Result { try LaunchpadBuilds() }

  let work: TemporaryDirectory
  let defaultProgram: String
  let orderedProgram: String
  let orders: String
  let recordTrace: String

  private init() throws {
    let work = try TemporaryDirectory("orderfile-measured")
    self.work = work
    let runtime = try RuntimeBuilder.libraryDirectory()
    defaultProgram = try Self.build(work.file("default"), runtime: runtime)
    recordTrace = work.file("record.trace")
    let recorded = try orderfile(["record", "-q", "-o", recordTrace, "--", defaultProgram])
    guard recorded.succeeded else { throw TestSupportError("record failed: \(recorded.standardError)") }
    orders = work.file("orders")
    let generated = try orderfile(["generate", recordTrace, "--output-dir", orders])
    guard generated.succeeded else { throw TestSupportError("generate failed: \(generated.standardError)") }
    orderedProgram = try Self.build(work.file("ordered"), runtime: runtime, orders: orders)
  }

  /// Builds the example instrumented into `directory`, with the orderfiles when given.
  private static func build(_ directory: String, runtime: String, orders: String? = nil) throws -> String {
    var arguments = [
      "-s", "-C", example, "instrumented", "CC=clang", "BUILD_DIR=" + directory,
      "ORDERFILE_RUNTIME_DIR=" + runtime,
    ]
    if let orders {
      arguments += ["ORDER_FILE=" + orders + "/launchpad.order", "LIB_ORDER_FILE=" + orders + "/libwidgets.so.order"]
    }
    try runChecked(ProcessRunner.resolve("make"), arguments)
    return directory + "/launchpad"
  }
}

private func estimateJSON(_ arguments: [String]) throws -> [String: Any] {
  let estimate = try orderfile(["estimate", "--json"] + arguments)
  #expect(estimate.succeeded, "\(estimate.standardError)")
  return try json(estimate)
}

@Suite("Faults and resident text measured by the runtime on the bundled example", .serialized)
struct MeasuredFaultsTests {
  static let runs = 5

  /// Records `program` once and reads back what the runtime measured for the executable.
  private func measure(_ program: String, trace: String) throws -> Measured {
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", program])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardError.isEmpty, "record -q printed: \(recorded.standardError)")
    let object = try estimateJSON(["--trace", trace, "--binary", program])
    let measured = try #require(object["measured"] as? [String: Any], "no measurements in \(trace)")
    return Measured(
      minorFaults: try #require(measured["minorFaults"] as? Int),
      textResidentBytes: try #require(measured["textResidentBytes"] as? Int))
  }

  @Test("the ordered build has fewer minor faults and less resident text than the default one (median of 5)")
  func orderedLaunchFaultsLess() throws {
    let builds = try LaunchpadBuilds.shared.get()
    var byLayout: [String: [Measured]] = [:]
    // Interleaved, so that a burst of load on the machine hits both layouts alike.
    for run in 1...Self.runs {
      for (layout, program) in [("default", builds.defaultProgram), ("ordered", builds.orderedProgram)] {
        byLayout[layout, default: []].append(try measure(program, trace: builds.work.file("\(layout)-\(run).trace")))
      }
    }
    let before = try #require(byLayout["default"])
    let after = try #require(byLayout["ordered"])
    #expect(before.allSatisfy { $0.minorFaults > 0 && $0.textResidentBytes > 0 })
    #expect(after.allSatisfy { $0.minorFaults > 0 && $0.textResidentBytes > 0 })

    let residentBefore = median(before.map(\.textResidentBytes))
    let residentAfter = median(after.map(\.textResidentBytes))
    let faultsBefore = median(before.map(\.minorFaults))
    let faultsAfter = median(after.map(\.minorFaults))
    #expect(residentAfter < residentBefore, "text resident: default \(residentBefore) B, ordered \(residentAfter) B")
    #expect(faultsAfter < faultsBefore, "minor faults: default \(faultsBefore), ordered \(faultsAfter)")
  }

  @Test("estimate cautions when an order that leaves launch functions out is simulated on an ordered binary")
  func reorderedBinaryCaution() throws {
    let builds = try LaunchpadBuilds.shared.get()
    // The first half of the launch order, as an older orderfile would have it.
    let full = try FileReading.text(atPath: builds.orders + "/launchpad.order").split(separator: "\n")
    let partial = builds.work.file("partial.order")
    try full.prefix(full.count / 2).joined(separator: "\n").write(toFile: partial, atomically: true, encoding: .utf8)

    let onOrdered = try estimateJSON([
      "--trace", builds.recordTrace, "--binary", builds.orderedProgram, "--order", partial,
    ])
    let caution = try #require(onOrdered["reorderedBinary"] as? [String: Any], "no caution on the ordered build")
    #expect(caution["launchFunctionsOutsideOrder"] as? Int == full.count - full.count / 2)
    #expect((caution["compileUnitDescents"] as? Int ?? 0) >= 8)
    let warned = try orderfile([
      "estimate", "--trace", builds.recordTrace, "--binary", builds.orderedProgram, "--order", partial,
    ])
    #expect(warned.standardError.contains("warning: \(builds.orderedProgram) looks already reordered"))
    #expect(warned.standardError.contains("launch functions \(partial) leaves out"))
    let html = builds.work.file("partial.html")
    let drawn = try orderfile(
      [
        "estimate", "--trace", builds.recordTrace, "--binary", builds.orderedProgram, "--order", partial, "--html",
        html,
      ])
    #expect(drawn.succeeded)
    #expect(try FileReading.text(atPath: html).contains("<strong>Caution:</strong>"))

    // In link order, or with every launch function in the order, there is nothing to caution.
    let onDefault = try estimateJSON([
      "--trace", builds.recordTrace, "--binary", builds.defaultProgram, "--order", partial,
    ])
    #expect(onDefault["reorderedBinary"] == nil)
    let complete = try estimateJSON(
      ["--trace", builds.recordTrace, "--binary", builds.orderedProgram, "--order", builds.orders + "/launchpad.order"])
    #expect((complete["missingFunctions"] as? [String])?.isEmpty == true)
    #expect(complete["reorderedBinary"] == nil)
  }
}

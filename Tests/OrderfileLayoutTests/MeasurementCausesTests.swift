import Testing

@testable import OrderfileLayout
@testable import OrderfileSymbolization

private func function(_ name: String, _ address: UInt64, _ size: UInt64) -> FunctionSymbol {
  FunctionSymbol(name: name, address: address, size: size, binding: .global, sectionName: ".text", sectionAlignment: 16)
}

/// The causes a disagreeing measurement lists depend on where the trace came from: an
/// instrumented build's trace names other code, a release recorded before its relink the same.
@Suite("What a disagreeing measurement blames")
struct MeasurementCausesTests {
  /// An estimate counted by name (the trace is of another build), measured at 20 pages where it
  /// counted fewer.
  func causes(instrumented: Bool) -> [String] {
    var estimate = Estimator().estimate(
      launch: ["a", "b"], functions: [function("a", 0x1000, 0x100), function("b", 0x3000, 0x100)], order: nil,
      binary: "app", trace: nil, orderPath: nil, measured: nil)
    estimate.countedByAddress = false
    estimate.tracedInstrumentedBuild = instrumented
    let rows = [PageMeasurement.Row(pageSize: 4096, estimated: 2, measured: 20, agrees: false)]
    return PageMeasurement.causes(estimate: estimate, rows: rows)
  }

  @Test("an instrumented build's trace is blamed first, with the way to record the release")
  func instrumented() {
    let causes = causes(instrumented: true)
    #expect(causes.first?.hasPrefix("the trace was recorded from an instrumented build") == true, "\(causes)")
    #expect(causes.first?.contains("--no-rebuild") == true)
  }

  @Test("a release recorded before its relink is blamed last, and never told to record with --no-rebuild")
  func otherRelease() {
    let causes = causes(instrumented: false)
    #expect(!causes.contains { $0.contains("--no-rebuild") }, "\(causes)")
    #expect(causes.last?.hasPrefix("the trace was recorded from another build of this binary") == true, "\(causes)")
    #expect(causes.count > 1)
  }
}

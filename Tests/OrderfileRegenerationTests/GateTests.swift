import Foundation
import OrderfileDiff
import OrderfileLayout
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@testable import OrderfileRegeneration

/// A regeneration of a two-module project with these gates.
private func regeneration(
  minMatch: Double? = nil, minInOrder: Double = 0.95, maxPageGrowth: Double? = nil, maxColdGrowth: Double? = nil
) throws -> Regeneration {
  var configuration = try ConfigurationReader(findProgram: { _ in nil }).parse(
    """
    orderfiles: orderfiles
    build: make
    relink: make relink
    binaries:
      app: build/app
      libcore.so: build/libcore.so
    scenarios:
      - name: cold
        command: [app]
    """, file: "/project/orderfile.yml")
  configuration.gates = .init(
    minMatch: minMatch.map(Rate.init), minInOrder: Rate(minInOrder), maxPageGrowth: maxPageGrowth.map(Percentage.init),
    maxColdGrowth: maxColdGrowth.map(Percentage.init))
  return Regeneration(configuration: configuration)
}

private func pages(_ base: Int, _ head: Int, size: UInt64 = 4096) -> RegenerationReport.Pages {
  .init(pageSize: size, lowerBound: 1, pages: PageComparison.Delta(base: base, head: head))
}

@Suite("Regeneration gates, per module")
struct GateTests {
  @Test("a module below min-match fails its gate, named; the other module passes")
  func minMatch() throws {
    let job = try regeneration(minMatch: 0.9)
    let failing = job.gateFailures(module: "libcore.so", matchRate: 0.8, pages: [], verification: nil)
    #expect(
      failing == [
        .init(module: "libcore.so", gate: .minMatch, message: "match rate 80.0% is below min-match 90.0%")
      ])
    #expect(job.gateFailures(module: "app", matchRate: 0.95, pages: [], verification: nil).isEmpty)
  }

  @Test("a module whose pages grow more than max-page-growth fails, at the page size that grew")
  func pageGrowth() throws {
    let job = try regeneration(maxPageGrowth: 2)
    let failing = job.gateFailures(
      module: "app", matchRate: 1, pages: [pages(10, 10), pages(4, 5, size: 16384)], verification: nil)
    #expect(failing.map(\.gate) == [.maxPageGrowth])
    #expect(
      failing.first?.message
        == "simulated launch pages grow +25.0% at 16 KiB pages (4 → 5), more than max-page-growth 2%")
    // Measured pages are named as such.
    let measured = job.gateFailures(
      module: "app", matchRate: 1, pages: [pages(3, 4)], pagesMeasured: true, verification: nil)
    #expect(
      measured.first?.message.hasPrefix("measured launch pages grow +33.3% at 4 KiB pages (3 → 4)") == true,
      "\(measured)")
    // Another module that got better does not make up for it: each is gated on its own.
    #expect(job.gateFailures(module: "libcore.so", matchRate: 1, pages: [pages(10, 5)], verification: nil).isEmpty)
    // Without the gate, growth passes.
    #expect(
      try regeneration().gateFailures(module: "app", matchRate: 0, pages: [pages(1, 9)], verification: nil).isEmpty)
  }

  @Test("a program whose cold launch reads more than max-cold-growth allows fails, naming the counts")
  func coldGrowth() throws {
    // Two launches of a file whose one section (.rodata, pages 0-9) had 4 and then 5 majors.
    let map = FileSectionMap(sections: [
      FileSection(name: ".rodata", type: 1, flags: 0x2, address: 0, offset: 0, fileSize: 40960)
    ])
    func module(_ majors: Int) -> ColdModule {
      ColdModule(
        path: "app", device: nil, filePages: 10, residentBefore: 0, map: map, pagesRead: Set(0..<UInt64(majors * 2)),
        pageSize: 4096, majorFaultOffsets: (0..<majors).map { UInt64($0) * 8192 })
    }
    let job = try regeneration(maxColdGrowth: 10)
    let worse = ColdLaunchComparison(
      baseBinary: "shipped/app", base: module(4), headBinary: "build/app", head: module(5), method: .perf,
      maxColdGrowth: 10)
    #expect(worse.rows.map(\.kind) == [.readOnlyData])
    let failing = job.gateFailures(module: "app", matchRate: 1, pages: [], cold: worse, verification: nil)
    #expect(failing.map(\.gate) == [.maxColdGrowth])
    #expect(failing.first?.message == "cold launch major faults grow +25.0% (4 → 5), more than max-cold-growth 10%")
    let better = ColdLaunchComparison(
      baseBinary: "shipped/app", base: module(5), headBinary: "build/app", head: module(4), method: .perf,
      maxColdGrowth: 10)
    #expect(job.gateFailures(module: "app", matchRate: 1, pages: [], cold: better, verification: nil).isEmpty)
  }

  @Test("a relinked binary with less of its orderfile present than min-in-order fails that gate, named")
  func minInOrder() throws {
    let directory = try TemporaryDirectory("orderfile-gate")
    defer { directory.remove() }
    let binary = try buildBreakpointFixture(["sequence.c"], in: directory, output: "app")
    // Its nine functions in the order they sit, and one it lacks: 90% present, all of those
    // in order.
    let defined = ["step_a", "step_b", "step_c", "step_d", "step_e", "marker", "after_marker", "never_called", "main"]
    let symbols = try runChecked(Toolchain.nm, ["-n", binary]).standardOutput.split(separator: "\n")
    let laidOut = symbols.compactMap { $0.split(separator: " ").last.map(String.init) }.filter(defined.contains)
    #expect(laidOut.count == 9, "\(symbols)")
    let order = directory.file("app.order")
    try (laidOut + ["absent"]).map { $0 + "\n" }.joined().write(toFile: order, atomically: true, encoding: .utf8)

    let strict = try regeneration()
    let failing = strict.gateFailures(
      module: "app", matchRate: 1, pages: [], verification: try strict.verify(binary: binary, order: order))
    #expect(
      failing == [
        .init(
          module: "app", gate: .minInOrder,
          message:
            "the relinked binary does not follow its orderfile: 9 of 10 entries present, 9 in order, below min-in-order 95.0%"
        )
      ])
    let lenient = try regeneration(minInOrder: 0.9)
    let verification = try lenient.verify(binary: binary, order: order)
    #expect(verification.minInOrder == 0.9)
    #expect(lenient.gateFailures(module: "app", matchRate: 1, pages: [], verification: verification).isEmpty)
  }

  @Test("the report names each failed module and says nothing was replaced")
  func rendered() {
    let report = RegenerationReport(
      outcome: .gateFailed, configuration: "orderfile.yml", orderfileDirectory: "orderfiles", recorded: "release",
      runs: 3, scenarios: [.init(name: "cold", weight: 1, runs: 3)], modules: [],
      failedGates: [.init(module: "libcore.so", gate: .minMatch, message: "match rate 80.0% is below min-match 90.0%")],
      report: ".orderfile/report.md")
    let markdown = RegenerationMarkdownRenderer().render(report)
    #expect(markdown.contains("**A gate failed**: the committed orderfiles in `orderfiles` were left as they are."))
    #expect(markdown.contains("- `libcore.so` (min-match): match rate 80.0% is below min-match 90.0%"))
    let text = RegenerationTextRenderer().render(report)
    #expect(text.hasPrefix("gate failed: the committed orderfiles in orderfiles were left as they are"))
    #expect(text.contains("gate min-match failed for libcore.so"))
  }
}

import Foundation
import OrderfileMerge
import OrderfileOrdering
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A symbolizer over a hand-written symbol table.
final class TableSymbolizer: Symbolizer, @unchecked Sendable {
  let path: String
  let buildID: BuildID? = nil
  let functions: [FunctionSymbol]

  init(path: String, names: [String]) {
    self.path = path
    functions = names.enumerated().map { index, name in
      FunctionSymbol(
        name: name, address: 0x1000 + UInt64(index) * 0x100, size: 0x40, binding: .global, sectionName: ".text",
        sectionAlignment: 16)
    }
  }

  func function(containing address: UInt64) -> FunctionSymbol? { functions.first { $0.contains(address) } }
  func sourceLocation(for address: UInt64) -> OrderfileSymbolization.SourceLocation? { nil }
}

/// Any ELF file that exists: the binary locator checks the recorded path before the fake
/// symbolizer is asked. Without a recorded build-id any ELF file there is accepted.
private let someELFFile: String =
  (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/bin/sh"

private let table = ["main", "a", "b", "c", "d", "e", "rare"]
private let symbolizer = TableSymbolizer(path: someELFFile, names: table)

/// A trace of one module whose launch called `names` in this order.
private func trace(_ path: String, _ names: String, buildID: [UInt8] = []) -> Trace {
  let header = TraceHeader(
    versionMajor: 1, versionMinor: 0, pid: 1, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
    moduleCapacity: 1, processStartNanoseconds: 1000, processStartResolutionNanoseconds: 1,
    traceStartNanoseconds: 1000, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
    windowReason: .startupComplete, windowEndNanoseconds: 9000, endNanoseconds: 9000, minorFaults: nil,
    majorFaults: nil)
  let module = TraceModule(
    index: 0, path: someELFFile, buildID: buildID, loadBase: 0, textRange: 0..<0x10000, isMainExecutable: true)
  let records = names.split(separator: " ").enumerated().map { index, name in
    FirstCall(
      module: 0, address: 0x1000 + UInt64(table.firstIndex(of: String(name))!) * 0x100,
      timeNanoseconds: 2000 + UInt64(index), threadID: 1, phase: .launch)
  }
  return Trace(path: path, header: header, modules: [module], records: records)
}

private func merger(_ traces: [Trace], allowMixedBuilds: Bool = false) -> TraceMerger {
  let byPath = Dictionary(uniqueKeysWithValues: traces.map { ($0.path, $0) })
  return TraceMerger(
    selection: .mainExecutable, binaries: BinaryResolver(open: { _ in symbolizer }), allowMixedBuilds: allowMixedBuilds,
    readTrace: { path in
      guard let trace = byPath[path] else { throw TraceError.unreadable(path: path, message: "no such fixture") }
      return trace
    })
}

@Suite("Merging traces")
struct TraceMergerTests {
  let traces = [
    trace("1.trace", "main a b c d e"),
    trace("2.trace", "main a c b d e rare"),
    trace("3.trace", "main b a c d e"),
    trace("4.trace", "main a b c e d"),
  ]

  @Test("the merged module follows the majority and keeps the rare function last")
  func majority() throws {
    let merge = try merger(traces).merge(traces.map { WeightedTrace(path: $0.path) })
    let module = try #require(merge.modules.first)
    #expect(merge.modules.count == 1)
    #expect(module.entries.map(\.name) == ["main", "a", "b", "c", "d", "e", "rare"])
    #expect(module.orderfile(.lld).text == "main\na\nb\nc\nd\ne\nrare\n")
    #expect(module.orderfile(.gold).text.hasPrefix(".text.main\n.text.hot.main\n.text.startup.main\n.text.a\n"))
    #expect(module.runs.map(\.trace) == ["1.trace", "2.trace", "3.trace", "4.trace"])
    #expect(module.runs[0].agreement.kendallTau == 1)
    #expect(module.runs[2].agreement.kendallTau < 1)
  }

  @Test("weights that are not finite and positive, or whose sum is not finite, are refused before any trace is read")
  func weightsChecked() throws {
    let merger = merger(traces)
    #expect(throws: MergeError.weightsOverflow(weights: ["1.trace:1e+308", "2.trace:1e+308"])) {
      try merger.merge([WeightedTrace(path: "1.trace", weight: 1e308), WeightedTrace(path: "2.trace", weight: 1e308)])
    }
    for weight in [Double.nan, .infinity, 0, -1] {
      #expect(throws: MergeError.self, "\(weight)") {
        try merger.merge([WeightedTrace(path: "1.trace", weight: weight)])
      }
    }
    let merge = try merger.merge([
      WeightedTrace(path: "1.trace", weight: 1e307), WeightedTrace(path: "2.trace", weight: 1e307),
    ])
    #expect(merge.modules.first?.entries.allSatisfy { $0.presence.isFinite } == true)
  }

  @Test("the output is byte-identical whatever order the traces are given in")
  func permutedInputs() throws {
    let inputs = [
      WeightedTrace(path: "1.trace", weight: 0.3), WeightedTrace(path: "2.trace", weight: 1.7),
      WeightedTrace(path: "3.trace", weight: 2), WeightedTrace(path: "4.trace", weight: 0.1),
    ]
    func rendered(_ inputs: [WeightedTrace]) throws -> (String, MergeReport) {
      let merge = try merger(traces).merge(inputs)
      return (
        merge.modules[0].orderfile(.lld).text,
        MergeReport(merge, format: .lld, outputs: [:], includeFunctions: true)
      )
    }
    let (expectedText, expectedReport) = try rendered(inputs)
    for permutation in permutations(inputs) {
      let (text, report) = try rendered(permutation)
      #expect(text == expectedText)
      #expect(report == expectedReport)
    }
  }

  @Test("weights change the merged order")
  func weights() throws {
    let cold = trace("cold.trace", "main a b c")
    let notification = trace("notification.trace", "main b a c")
    let even = try merger([cold, notification]).merge([.init(path: "cold.trace"), .init(path: "notification.trace")])
    let heavy = try merger([cold, notification]).merge([
      .init(path: "cold.trace"), .init(path: "notification.trace", weight: 3),
    ])
    #expect(even.modules[0].entries.map(\.name) == ["main", "a", "b", "c"])
    #expect(heavy.modules[0].entries.map(\.name) == ["main", "b", "a", "c"])
  }

  @Test("traces of different builds are refused unless allowed")
  func mixedBuilds() throws {
    let old = trace("old.trace", "main a", buildID: [0xaa, 0x01])
    let new = trace("new.trace", "main a", buildID: [0xbb, 0x02])
    #expect(
      throws: MergeError.mixedBuilds(
        module: (someELFFile as NSString).lastPathComponent, trace: "new.trace", buildID: "bb02",
        otherTrace: "old.trace", otherBuildID: "aa01")
    ) {
      try merger([old, new]).merge([.init(path: "old.trace"), .init(path: "new.trace")])
    }
  }

  @Test("no traces is an error, not an empty orderfile")
  func noTraces() {
    #expect(throws: MergeError.noTraces) { try merger([]).merge([]) }
  }

  @Test("two modules of one file name get the orderfile names generate gives them: <name> and <name>-<index>")
  func modulesSharingAFileName() throws {
    let directory = try TemporaryDirectory()
    for folder in ["a", "b"] {
      try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: directory.file(folder + "/tool"), withDestinationPath: someELFFile)
    }
    var run = trace("1.trace", "main a b")
    run.modules = [
      TraceModule(
        index: 0, path: directory.file("a/tool"), buildID: [], loadBase: 0, textRange: 0..<0x10000,
        isMainExecutable: true),
      TraceModule(
        index: 1, path: directory.file("b/tool"), buildID: [], loadBase: 0x100000, textRange: 0..<0x10000,
        isMainExecutable: false),
    ]
    run.records[2].module = 1
    final class Asked: @unchecked Sendable { var names: [String] = [] }
    let asked = Asked()
    let merger = TraceMerger(
      selection: .all, binaries: BinaryResolver(open: { _ in symbolizer }), readTrace: { _ in run },
      previousOrder: { name in
        asked.names.append(name)
        return nil
      })
    let merge = try merger.merge([WeightedTrace(path: "1.trace")])
    #expect(merge.modules.map(\.fileName) == ["tool", "tool-1"])
    #expect(asked.names == ["tool", "tool-1"])
    #expect(
      OrderfileWriter.fileNames(merge.modules.map { ($0.orderfile(.lld).modulePath, $0.orderfile(.lld).moduleIndex) })
        == ["tool", "tool-1"])
  }
}

import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Programs built with clang's `-fsanitize-coverage=…,trace-pc-guard`, the instrumentation
/// swiftc and rustc also emit: the runtime's guard hooks record first calls into the same trace.
@Suite("SanitizerCoverage guards")
struct SanitizerCoverageTests {
  /// Compiles a fixture with the coverage flags, then links it without them (the clang
  /// driver would otherwise link its own coverage runtime) against the runtime.
  static func program(_ source: String, level: String, in directory: TemporaryDirectory) throws -> String {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let name = (source as NSString).deletingPathExtension + "-" + level
    let object = directory.file(name + ".o")
    let sources = RuntimeFixture.sources
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-fPIE", "-fsanitize-coverage=\(level),trace-pc-guard", "-I", sources, "-c", sources + "/" + source,
        "-o", object,
      ])
    let output = directory.file(name)
    try runChecked(
      Toolchain.clang,
      ["-pie", object, "-o", output, "-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime, "-lpthread"])
    return output
  }

  @Test("first calls in order, each recorded inside its own function", arguments: ["func", "edge"])
  func order(level: String) throws {
    let directory = try TemporaryDirectory("runtime-sancov")
    let program = try Self.program("sancov_order.c", level: level, in: directory)
    let path = directory.file("sancov.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let steps = RuntimeFixture.addresses(run.standardOutput, labelled: "fn")
    let tail = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "tail").first)
    let next = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "next").first)
    #expect(steps.count == 8)

    let trace = try TraceReader.read(path: path)
    #expect(trace.header.droppedCount == 0)
    #expect(trace.header.isClosed)
    let functions = try FunctionRanges(binary: program)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    let owners = recorded.map { functions.start(containing: $0) }
    #expect(!owners.contains(nil), "addresses outside every function: \(recorded)")
    // No address is a function's entry: the hook is called from inside the function.
    #expect(recorded.allSatisfy { !functions.starts.contains($0) })
    var firstCalls: [UInt64] = []
    for case let owner? in owners where !firstCalls.contains(owner) { firstCalls.append(owner) }
    let watched = Set(steps + [tail, next])
    #expect(firstCalls.filter(watched.contains) == steps + [tail], "\(firstCalls)")
    if level == "func" {
      // One guard per function: every function exactly once, however often it ran.
      #expect(firstCalls.count == recorded.count, "\(recorded)")
    } else {
      #expect(recorded.count > firstCalls.count, "edge level gives functions several guards")
    }

    // generate folds the addresses into their functions, in first-call order.
    let orders = directory.file("orders")
    let generated = try RuntimeFixture.orderfile(["generate", path, "--output-dir", orders, "--min-match", "1.0"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let order = try String(
      contentsOfFile: orders + "/" + (program as NSString).lastPathComponent + ".order", encoding: .utf8
    )
    .split(separator: "\n").map(String.init)
    let names = ["step_3", "step_1", "step_4", "step_5", "step_8", "step_2", "step_6", "step_7", "ends_with_hook"]
    #expect(order.filter { $0.hasPrefix("step_") || $0.hasSuffix("_hook") } == names, "\(order)")
  }

  @Test("8 threads racing to the same 1200 first calls: each function recorded once")
  func racingThreads() throws {
    let directory = try TemporaryDirectory("runtime-sancov-threads")
    let program = try Self.program("racing_threads.c", level: "func", in: directory)
    let path = directory.file("threads.trace")
    let run = try RuntimeFixture.run(program, ["8"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let expected = Set(RuntimeFixture.addresses(run.standardOutput, labelled: "fn"))
    #expect(expected.count == 1200)

    let trace = try TraceReader.read(path: path)
    let functions = try FunctionRanges(binary: program)
    let owners = trace.addresses(inModule: try #require(trace.mainModule)).compactMap(functions.start(containing:))
    #expect(owners.count == Set(owners).count, "a function recorded twice")
    #expect(expected.isSubset(of: Set(owners)))
    #expect(trace.header.droppedCount == 0 && trace.uncommittedRecords == 0)
    #expect(Set(trace.records.map(\.threadID)).count > 1, "first calls came from several threads")
  }

  @Test("a forked child's trace has its own first calls, not the parent's later ones")
  func fork() throws {
    let directory = try TemporaryDirectory("runtime-sancov-fork")
    let program = try Self.program("fork_child.c", level: "func", in: directory)
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": directory.file("fork-%p.trace")], timeLimit: 60)
    #expect(run.succeeded, "\(run.standardError)")
    let childLine = try #require(RuntimeFixture.lines(run.standardOutput, startingWith: "child ").first)
    let childPID = try #require(UInt32(childLine.dropFirst("child ".count)))
    let childOnly = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "child").first)
    let parentOnly = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "parent").first)
    let before = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "before").first)

    let functions = try FunctionRanges(binary: program)
    let child = try TraceReader.read(path: directory.file("fork-\(childPID).trace"))
    let childFunctions = Set(child.records.compactMap { functions.start(containing: $0.address) })
    #expect(child.header.isForked)
    #expect(childFunctions.isSuperset(of: [before, childOnly]))
    #expect(!childFunctions.contains(parentOnly))
  }

  @Test("ORDERFILE_DISABLE=1: the program runs as usual and no trace is written")
  func disabled() throws {
    let directory = try TemporaryDirectory("runtime-sancov-disabled")
    let program = try Self.program("sancov_order.c", level: "func", in: directory)
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": directory.file("x.trace"), "ORDERFILE_DISABLE": "1"])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(RuntimeFixture.addresses(run.standardOutput, labelled: "fn").count == 8)
    #expect(try RuntimeFixture.traces(in: directory).isEmpty)
  }
}

/// The function symbols of a binary with their sizes, from `nm -S`.
struct FunctionRanges {
  private var ranges: [(start: UInt64, end: UInt64)] = []
  var starts: Set<UInt64> { Set(ranges.map(\.start)) }

  init(binary: String) throws {
    let listing = try runChecked(Toolchain.nm, ["-S", "--defined-only", binary]).standardOutput
    for line in listing.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count == 4, "tTwW".contains(fields[2]),
        let start = UInt64(fields[0], radix: 16), let size = UInt64(fields[1], radix: 16), size > 0
      else { continue }
      ranges.append((start, start + size))
    }
  }

  /// The start of the function whose bytes hold `address`.
  func start(containing address: UInt64) -> UInt64? {
    ranges.first { $0.start <= address && address < $0.end }?.start
  }
}

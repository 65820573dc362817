import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Full mode (ORDERFILE_MODE=full) on real programs: per-thread enter and exit events,
/// turned into folded stacks and Chrome trace JSON by `orderfile report`.
@Suite("Full mode")
struct FullModeTests {
  static let ms: UInt64 = 1_000_000

  /// Records Tests/Fixtures/runtime/call_tree.c in full mode; returns the program and trace.
  func recordCallTree(_ compiler: Compiler, in directory: TemporaryDirectory) throws -> (program: String, trace: String)
  {
    let program = try RuntimeFixture.program("call_tree.c", compiler: compiler, in: directory)
    let path = directory.file("tree.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_MODE": "full"])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(run.standardError.isEmpty)
    return (program, path)
  }

  @Test(
    "folded stacks of a known call tree are exactly its stacks, with inclusive times that cover the sleeps",
    arguments: Compiler.allCases)
  func foldedStacks(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-full-tree")
    let (program, path) = try recordCallTree(compiler, in: directory)

    let trace = try TraceReader.read(path: path)
    let thread = try #require(trace.threads.only)
    // main, tree_a, tree_b, tree_c: an entry and an exit each, main first (no frames before it).
    #expect(thread.events.count == 8)
    #expect(thread.droppedEvents == 0)
    #expect(thread.threadID == trace.header.pid)

    let folded = directory.file("tree.folded")
    let result = try RuntimeFixture.orderfile(["report", path, "--search-path", program, "--folded", folded])
    #expect(result.succeeded, "\(result.standardError)")
    var selfTime: [String: UInt64] = [:]
    for line in try String(contentsOfFile: folded, encoding: .utf8).split(separator: "\n") {
      let space = try #require(line.lastIndex(of: " "))
      selfTime[String(line[..<space])] = UInt64(line[line.index(after: space)...])
    }
    #expect(Set(selfTime.keys) == ["main", "main;tree_a", "main;tree_a;tree_b", "main;tree_c"])
    func inclusive(_ stack: String) -> UInt64 {
      selfTime.filter { $0.key == stack || $0.key.hasPrefix(stack + ";") }.values.reduce(0, +)
    }
    #expect(inclusive("main;tree_a;tree_b") >= 20 * Self.ms)
    #expect(inclusive("main;tree_a") >= 20 * Self.ms)
    #expect(inclusive("main;tree_c") >= 10 * Self.ms)
    #expect(inclusive("main") >= 30 * Self.ms)
    // Self times outside the sleeps are the hooks' and the calls' own work: small.
    #expect(selfTime["main;tree_a", default: .max] < 5 * Self.ms)
    #expect(inclusive("main") < 30 * Self.ms + 1_000 * Self.ms)
  }

  @Test("an overflowing buffer drops exactly the events that did not fit", arguments: Compiler.allCases)
  func overflow(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-full-overflow")
    let program = try RuntimeFixture.program("event_overflow.c", compiler: compiler, in: directory)
    let path = directory.file("overflow.trace")
    let calls = 5000
    let capacity = 1000
    let run = try RuntimeFixture.run(
      program, ["\(calls)"],
      environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_MODE": "full", "ORDERFILE_EVENTS": "\(capacity)"])
    #expect(run.succeeded, "\(run.standardError)")
    let trace = try TraceReader.read(path: path)
    let thread = try #require(trace.threads.only)
    // main's entry and exit plus an entry and an exit per call of leaf().
    let made = 2 + 2 * calls
    #expect(thread.events.count == capacity)
    #expect(thread.droppedEvents == UInt64(made - capacity))
    #expect(thread.events.first?.kind == .enter)
    #expect(zip(thread.events, thread.events.dropFirst()).allSatisfy { $0.timeNanoseconds <= $1.timeNanoseconds })

    let result = try RuntimeFixture.orderfile(["report", path, "--search-path", program, "--json"])
    #expect(result.succeeded, "\(result.standardError)")
    let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
    #expect(report?["droppedEvents"] as? Int == made - capacity)
  }

  @Test("threads beyond ORDERFILE_EVENT_THREADS get no buffer and their events are counted")
  func threadCapacity() throws {
    let directory = try TemporaryDirectory("runtime-full-threads")
    let program = try RuntimeFixture.program("phase_marks.c", compiler: .clang, in: directory)
    let path = directory.file("threads.trace")
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_MODE": "full", "ORDERFILE_EVENT_THREADS": "1"])
    #expect(run.succeeded, "\(run.standardError)")
    let trace = try TraceReader.read(path: path)
    let thread = try #require(trace.threads.only)
    #expect(thread.threadID == trace.header.pid)
    let bytes = try TraceBytes(path: path)
    #expect(bytes.u32(TraceBytes.eventThreadCount) == 2)
    // The worker thread: phase_b_thread and phase_b_work, an entry and an exit each.
    #expect(bytes.u64(TraceBytes.unbufferedEvents) == 4)
    // Events stop with the window: the main thread's last event is before startup complete.
    let windowEnd = try #require(trace.header.windowEndNanoseconds)
    #expect(thread.events.allSatisfy { $0.timeNanoseconds <= windowEnd })
  }

  @Test("the Chrome trace of a real full-mode trace is valid trace-event JSON")
  func chromeTrace() throws {
    let directory = try TemporaryDirectory("runtime-full-chrome")
    let (program, path) = try recordCallTree(.gcc, in: directory)
    let output = directory.file("tree.json")
    let result = try RuntimeFixture.orderfile(["report", path, "--search-path", program, "--chrome-trace", output])
    #expect(result.succeeded, "\(result.standardError)")
    let json = try String(contentsOfFile: output, encoding: .utf8)
    try ChromeTraceValidator.validate(json)
    let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    let events = document?["traceEvents"] as? [[String: Any]] ?? []
    let slices = events.filter { $0["ph"] as? String == "B" }.compactMap { $0["name"] as? String }
    #expect(slices.sorted() == ["main", "tree_a", "tree_b", "tree_c"])
  }

  @Test("a fork child in full mode records its own events, not the parent's")
  func forkChild() throws {
    let directory = try TemporaryDirectory("runtime-full-fork")
    let program = try RuntimeFixture.program("fork_child.c", compiler: .clang, in: directory)
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": directory.file("fork-%p.trace"), "ORDERFILE_MODE": "full"])
    #expect(run.succeeded, "\(run.standardError)")
    let traces = try RuntimeFixture.traces(in: directory).map { try TraceReader.read(path: $0) }
    #expect(traces.count >= 2)
    for trace in traces {
      #expect(!trace.threads.isEmpty, "\(trace.path)")
      // Every buffer belongs to a thread of that process, never to the parent's threads.
      if trace.header.parentPID != nil {
        #expect(trace.threads.allSatisfy { $0.threadID != trace.header.parentPID }, "\(trace.path)")
      }
    }
  }
}

extension Collection {
  /// The one element, or nil when there are none or several.
  var only: Element? { count == 1 ? first : nil }
}

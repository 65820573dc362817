import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Marks and phases end to end: a real program sets marks with known sleeps between them
/// (Tests/Fixtures/runtime/phase_marks.c) and `orderfile report --json` explains its launch.
@Suite("Marks and launch phases")
struct LaunchPhaseTests {
  /// How far a measured phase may exceed the sleep inside it. A sleep never ends early, so
  /// the lower bound is the sleep itself; the upper bound allows for scheduling on a busy
  /// machine, thread creation and the runtime's own work. 25 ms: the suite now builds
  /// programs (cmake, swift build, cargo) in parallel with this test, and a 50 ms sleep was
  /// seen to overrun by 18 ms under that load. It still tells the phases apart: a mark
  /// attributed to the wrong phase shifts a duration by the other phase's 30 or 50 ms.
  static let tolerance: UInt64 = 25_000_000
  static let ms: UInt64 = 1_000_000

  struct Report: Decodable {
    struct Phase: Decodable {
      var name: String
      var startNanoseconds: UInt64
      var endNanoseconds: UInt64
    }
    struct FirstCall: Decodable {
      var name: String
      var thread: UInt32
      var phase: Int
      var inLaunchWindow: Bool
    }
    var phases: [Phase]
    var firstCalls: [FirstCall]
  }

  @Test(
    "phase durations match the sleeps, and each first call lands in its phase and thread", arguments: Compiler.allCases)
  func phases(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-phases")
    let program = try RuntimeFixture.program("phase_marks.c", compiler: compiler, in: directory)
    let path = directory.file("phases.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let tids = Dictionary(
      uniqueKeysWithValues: RuntimeFixture.lines(run.standardOutput, startingWith: "tid ").map { line in
        let fields = line.split(separator: " ")
        return (String(fields[1]), UInt32(fields[2])!)
      })
    let mainThread = try #require(tids["main"])
    let worker = try #require(tids["worker"])

    let trace = try TraceReader.read(path: path)
    #expect(trace.marks.map(\.name) == ["a", "b"])
    #expect(trace.marks.allSatisfy { $0.threadID == mainThread })

    let result = try RuntimeFixture.orderfile(["report", path, "--search-path", program, "--json"])
    #expect(result.succeeded, "\(result.standardError)")
    let report = try JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8))
    let names = report.phases.map(\.name)
    // What follows the launch window is one folded phase, whatever it holds.
    #expect(names.suffix(3) == ["a → b", "b → startup complete", "after the launch"])

    func phase(_ name: String) throws -> (index: Int, duration: UInt64) {
      let index = try #require(report.phases.firstIndex { $0.name == name })
      return (index, report.phases[index].endNanoseconds - report.phases[index].startNanoseconds)
    }
    let a = try phase("a → b")
    let b = try phase("b → startup complete")
    let after = try phase("after the launch")
    #expect(a.duration >= 30 * Self.ms && a.duration < 30 * Self.ms + Self.tolerance, "a → b took \(a.duration) ns")
    #expect(
      b.duration >= 50 * Self.ms && b.duration < 50 * Self.ms + Self.tolerance,
      "b → startup complete took \(b.duration) ns")

    func call(_ name: String) throws -> Report.FirstCall {
      try #require(report.firstCalls.first { $0.name == name }, "no first call of \(name)")
    }
    let main = try phase("main → a")
    #expect(try call("before_marks").phase == main.index)
    #expect(try call("before_marks").thread == mainThread)
    #expect(try call("phase_a_work").phase == a.index)
    #expect(try call("phase_a_work").thread == mainThread)
    for name in ["phase_b_thread", "phase_b_work"] {
      #expect(try call(name).phase == b.index, "\(name)")
      #expect(try call(name).thread == worker, "\(name)")
      #expect(try call(name).inLaunchWindow, "\(name)")
    }
    #expect(try call("after_startup").phase == after.index)
    #expect(try call("after_startup").inLaunchWindow == false)
  }

  @Test("marks: NULL ignored, long names cut at 40 bytes on a character boundary, any thread, capacity enforced")
  func markEdges() throws {
    let directory = try TemporaryDirectory("runtime-marks")
    let program = try RuntimeFixture.program("mark_edges.c", compiler: .clang, in: directory)
    let path = directory.file("marks.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_MARKS": "4"])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(run.standardError.isEmpty)
    let trace = try TraceReader.read(path: path)
    #expect(
      trace.marks.map(\.name) == [
        "0123456789012345678901234567890123456789", "012345678901234567890123456789012345678", "from thread",
        "fifth",
      ])
    #expect(Set(trace.marks.map(\.threadID)).count == 2)
    #expect(zip(trace.marks, trace.marks.dropFirst()).allSatisfy { $0.timeNanoseconds <= $1.timeNanoseconds })
    // mark_count keeps counting past the capacity: one mark was dropped.
    #expect(try TraceBytes(path: path).u32(TraceBytes.markCount) == 5)
  }

  @Test("orderfile_mark is harmless when recording is disabled")
  func disabled() throws {
    let directory = try TemporaryDirectory("runtime-marks-disabled")
    let program = try RuntimeFixture.program("mark_edges.c", compiler: .gcc, in: directory)
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_DISABLE": "1", "ORDERFILE_OUTPUT": directory.file("x.trace")],
      currentDirectory: directory.path)
    #expect(run.succeeded, "\(run.standardError)")
    #expect(try RuntimeFixture.traces(in: directory).isEmpty)
  }

  @Test("a bad ORDERFILE_MODE gets one warning and first-call mode", arguments: ["fast", "FULL", "full "])
  func badMode(value: String) throws {
    let directory = try TemporaryDirectory("runtime-mode")
    let program = try RuntimeFixture.program("call_tree.c", compiler: .clang, in: directory)
    let path = directory.file("mode.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_MODE": value])
    #expect(run.succeeded)
    #expect(
      run.standardError
        == "orderfile: warning: ignoring ORDERFILE_MODE='\(value)': expected first-call or full; using first-call\n")
    let trace = try TraceReader.read(path: path)
    #expect(trace.threads.isEmpty)
    #expect(trace.records.count == 4)
  }
}

/// Raw little-endian reads of trace fields the reader does not surface.
struct TraceBytes {
  static let markCount = 296
  static let eventThreadCount = 300
  static let unbufferedEvents = 304

  let data: Data

  init(path: String) throws {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    data = try handle.read(upToCount: 4096) ?? Data()
  }

  func u32(_ offset: Int) -> UInt32 {
    data[offset..<(offset + 4)].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) }
  }

  func u64(_ offset: Int) -> UInt64 {
    data[offset..<(offset + 8)].enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
  }
}

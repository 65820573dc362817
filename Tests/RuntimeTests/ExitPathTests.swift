import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// How a process leaves, and the launch window
/// (Tests/Fixtures/runtime/exit_paths.c).
@Suite("Exit paths and the launch window")
struct ExitPathTests {
  /// Runs exit_paths in `mode` and reads its trace back.
  private func record(
    _ mode: [String], compiler: Compiler = .clang, environment: [String: String] = [:]
  ) throws -> (run: ProcessResult, trace: Trace, one: [UInt64], two: [UInt64]) {
    let directory = try TemporaryDirectory("runtime-exit")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: compiler, in: directory)
    let path = directory.file("exit.trace")
    var env = environment
    env["ORDERFILE_OUTPUT"] = path
    let run = try RuntimeFixture.run(program, mode, environment: env)
    let trace = try TraceReader.read(path: path)
    return (
      run, trace, RuntimeFixture.addresses(run.standardOutput, labelled: "one"),
      RuntimeFixture.addresses(run.standardOutput, labelled: "two")
    )
  }

  @Test("exit(): closed, window closed by exit", arguments: Compiler.allCases)
  func normalExit(compiler: Compiler) throws {
    let (run, trace, one, two) = try record(["exit"], compiler: compiler)
    #expect(run.succeeded)
    #expect(trace.header.isClosed)
    #expect(trace.header.windowReason == .exit)
    #expect(trace.header.endNanoseconds != nil)
    #expect(trace.header.minorFaults != nil)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    #expect(Set(one).isSubset(of: Set(recorded)))
    #expect(Set(two).isDisjoint(with: Set(recorded)))
    #expect(trace.header.processStartNanoseconds <= trace.header.traceStartNanoseconds)
    #expect(trace.records.allSatisfy { $0.timeNanoseconds >= trace.header.traceStartNanoseconds })
  }

  @Test("_exit(): readable, not closed, records kept")
  func underscoreExit() throws {
    let (run, trace, one, _) = try record(["_exit"])
    #expect(run.succeeded)
    #expect(!trace.header.isClosed)
    #expect(trace.header.windowReason == .open)
    #expect(trace.header.endNanoseconds == nil)
    #expect(trace.uncommittedRecords == 0)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    #expect(Set(one).isSubset(of: Set(recorded)))
  }

  @Test("SIGKILL: readable, not closed, records kept")
  func killed() throws {
    let (run, trace, one, _) = try record(["sigkill"])
    #expect(run.signal == SIGKILL)
    #expect(!trace.header.isClosed)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    #expect(Set(one).isSubset(of: Set(recorded)))
  }

  @Test("orderfile_finish(): closed at once, later first calls not recorded")
  func finish() throws {
    let (run, trace, one, two) = try record(["finish"])
    #expect(run.succeeded)
    #expect(trace.header.isClosed)
    let recorded = Set(trace.addresses(inModule: try #require(trace.mainModule)))
    #expect(Set(one).isSubset(of: recorded))
    #expect(Set(two).isDisjoint(with: recorded))
  }

  @Test("orderfile_startup_complete() splits launch from post-window calls", arguments: Compiler.allCases)
  func startupComplete(compiler: Compiler) throws {
    let (run, trace, one, two) = try record(["startup"], compiler: compiler)
    #expect(run.succeeded)
    #expect(trace.header.windowReason == .startupComplete)
    #expect(trace.header.minorFaults != nil)
    let windowEnd = try #require(trace.header.windowEndNanoseconds)
    let phases = Dictionary(trace.records.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
    for address in one {
      #expect(phases[address]?.phase == .launch)
      #expect((phases[address]?.timeNanoseconds ?? .max) <= windowEnd)
    }
    for address in two {
      #expect(phases[address]?.phase == .postWindow)
      #expect((phases[address]?.timeNanoseconds ?? 0) >= windowEnd)
    }
  }

  @Test("ORDERFILE_TIME_LIMIT_MS closes the window that long after process start")
  func timeLimit() throws {
    let (run, trace, one, two) = try record(
      ["wait", "1000"], compiler: .gcc, environment: ["ORDERFILE_TIME_LIMIT_MS": "500"])
    #expect(run.succeeded)
    #expect(run.standardError.isEmpty)
    #expect(trace.header.windowReason == .timeLimit)
    #expect(trace.header.timeLimitNanoseconds == 500_000_000)
    #expect(trace.header.windowEndNanoseconds == trace.header.processStartNanoseconds + 500_000_000)
    let phases = Dictionary(trace.records.map { ($0.address, $0.phase) }, uniquingKeysWith: { first, _ in first })
    for address in one { #expect(phases[address] == .launch) }
    for address in two { #expect(phases[address] == .postWindow) }
  }
}

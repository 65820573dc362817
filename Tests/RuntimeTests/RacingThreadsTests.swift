import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Threads racing through the first calls of the same 1200 functions
/// (Tests/Fixtures/runtime/racing_threads.c).
@Suite("Racing threads")
struct RacingThreadsTests {
  /// The fixture's functions: 1200 `fn_*`, the thread body and `main`.
  static let functionCount = 1202

  @Test("8 threads: every function recorded exactly once", arguments: Compiler.allCases)
  func eachFunctionOnce(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-threads")
    let program = try RuntimeFixture.program("racing_threads.c", compiler: compiler, in: directory)
    let path = directory.file("threads.trace")
    let run = try RuntimeFixture.run(program, ["8"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let expected = Set(RuntimeFixture.addresses(run.standardOutput).map(\.address))
    #expect(expected.count == Self.functionCount)

    let trace = try TraceReader.read(path: path)
    let main = try #require(trace.mainModule)
    let recorded = trace.addresses(inModule: main)
    #expect(recorded.count == Self.functionCount, "duplicates or losses")
    #expect(Set(recorded) == expected)
    #expect(trace.uncommittedRecords == 0)
    #expect(trace.header.droppedCount == 0)
    #expect(trace.header.isClosed)
    #expect(trace.header.windowReason == .exit)
    #expect(Set(trace.records.map(\.threadID)).count > 1, "first calls came from several threads")
    #expect(trace.records.allSatisfy { $0.phase == .launch })
  }

  @Test("SIGKILL while threads record: the trace reads back with what was recorded")
  func killedWhileRecording() throws {
    let directory = try TemporaryDirectory("runtime-kill")
    let program = try RuntimeFixture.program("racing_threads.c", compiler: .clang, in: directory)
    let path = directory.file("killed.trace")
    let run = try RuntimeFixture.run(program, ["8", "kill"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.signal == SIGKILL)
    let expected = Set(RuntimeFixture.addresses(run.standardOutput).map(\.address))

    let trace = try TraceReader.read(path: path)
    #expect(!trace.header.isClosed)
    #expect(trace.header.windowReason == .open)
    let main = try #require(trace.mainModule)
    let recorded = trace.addresses(inModule: main)
    #expect(Set(recorded).count == recorded.count, "no function twice")
    #expect(Set(recorded).isSubset(of: expected))
    // Every function had been called before the kill. A thread stopped between
    // claiming a function and finishing its record leaves at most one behind,
    // either uncommitted or not yet reserved: 9 threads in all.
    #expect(recorded.count + trace.uncommittedRecords + 9 >= Self.functionCount)
  }

  @Test("exit() while threads still record: a closed, consistent trace")
  func exitWhileRecording() throws {
    let directory = try TemporaryDirectory("runtime-exit-race")
    let program = try RuntimeFixture.program("racing_threads.c", compiler: .gcc, in: directory)
    let path = directory.file("exit.trace")
    let run = try RuntimeFixture.run(program, ["8", "exit"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let expected = Set(RuntimeFixture.addresses(run.standardOutput).map(\.address))

    let trace = try TraceReader.read(path: path)
    #expect(trace.header.isClosed)
    #expect(trace.uncommittedRecords == 0)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    #expect(Set(recorded).count == recorded.count)
    #expect(Set(recorded).isSubset(of: expected))
  }

  @Test("ORDERFILE_CAPACITY caps the records and counts the rest as dropped")
  func capacity() throws {
    let directory = try TemporaryDirectory("runtime-capacity")
    let program = try RuntimeFixture.program("racing_threads.c", compiler: .gcc, in: directory)
    let path = directory.file("capacity.trace")
    let run = try RuntimeFixture.run(
      program, ["4"], environment: ["ORDERFILE_OUTPUT": path, "ORDERFILE_CAPACITY": "1024"])
    #expect(run.succeeded)
    #expect(run.standardError.isEmpty)

    let trace = try TraceReader.read(path: path)
    #expect(trace.header.recordCapacity == 1024)
    #expect(trace.records.count == 1024)
    #expect(trace.header.droppedCount == UInt64(Self.functionCount - 1024))
    #expect(trace.header.isClosed)
  }
}

import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A process that forks after some first calls (Tests/Fixtures/runtime/fork_child.c).
/// Its own fork handlers, registered before the runtime's, call instrumented
/// functions for the first time during the fork: the runs have a time limit,
/// since a deadlock there would otherwise hang the test run.
@Suite("fork")
struct ForkTests {
  @Test("the child writes its own trace; the parent's stays intact", arguments: Compiler.allCases)
  func childGetsOwnTrace(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-fork")
    let program = try RuntimeFixture.program("fork_child.c", compiler: compiler, in: directory)
    let run = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": directory.file("fork-%p.trace")], timeLimit: 60)
    #expect(run.succeeded, "\(run.standardError)")
    let childLine = try #require(RuntimeFixture.lines(run.standardOutput, startingWith: "child ").first)
    let childPID = try #require(UInt32(childLine.dropFirst("child ".count)))
    let before = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "before").first)
    let childOnly = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "child").first)
    let parentOnly = try #require(RuntimeFixture.addresses(run.standardOutput, labelled: "parent").first)

    let traces = try RuntimeFixture.traces(in: directory)
    #expect(traces.count == 2)
    let child = try TraceReader.read(path: directory.file("fork-\(childPID).trace"))
    let parentPath = try #require(traces.first { !$0.hasSuffix("fork-\(childPID).trace") })
    let parent = try TraceReader.read(path: parentPath)

    #expect(!parent.header.isForked)
    #expect(parent.header.isClosed)
    let parentAddresses = Set(parent.records.map(\.address))
    #expect(parentAddresses.contains(before))
    #expect(parentAddresses.contains(parentOnly))
    #expect(!parentAddresses.contains(childOnly))

    #expect(child.header.isForked)
    #expect(child.header.pid == childPID)
    #expect(child.header.parentPID == parent.header.pid)
    #expect(child.header.isClosed)
    let inherited = try #require(child.header.forkRecordIndex)
    #expect(inherited >= 1)
    #expect(Array(child.records.prefix(inherited)) == Array(parent.records.prefix(inherited)))
    let childAddresses = child.records.map(\.address)
    #expect(childAddresses.contains(before))
    #expect(childAddresses.contains(childOnly))
    #expect(!childAddresses.contains(parentOnly))
    #expect(child.records.dropFirst(inherited).allSatisfy { $0.threadID == childPID })
    #expect(child.modules == parent.modules)
  }

  @Test("without %p the child appends .<pid>; a child leaving by _exit is readable")
  func patternWithoutPID() throws {
    let directory = try TemporaryDirectory("runtime-fork-nopid")
    let program = try RuntimeFixture.program("fork_child.c", compiler: .gcc, in: directory)
    let path = directory.file("fixed.trace")
    let run = try RuntimeFixture.run(
      program, ["_exit"], environment: ["ORDERFILE_OUTPUT": path], timeLimit: 60)
    #expect(run.succeeded, "\(run.standardError)")
    let childLine = try #require(RuntimeFixture.lines(run.standardOutput, startingWith: "child ").first)
    let childPID = String(childLine.dropFirst("child ".count))

    #expect(try RuntimeFixture.traces(in: directory) == [path, path + "." + childPID])
    let parent = try TraceReader.read(path: path)
    let child = try TraceReader.read(path: path + "." + childPID)
    #expect(parent.header.isClosed)
    #expect(!parent.header.isForked)
    #expect(!child.header.isClosed)
    #expect(child.header.isForked)
    #expect(child.header.parentPID == parent.header.pid)
  }
}

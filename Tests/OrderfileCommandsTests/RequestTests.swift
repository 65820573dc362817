import Foundation
import OrderfileBuild
import OrderfileCommands
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A recorder that writes a made-up trace instead of running anything.
private struct FakeRecorder: Recorder {
  var output: String
  var status: Int32
  var dropped: UInt64 = 0
  var notes: [String] = []
  var warnings: [String] = []

  func record(program: String, arguments: [String]) throws -> Recording {
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: 7, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 1, processStartNanoseconds: 100, processStartResolutionNanoseconds: 1,
      traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: dropped, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
    let module = TraceModule(
      index: 0, path: program, buildID: [], loadBase: 0, textRange: 0..<0x1000, isMainExecutable: true)
    let records = [
      FirstCall(module: 0, address: 0x10, timeNanoseconds: 300, threadID: 7, phase: .launch),
      FirstCall(module: 0, address: 0x20, timeNanoseconds: 950, threadID: 7, phase: .postWindow),
    ]
    try AtomicFile.write(
      TraceEncoder.encode(Trace(path: output, header: header, modules: [module], records: records)), to: output)
    return Recording(
      status: status, tracePath: output, childTraces: [output + ".8"], notes: notes, warnings: warnings)
  }
}

@Suite("Commands as requests")
struct RequestTests {
  @Test("record sums up the trace, warns about drops and ends with the program's own status")
  func record() throws {
    let directory = try TemporaryDirectory()
    let trace = directory.file("launch.trace")
    let output = try RecordRequest(
      recorder: FakeRecorder(
        output: trace, status: 3, dropped: 2, notes: ["recorded without a rebuild"],
        warnings: ["./lib.so has no symbol table"]),
      program: "./app"
    ).run()
    #expect(output.standardOutput.isEmpty)
    #expect(
      output.standardError == """
        orderfile: recorded 1 launch function (1 after the window) in 1 module to \(trace)
        orderfile: another process's trace: \(trace).8
        orderfile: recorded without a rebuild
        orderfile: warning: ./lib.so has no symbol table
        orderfile: warning: 2 first calls were dropped: raise --capacity
        orderfile: warning: ./app exited with status 3

        """)
    #expect(output.status == ExitStatus(rawValue: 3))
    let quiet = try RecordRequest(recorder: FakeRecorder(output: trace, status: 0), program: "./app", quiet: true).run()
    #expect(quiet.writes.isEmpty)
    #expect(quiet.status == .success)
  }

  @Test("flags prints both lines under comments, one line, a snippet or JSON")
  func flags() throws {
    let directory = try TemporaryDirectory()
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    let build = Build.release(orderfile: order, format: .gold)
    #expect(
      try FlagsRequest(build: build).run().standardOutput == """
        # Compile flags for the ordered release build:
        -ffunction-sections
        # Link flags for the ordered release build:
        -fuse-ld=gold -Wl,--build-id -Wl,--section-ordering-file=\(order)

        """)
    #expect(try FlagsRequest(build: build, shape: .compile).run().standardOutput == "-ffunction-sections\n")
    #expect(try FlagsRequest(build: build, shape: .snippet(.make)).run().standardOutput.hasPrefix("# GNU Make"))
    let json = try FlagsRequest(build: build, shape: .json).run().standardOutput
    let decoded = try JSONDecoder().decode(BuildFlags.self, from: Data(json.utf8))
    #expect(decoded.compile == ["-ffunction-sections"])
  }

  @Test("flags for BOLT keep the relocations, before the ordering flag that comes last")
  func flagsKeepRelocations() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    let flags = FlagsRequest(build: .release(orderfile: order, format: .lld), shape: .link, keepRelocations: true)
    #expect(
      try flags.run().standardOutput
        == "-fuse-ld=lld -Wl,--build-id -Wl,--emit-relocs -Wl,--symbol-ordering-file=\(order)\n")
    let plain = FlagsRequest(build: .release(orderfile: order, format: .lld), shape: .link)
    #expect(!(try plain.run().standardOutput.contains("--emit-relocs")))
  }
}

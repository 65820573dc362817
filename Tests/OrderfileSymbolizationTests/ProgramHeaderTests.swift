import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

/// The first line of `readelf -lW`'s "Requesting program interpreter: /lib64/ld-linux-x86-64.so.2]".
private func readelfInterpreter(_ path: String) throws -> String? {
  let output = try runChecked("/usr/bin/readelf", ["-lW", path]).standardOutput
  guard let line = output.split(separator: "\n").first(where: { $0.contains("Requesting program interpreter: ") })
  else { return nil }
  return line.split(separator: " ").last.map { String($0.dropLast()) }
}

@Suite(
  "What a binary's ELF header names before it runs: its machine and its loader",
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf"),
    "readelf is not installed (apt-get install binutils): skipped"))
struct ProgramHeaderTests {
  @Test(
    "the loader named in PT_INTERP, as readelf reads it; none for a static program; unknown for a file that is not ELF")
  func interpreter() throws {
    let work = try TemporaryDirectory("orderfile-interpreter")
    let dynamic = try buildBreakpointFixture(["sequence.c"], in: work, output: "dynamic")
    let loader = try #require(try readelfInterpreter(dynamic))
    #expect(loader.hasPrefix("/"))
    #expect(ProgramInterpreter(dynamic) == .loader(loader))
    #expect(try LoaderTables.read(path: dynamic).interpreter == loader)
    let statically = try buildBreakpointFixture(["sequence.c"], in: work, flags: ["-static"], output: "static")
    #expect(ProgramInterpreter(statically) == .none)
    #expect(try LoaderTables.read(path: statically).interpreter == nil)
    let text = work.file("script")
    try "#!/bin/sh\n".write(toFile: text, atomically: true, encoding: .utf8)
    #expect(ProgramInterpreter(text) == .unknown)
    #expect(ProgramInterpreter(work.file("missing")) == .unknown)
  }

  @Test("the machine of a program, a library and a bare arm64 header; none for a script or a truncated file")
  func machine() throws {
    let work = try TemporaryDirectory("orderfile-machine")
    let program = try buildBreakpointFixture(["sequence.c"], in: work, output: "program")
    #expect(ELFMachine.of(fileAt: program) == ELFMachine.host)
    let loader = try #require(try readelfInterpreter(program))
    #expect(ELFMachine.of(fileAt: loader) == ELFMachine.host)
    let header = work.file("arm64.so")
    try Arm64.writeHeaderOnlyELF(to: header)
    #expect(ELFMachine.of(fileAt: header) == .aarch64)
    let script = work.file("script")
    try "#!/bin/sh\n".write(toFile: script, atomically: true, encoding: .utf8)
    #expect(ELFMachine.of(fileAt: script) == nil)
    // Its header whole, its program headers cut off: not a file the tool reads as ELF.
    let truncated = work.file("truncated")
    try AtomicFile.write(Array(try Data(contentsOf: URL(fileURLWithPath: program)).prefix(80)), to: truncated)
    #expect(ELFMachine.of(fileAt: truncated) == nil)
    #expect(ProgramInterpreter(truncated) == .unknown)
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("A failure is reported with its real cause, not a guess at another")
struct RealCauseCLITests {
  @Test("record: a loader the tool cannot read is named with why, not as one without _dl_debug_state")
  func unreadableLoader() throws {
    let work = try TemporaryDirectory("orderfile-unreadable-loader")
    // A copy of this machine's loader whose section header table lies past the end of the
    // file: the kernel, which reads only its segments, runs it; the tool cannot read it.
    let plain = try buildBreakpointFixture(["sequence.c"], in: work, output: "plain")
    let host = try #require(ProgramInterpreter(plain).path, "\(plain) names no loader")
    var bytes = try FileReading.bytes(atPath: host)
    // e_shoff, at 0x28 in a 64-bit header.
    withUnsafeBytes(of: UInt64(0x7fff_ffff_0000).littleEndian) { bytes.replaceSubrange(0x28..<0x30, with: $0) }
    try AtomicFile.write(bytes, to: work.file("ld.so"), mode: 0o755)
    // As the kernel maps it, links resolved: the name the warning gives.
    let loader = try #require(ModuleFile.resolved(work.file("ld.so")))
    let program = try buildBreakpointFixture(
      ["sequence.c"], in: work, flags: ["-Wl,--dynamic-linker=" + loader], output: "program")

    let result = try orderfile(["record", "--recorder", "tracer", "-o", work.file("launch.trace"), "--", program])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "sequence 74\n")
    let warning = try #require(
      result.standardError.split(separator: "\n").first { $0.contains("dynamic loader") }, "\(result.standardError)")
    #expect(warning.contains("the dynamic loader cannot be read"), "\(warning)")
    #expect(
      warning.contains("'\(loader)' is a malformed ELF file") && warning.contains("section headers"), "\(warning)")
    #expect(!result.standardError.contains("_dl_debug_state"), "\(result.standardError)")
  }

  @Test("estimate --measure: a temporary folder that cannot be made is the error, not a probe that recorded nothing")
  func unwritableTemporaryFolder() throws {
    let work = try TemporaryDirectory("orderfile-measure-tmpdir")
    let program = try buildBreakpointFixture(["sequence.c"], in: work, output: "program")
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-o", trace, "--", program])
    #expect(recorded.status == 0, "\(recorded.standardError)")
    let missing = work.file("missing")
    let result = try orderfile(
      ["estimate", "--trace", trace, "--binary", program, "--measure", "--", program], environment: ["TMPDIR": missing])
    #expect(result.status == ExitStatus.ioError.rawValue, "\(result.standardError)")
    #expect(
      result.standardError
        == "orderfile: error: \(missing)/orderfile-measure.XXXXXX: mkdtemp failed: No such file or directory\n")
  }
}

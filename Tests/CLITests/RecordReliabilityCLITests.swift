import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A fixture program from Tests/Fixtures/breakpoints, built as a release build would be.
private func buildFixture(_ sources: [String], in work: TemporaryDirectory, flags: [String] = [], output: String)
  throws -> String
{
  let fixtures = PackagePaths.fixtures + "/breakpoints/"
  let binary = work.file(output)
  try runChecked(Toolchain.clang, ["-O2", "-g"] + flags + sources.map { fixtures + $0 } + ["-o", binary])
  return binary
}

private let isRoot = getuid() == 0
private let setpriv = ProcessRunner.resolve("setpriv")
private let canDropPrivileges = isRoot && setpriv.hasPrefix("/")

/// `orderfile` run as `nobody`, bounded by `timeout` (status 124 when it had to end it).
private func orderfileAsNobody(_ arguments: [String], limit: Int = 30) throws -> ProcessResult {
  try ProcessRunner.run(
    "timeout",
    ["\(limit)", setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", PackagePaths.orderfileExecutable]
      + arguments)
}

@Suite("record never harms the program it records", .serialized)
struct RecordReliabilityCLITests {
  @Test(
    "a program that makes itself non-dumpable, then loads a library, runs to its end under a recorder without privileges",
    .enabled(if: canDropPrivileges, "needs root (to become nobody with setpriv)"))
  func nonDumpableProgram() throws {
    let work = try TemporaryDirectory("orderfile-record-undumpable")
    // nobody must be able to write the trace and read the programs.
    chmod(work.path, 0o777)
    let plugin = try buildFixture(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    let host = try buildFixture(["host.c"], in: work, flags: ["-ldl"], output: "host")
    let trace = work.file("launch.trace")
    let started = Date()
    let result = try orderfileAsNobody(["record", "-o", trace, "--", host, plugin, "undumpable"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(Date().timeIntervalSince(started) < 20)
    #expect(result.standardOutput == "host 44\n")
    #expect(result.standardError.contains("made itself non-dumpable: libraries it loads from now on are not recorded"))
    // What ran before, in the executable, is recorded still.
    let read = try TraceReader.read(path: trace)
    #expect(read.modules.contains { $0.path.hasSuffix("/host") })
    #expect(!read.records.isEmpty)
  }
}

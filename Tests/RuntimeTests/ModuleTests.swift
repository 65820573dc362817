import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Module entries for an instrumented PIE and an instrumented shared library
/// (Tests/Fixtures/runtime/library_user.c and fixture_library.c).
@Suite("Modules")
struct ModuleTests {
  /// The GNU build-id `readelf -n` reports for `path`.
  private func buildID(_ path: String) throws -> String {
    let notes = try runChecked("readelf", ["-n", path]).standardOutput
    let line = try #require(
      RuntimeFixture.lines(notes.replacingOccurrences(of: "    ", with: ""), startingWith: "Build ID:").first)
    return line.dropFirst("Build ID:".count).trimmingCharacters(in: .whitespaces)
  }

  /// The address `nm` gives for `symbol` in `path`.
  private func symbolAddress(_ symbol: String, in path: String) throws -> UInt64 {
    let table = try runChecked(Toolchain.nm, [path]).standardOutput
    let line = try #require(table.split(separator: "\n").first { $0.hasSuffix(" " + symbol) })
    return try #require(UInt64(line.split(separator: " ")[0], radix: 16))
  }

  @Test("paths, build-ids, load bases and addresses of an executable and a library", arguments: Compiler.allCases)
  func executableAndLibrary(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-modules")
    let library = try RuntimeFixture.library(
      "fixture_library.c", named: "fixture", compiler: compiler, in: directory)
    let program = try RuntimeFixture.program(
      "library_user.c", compiler: compiler, in: directory,
      extra: ["-L", directory.path, "-lfixture", "-Wl,-rpath," + directory.path])
    let path = directory.file("modules.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")

    let trace = try TraceReader.read(path: path)
    #expect(trace.modules.count == 2)
    let exe = try #require(trace.modules.first { $0.isMainExecutable })
    let lib = try #require(trace.modules.first { !$0.isMainExecutable })
    let realProgram = URL(fileURLWithPath: program).resolvingSymlinksInPath().path
    let realLibrary = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
    #expect(exe.path == realProgram)
    #expect(lib.path == realLibrary)
    let programBuildID = try buildID(program)
    let libraryBuildID = try buildID(library)
    #expect(exe.buildIDHex == programBuildID)
    #expect(lib.buildIDHex == libraryBuildID)
    #expect(exe.loadBase != 0, "a PIE is loaded at a random base")
    #expect(lib.loadBase != 0)
    #expect(exe.loadBase % 4096 == 0 && lib.loadBase % 4096 == 0)

    // What the program saw at run time, module-relative...
    let exeAddresses = RuntimeFixture.addresses(run.standardOutput, labelled: "exe")
    let libAddresses = RuntimeFixture.addresses(run.standardOutput, labelled: "lib")
    #expect(Set(exeAddresses).isSubset(of: Set(trace.addresses(inModule: exe.index))))
    #expect(Set(libAddresses) == Set(trace.addresses(inModule: lib.index)))
    // ...and what nm says the files hold.
    let libraryRun = try symbolAddress("library_run", in: library)
    let programWork = try symbolAddress("program_work", in: program)
    #expect(libAddresses.first == libraryRun)
    #expect(exeAddresses.first == programWork)
    for record in trace.records {
      let module = trace.modules[record.module]
      #expect(module.textRange.contains(record.address))
    }
  }

  @Test("hooks that bind to libc's no-ops are reported, not silently lost")
  func hooksBoundToLibc() throws {
    let directory = try TemporaryDirectory("runtime-binding")
    _ = try RuntimeFixture.library("fixture_library.c", named: "fixture", compiler: .gcc, in: directory)
    // A plain executable: the runtime arrives only as the library's dependency,
    // after libc, whose own __cyg_profile_func_enter then wins.
    let program = directory.file("plain-user")
    try runChecked(
      Toolchain.gcc,
      [
        "-O2", "-I", RuntimeFixture.sources, RuntimeFixture.sources + "/library_user.c", "-o", program,
        "-L", directory.path, "-lfixture", "-Wl,-rpath," + directory.path,
      ])
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": directory.file("plain.trace")])
    #expect(run.succeeded)
    let warnings = RuntimeFixture.lines(run.standardError, startingWith: "orderfile: warning: ")
    #expect(warnings.count == 1, "\(run.standardError)")
    #expect(warnings.first?.contains("libc.so.6, not this runtime's, so nothing will be recorded") == true)
    #expect(try RuntimeFixture.traces(in: directory).isEmpty)

    // Preloading the runtime puts it ahead of libc: recorded, no warning.
    let runtime = try RuntimeBuilder.libraryDirectory() + "/libOrderfileRuntime.so"
    let preloaded = try RuntimeFixture.run(
      program, environment: ["ORDERFILE_OUTPUT": directory.file("preloaded.trace"), "LD_PRELOAD": runtime])
    #expect(preloaded.succeeded)
    #expect(preloaded.standardError.isEmpty)
    let trace = try TraceReader.read(path: directory.file("preloaded.trace"))
    #expect(trace.modules.count == 1)
    #expect(trace.records.count == 3)
  }
}

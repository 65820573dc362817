import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// Libraries instrumented on their own, each with the runtime embedded
/// (libOrderfileRuntimeEmbedded.a, from Scripts/build-runtime), loaded by a host program that
/// nobody rebuilt (Tests/Fixtures/runtime/embedded_plugin.c and plugin_host.c).
@Suite("Embedded runtime")
struct EmbeddedRuntimeTests {
  /// Builds `lib<name>.so` from the plugin fixture, with the embedded runtime linked in.
  private func plugin(_ name: String, compiler: Compiler, in directory: TemporaryDirectory) throws -> String {
    let archive = try RuntimeBuilder.libraryDirectory() + "/libOrderfileRuntimeEmbedded.a"
    let output = directory.file("lib\(name).so")
    // The project's own --as-needed must not matter: the runtime is inside the library.
    try runChecked(
      compiler.executable,
      [
        "-O2", "-fPIC", "-shared", compiler.instrumentation, "-DNAME=\(name)", "-I", PackagePaths.runtimeInclude,
        RuntimeFixture.sources + "/embedded_plugin.c", "-o", output, "-Wl,--as-needed", archive, "-Wl,--build-id",
      ])
    return output
  }

  private func host(in directory: TemporaryDirectory) throws -> String {
    let output = directory.file("plugin-host")
    try runChecked(Toolchain.clang, ["-O2", RuntimeFixture.sources + "/plugin_host.c", "-o", output])
    return output
  }

  @Test("two plugins in an uninstrumented host share one trace", arguments: Compiler.allCases)
  func twoPluginsOneTrace(compiler: Compiler) throws {
    let directory = try TemporaryDirectory("runtime-embedded")
    defer { directory.remove() }
    let first = try plugin("alpha", compiler: compiler, in: directory)
    let second = try plugin("beta", compiler: compiler, in: directory)
    let host = try host(in: directory)
    // The host knows nothing of the runtime: neither it nor its libraries mention the hooks.
    #expect(!(try runChecked(Toolchain.nm, ["-D", host]).standardOutput.contains("__cyg_profile")))

    let trace = directory.file("plugins.trace")
    let run = try RuntimeFixture.run(
      host, [first, "alpha_entry", second, "beta_entry"], environment: ["ORDERFILE_OUTPUT": trace])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(run.standardError.isEmpty, "the host's stderr must stay clean: \(run.standardError)")
    #expect(run.standardOutput.contains("total 36"))
    #expect(try RuntimeFixture.traces(in: directory) == [trace])

    let read = try TraceReader.read(path: trace)
    let modules = Dictionary(uniqueKeysWithValues: read.modules.map { ($0.path, $0.index) })
    for (name, library) in [("alpha", first), ("beta", second)] {
      let real = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
      let index = try #require(modules[real], "no module for \(real) in \(read.modules.map(\.path))")
      let printed = RuntimeFixture.addresses(run.standardOutput, labelled: name)
      #expect(printed.count == 3)
      #expect(Set(read.addresses(inModule: index)) == Set(printed))
    }
    #expect(read.modules.count == 2, "\(read.modules.map(\.path))")
    #expect(read.marks.map(\.name) == ["alpha loaded", "beta loaded"])
  }

  @Test("a plugin beside an instrumented host that links the shared runtime")
  func pluginBesideSharedRuntime() throws {
    let directory = try TemporaryDirectory("runtime-embedded")
    defer { directory.remove() }
    let library = try plugin("gamma", compiler: .clang, in: directory)
    let runtime = try RuntimeBuilder.libraryDirectory()
    let host = try RuntimeFixture.program("plugin_host.c", compiler: .clang, in: directory, runtimeDirectory: runtime)
    let trace = directory.file("mixed.trace")
    let run = try RuntimeFixture.run(host, [library, "gamma_entry"], environment: ["ORDERFILE_OUTPUT": trace])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(try RuntimeFixture.traces(in: directory) == [trace])
    let read = try TraceReader.read(path: trace)
    let main = try #require(read.mainModule)
    #expect(!read.addresses(inModule: main).isEmpty, "the host's own first calls")
    let real = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
    let plugin = try #require(read.modules.first { $0.path == real })
    #expect(
      Set(read.addresses(inModule: plugin.index))
        == Set(RuntimeFixture.addresses(run.standardOutput, labelled: "gamma")))
  }

  @Test("record and generate write one orderfile per plugin")
  func recordAndGenerate() throws {
    let directory = try TemporaryDirectory("runtime-embedded")
    defer { directory.remove() }
    let first = try plugin("alpha", compiler: .gcc, in: directory)
    let second = try plugin("beta", compiler: .gcc, in: directory)
    let host = try host(in: directory)
    let trace = directory.file("recorded.trace")
    let record = try RuntimeFixture.orderfile(
      ["record", "--instrumented", "-o", trace, "--", host, first, "alpha_entry", second, "beta_entry"])
    #expect(record.succeeded, "\(record.standardError)")
    let orders = directory.file("orders")
    let generate = try RuntimeFixture.orderfile(["generate", trace, "--output-dir", orders])
    #expect(generate.succeeded, "\(generate.standardError)")
    let alpha = try String(contentsOfFile: orders + "/libalpha.so.order", encoding: .utf8)
    let beta = try String(contentsOfFile: orders + "/libbeta.so.order", encoding: .utf8)
    #expect(alpha.split(separator: "\n").prefix(3) == ["alpha_entry", "alpha_leaf", "alpha_helper"])
    #expect(beta.split(separator: "\n").prefix(3) == ["beta_entry", "beta_leaf", "beta_helper"])
  }
}

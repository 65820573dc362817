import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `record --until` with the names the tool itself prints, checked before the program runs.
@Suite("record --until: every spelling the tool prints")
struct UntilNamesTests {
  /// A C++ program whose launch ends in `app::serverIsUp(int)`; it leaves `ran` behind when
  /// it runs at all.
  private func cxxProgram(_ work: TemporaryDirectory) throws -> String {
    let source = work.file("server.cpp")
    try AtomicFile.write(
      """
      #include <cstdio>
      namespace app {
      __attribute__((noinline)) int configure(int port) { return port + 1; }
      __attribute__((noinline)) void serverIsUp(int port) { std::printf("up %d\\n", port); }
      __attribute__((noinline)) int afterLaunch(int port) { return port * 2; }
      }
      int main(int argc, char **) {
        if (std::FILE *ran = std::fopen("ran", "w")) std::fclose(ran);
        int port = app::configure(argc);
        app::serverIsUp(port);
        return app::afterLaunch(port) == 0;
      }
      """, to: source)
    let binary = work.file("server")
    try runChecked(Toolchain.llvmBin + "/clang++", ["-O2", "-g", source, "-o", binary])
    return binary
  }

  @Test("a demangled C++ name with its parameters, as report prints it, ends the window")
  func cxxWithParameters() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let program = try cxxProgram(work)
    let trace = work.file("launch.trace")
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["record", "-o", trace, "--until", "app::serverIsUp(int)", "--", program],
      currentDirectory: work.path)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(!result.standardError.contains("named no function"), "\(result.standardError)")
    let report = try json(try orderfile(["report", trace, "--json"]))
    let calls = (report["firstCalls"] as? [[String: Any]] ?? []).filter { $0["module"] as? Int == 0 }
    let inWindow = calls.filter { $0["inLaunchWindow"] as? Bool == true }.compactMap { $0["name"] as? String }
    #expect(inWindow.last == "app::serverIsUp(int)", "\(inWindow)")
    // The report's phases count it in the launch, as record does.
    let phases = report["phases"] as? [[String: Any]] ?? []
    let phase = try #require(calls.first { $0["name"] as? String == "app::serverIsUp(int)" }?["phase"] as? Int)
    #expect(
      phase < phases.count && (phases[phase]["name"] as? String)?.hasSuffix("→ startup complete") == true, "\(phases)")
    let recorded = try #require(result.standardError.split(separator: " ").firstIndex(of: "recorded"))
    let count = Int(result.standardError.split(separator: " ")[recorded + 1])
    let launchPhases = phases.filter { $0["isAfterLaunch"] as? Bool == false }
    #expect(count == launchPhases.reduce(0) { $0 + (($1["firstCalls"] as? Int) ?? 0) }, "\(result.standardError)")
  }

  @Test("a name that matches nothing fails before the program runs, with the nearest names")
  func noMatchFailsFirst() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let program = try cxxProgram(work)
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "-o", work.file("launch.trace"), "--until", "app::serverisup", "--", program],
      currentDirectory: work.path)
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix("orderfile: error: --until 'app::serverisup' names no function of "),
      "\(result.standardError)")
    #expect(result.standardError.contains("nearest: 'app::serverIsUp(int)'"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: work.file("ran")), "the program ran")
    #expect(!FileManager.default.fileExists(atPath: work.file("launch.trace")))
  }

  @Test("a Swift name as report prints it, result type and all, ends the window")
  func swiftAsPrinted() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let source = work.file("main.swift")
    try AtomicFile.write(
      """
      @inline(never) func serverIsUp(_ port: Int) { print("up \\(port)") }
      @inline(never) func afterLaunch(_ port: Int) -> Int { port * 2 }
      let port = CommandLine.arguments.count + 8000
      serverIsUp(port)
      print(afterLaunch(port))
      """, to: source)
    let binary = work.file("App")
    try runChecked(
      Toolchain.llvmBin + "/swiftc", ["-O", "-module-name", "App", source, "-o", binary, "-Xlinker", "--build-id"])
    let trace = work.file("launch.trace")
    let result = try orderfile(["record", "-o", trace, "--until", "App.serverIsUp(Swift.Int) -> ()", "--", binary])
    #expect(result.status == 0, "\(result.standardError)")
    let report = try json(try orderfile(["report", trace, "--json"]))
    let calls = (report["firstCalls"] as? [[String: Any]] ?? []).filter { $0["module"] as? Int == 0 }
    let inWindow = calls.filter { $0["inLaunchWindow"] as? Bool == true }.compactMap { $0["name"] as? String }
    #expect(inWindow.last == "App.serverIsUp(Swift.Int) -> ()", "\(inWindow)")
    // The toolchain's runtime libraries (libswiftCore.so under …/usr/lib/swift/) are not
    // the program's own: not armed, so nothing of them is recorded.
    let modules = report["modules"] as? [[String: Any]] ?? []
    let toolchain = modules.filter { ($0["path"] as? String)?.contains("/usr/lib/swift/") == true }
    #expect(toolchain.allSatisfy { $0["firstCalls"] as? Int == 0 }, "\(toolchain)")
    #expect(result.standardError.contains("system libraries not recorded"), "\(result.standardError)")
  }

  /// Tests/Fixtures/rust/until_names.rs built by rustup's rustc, with its default (legacy)
  /// mangling or with v0.
  private func rustProgram(_ work: TemporaryDirectory, mangling: String) throws -> String {
    let binary = work.file("until_names")
    try runChecked(
      try #require(RustToolchains.rustup),
      ["-C", "opt-level=0", "-C", "codegen-units=1", PackagePaths.fixtures + "/rust/until_names.rs", "-o", binary]
        + (mangling == "v0" ? ["-C", "symbol-mangling-version=v0"] : []))
    return binary
  }

  @Test(
    "Rust names as report prints them, in either mangling's spelling, with or without a hash, end the window",
    .enabled(if: RustToolchains.rustup != nil, "rustup's rustc is not installed (~/.cargo/bin)"),
    arguments: ["legacy", "v0"])
  func rustAsPrinted(mangling: String) throws {
    let work = try TemporaryDirectory("orderfile-until-rust")
    defer { work.remove() }
    let program = try rustProgram(work, mangling: mangling)
    func inWindow(_ until: [String]) throws -> (result: ProcessResult, names: [String]) {
      let trace = work.file("launch.trace")
      let result = try orderfile(["record", "-o", trace] + until.flatMap { ["--until", $0] } + ["--", program])
      guard result.succeeded else { return (result, []) }
      let calls = (try json(try orderfile(["report", trace, "--json"]))["firstCalls"] as? [[String: Any]] ?? [])
        .filter { $0["module"] as? Int == 0 && $0["inLaunchWindow"] as? Bool == true }
      return (result, calls.compactMap { $0["name"] as? String })
    }
    // What report prints for this mangling, then each spelling and the name it must end at.
    let printed =
      mangling == "v0"
      ? [
        "std::rt::lang_start::<()>::{closure#0}", "until_names::walk::spawn_senders::{closure#0}::{closure#0}",
        "core::ptr::drop_in_place::<until_names::Opts>",
      ]
      : [
        "std::rt::lang_start::{{closure}}", "until_names::walk::spawn_senders::{{closure}}::{{closure}}",
        "core::ptr::drop_in_place<until_names::Opts>",
      ]
    let all = try inWindow([]).names
    #expect(printed.allSatisfy(all.contains), "report printed \(all)")
    var spellings = [
      (printed[0], printed[0]), (printed[1], printed[1]), (printed[2], printed[2]),
      ("std::rt::lang_start::{{closure}}", printed[0]), ("std::rt::lang_start::{closure#0}", printed[0]),
      ("walk::spawn_senders::{closure#0}::{closure#0}", printed[1]),
      ("walk::spawn_senders::{{closure}}::{{closure}}", printed[1]),
      ("core::ptr::drop_in_place<until_names::Opts>", printed[2]),
      ("core::ptr::drop_in_place::<until_names::Opts>", printed[2]),
    ]
    if mangling == "legacy" {
      // A demangler that keeps the hash prints it as the last path segment.
      let symbols = try runChecked(Toolchain.nm, [program]).standardOutput
      let mangled = try #require(
        symbols.split(separator: "\n").compactMap { $0.split(separator: " ").last }
          .first { $0.hasPrefix("_ZN11until_names4walk13spawn_senders17h") })
      // _ZN…17h<16 hex digits>E
      let hash = mangled.dropLast().suffix(17)
      spellings.append(("until_names::walk::spawn_senders::" + hash, "until_names::walk::spawn_senders"))
    }
    for (spelling, last) in spellings {
      let (result, names) = try inWindow([spelling])
      #expect(result.status == 0, "--until '\(spelling)': \(result.standardError)")
      #expect(names.last == last, "--until '\(spelling)' ended the window at \(names.suffix(2))")
    }
    // estimate --measure takes them as record does.
    let measured = try orderfile(
      [
        "estimate", "--trace", work.file("launch.trace"), "--binary", program, "--measure", "--until", spellings[3].0,
        "--", program,
      ])
    #expect(measured.status == 0 && !measured.standardError.contains("names no function"), "\(measured.standardError)")
    // A hash of another build names nothing.
    if mangling == "legacy" {
      #expect(try inWindow(["until_names::walk::spawn_senders::h0123456789abcdef"]).result.status == 64)
    }
  }

  @Test(
    "a misspelt name fails in one line that suggests the nearest names, before the program runs",
    .enabled(if: RustToolchains.rustup != nil, "rustup's rustc is not installed (~/.cargo/bin)"),
    arguments: ["legacy", "v0"])
  func typoSuggestsNearest(mangling: String) throws {
    let work = try TemporaryDirectory("orderfile-until-rust")
    defer { work.remove() }
    let program = try rustProgram(work, mangling: mangling)
    for (typo, nearest) in [
      ("ZSTD_compressStreem2", "'ZSTD_compressStream2'"), ("walk::spawn_sendrs", "'until_names::walk::spawn_senders'"),
    ] {
      let trace = work.file("launch.trace")
      let result = try orderfile(["record", "-o", trace, "--until", typo, "--", program])
      #expect(result.status == 64, "\(result.standardError)")
      let lines = result.standardError.split(separator: "\n")
      #expect(lines.count == 1, "\(result.standardError)")
      #expect(
        lines.first?.hasPrefix("orderfile: error: --until '\(typo)' names no function of \(program)") == true
          && lines.first?.contains("nearest: \(nearest)") == true, "\(result.standardError)")
      #expect(!FileManager.default.fileExists(atPath: trace))
    }
    // estimate --measure counts to exit, and says which names were meant.
    let trace = work.file("all.trace")
    #expect(try orderfile(["record", "-o", trace, "--", program]).succeeded)
    let measured = try orderfile(
      [
        "estimate", "--trace", trace, "--binary", program, "--measure", "--until", "ZSTD_compressStreem2", "--",
        program,
      ])
    #expect(measured.status == 0, "\(measured.standardError)")
    #expect(
      measured.standardError.contains(
        "--until 'ZSTD_compressStreem2' names no function of \(program); the pages were counted to exit (nearest: 'ZSTD_compressStream2')"
      ), "\(measured.standardError)")
  }

  @Test("a launch that runs a system program draws no warning about that program's symbols")
  func systemProgramChild() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let source = work.file("app.c")
    try AtomicFile.write(
      """
      #include <sys/wait.h>
      #include <unistd.h>
      __attribute__((noinline)) int probe(void) {
        pid_t child = fork();
        if (child == 0) { execl("/usr/bin/true", "true", (char *)0); _exit(127); }
        int status = 0;
        waitpid(child, &status, 0);
        return status;
      }
      int main(void) { return probe(); }
      """, to: source)
    let binary = work.file("app")
    try runChecked(Toolchain.clang, ["-O2", "-g", source, "-o", binary])
    let result = try orderfile(["record", "-o", work.file("t.trace"), "--", binary])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(!result.standardError.contains("/usr/bin/true"), "\(result.standardError)")
    #expect(!result.standardError.contains("warning"), "\(result.standardError)")
  }

  @Test("--until on an instrumented build is refused before it runs, with the two ways to record it")
  func instrumentedBuild() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let source = work.file("app.c")
    try AtomicFile.write(
      """
      #include <stdio.h>
      __attribute__((noinline)) int ready(int x) { return x + 1; }
      int main(int argc, char **argv) { FILE *ran = fopen("ran", "w"); if (ran) fclose(ran); return ready(argc) == 0; }
      """, to: source)
    let binary = work.file("app")
    try runChecked(Toolchain.clang, ["-O2", "-finstrument-functions", source, "-o", binary])
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["record", "-o", work.file("t.trace"), "--until", "ready", "--", binary],
      currentDirectory: work.path)
    #expect(result.status == 64, "\(result.standardError)")
    #expect(result.standardError.contains("is an instrumented build"), "\(result.standardError)")
    #expect(result.standardError.contains("add --no-rebuild"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: work.file("ran")), "the program ran")
    // Asked for, it is recorded without a rebuild and the window ends at ready().
    let explicit = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "--no-rebuild", "-o", work.file("t.trace"), "--until", "ready", "--", binary],
      currentDirectory: work.path)
    #expect(explicit.status == 0, "\(explicit.standardError)")
  }
}

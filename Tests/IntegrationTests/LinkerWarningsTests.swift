import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A program whose launch runs glibc's `pthread_atfork`: the executable holds a hidden copy
/// from `libc_nonshared.a`, while lld's symbol table resolves the name to libc.so.6, so an
/// entry for it draws "unable to order shared symbol" on every relink.
private let atforkProgram = """
  #include <pthread.h>
  #include <stdio.h>
  static void prepare(void) {}
  __attribute__((noinline)) int configure(int x) { return x * 3 + 1; }
  int main(int argc, char **argv) {
    (void)argv;
    pthread_atfork(prepare, 0, 0);
    printf("%d\\n", configure(argc));
    return 0;
  }
  """

@Suite("A fresh orderfile relinks without an lld warning", .serialized)
struct LinkerWarningsTests {
  @Test(
    "generate leaves out what lld would refuse and says so; ld.lld then warns of nothing",
    arguments: ["gcc", "clang"])
  func noWarningOnRelink(compilerName: String) throws {
    let compiler = compilerName == "gcc" ? Toolchain.gcc : Toolchain.clang
    try #require(FileManager.default.isExecutableFile(atPath: compiler), "\(compilerName) is not installed")
    let work = try TemporaryDirectory("orderfile-lld-warnings")
    defer { work.remove() }
    let source = work.file("app.c")
    try AtomicFile.write(atforkProgram, to: source)
    let object = work.file("app.o")
    try runChecked(compiler, ["-O2", "-ffunction-sections", "-c", source, "-o", object])
    let app = work.file("app")
    try runChecked(compiler, [object, "-fuse-ld=lld", "-Wl,--build-id", "-o", app])
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", app])
    try #require(recorded.succeeded, "\(recorded.standardError)")

    let order = work.file("app.order")
    let generated = try orderfile(["generate", trace, "-o", order, "--release-binary", app, "--json"])
    try #require(generated.succeeded, "\(generated.standardError)")
    let module = try #require((try json(generated))["modules"] as? [[String: Any]]).first
    #expect(module?["refusedByLinker"] as? [String] == ["pthread_atfork"])
    let entries = try String(contentsOfFile: order, encoding: .utf8).split(separator: "\n")
    #expect(entries.contains("configure") && entries.contains("main"), "\(entries)")

    let relink = try runChecked(
      compiler,
      [object, "-fuse-ld=lld", "-Wl,--build-id", "-Wl,--symbol-ordering-file=" + order, "-o", work.file("app.ordered")])
    let warnings = relink.standardError.split(separator: "\n").filter { $0.contains("warning") }
    #expect(warnings.isEmpty, "ld.lld warned: \(warnings)")
  }

  @Test(
    "an entry lld warns about but places is named by generate: its warnings are exactly those, and nm shows it ordered")
  func versionedLibraryNameIsExplained() throws {
    let work = try TemporaryDirectory("orderfile-lld-versioned")
    defer { work.remove() }
    let source = work.file("app.cpp")
    // libstdc++ exports `std::operator+(const char*, const std::string&)` as
    // `…@@GLIBCXX_3.4.21`; the program's weak copy is the one linked.
    try AtomicFile.write(
      """
      #include <iostream>
      #include <string>
      __attribute__((noinline)) std::string greet(const std::string &n) { return "hello " + n; }
      int main(int argc, char **argv) { std::cout << greet(argv[0]) << "\\n"; return 0; }
      """, to: source)
    let object = work.file("app.o")
    try runChecked(Toolchain.clang + "++", ["-O2", "-ffunction-sections", "-c", source, "-o", object])
    let app = work.file("app")
    try runChecked(Toolchain.clang + "++", [object, "-fuse-ld=lld", "-Wl,--build-id", "-o", app])
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", app])
    try #require(recorded.succeeded, "\(recorded.standardError)")

    let order = work.file("app.order")
    let generated = try orderfile(["generate", trace, "-o", order, "--json"])
    try #require(generated.succeeded, "\(generated.standardError)")
    let module = try #require((try json(generated))["modules"] as? [[String: Any]]).first
    let warned = module?["warnedByLinker"] as? [String] ?? []
    let plus = "_ZStplIcSt11char_traitsIcESaIcEENSt7__cxx1112basic_stringIT_T0_T1_EEPKS5_RKS8_"
    #expect(warned == [plus])
    let text = try orderfile(["generate", trace, "-o", order])
    #expect(text.standardOutput.contains("1 entry lld warns about but places"), "\(text.standardOutput)")

    let ordered = work.file("app.ordered")
    let relink = try runChecked(
      Toolchain.clang + "++",
      [object, "-fuse-ld=lld", "-Wl,--build-id", "-Wl,--symbol-ordering-file=" + order, "-o", ordered])
    let warnings = relink.standardError.split(separator: "\n").filter { $0.contains("warning") }
    #expect(
      warnings.count == 1 && warnings.allSatisfy { $0.hasSuffix("unable to order shared symbol: " + plus) },
      "\(warnings)")
    // Placed all the same: right after `greet`, which the launch called first.
    let listing = try runChecked(Toolchain.nm, ["-n", "--defined-only", ordered]).standardOutput
    let names = listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    let greet = try #require(names.firstIndex { $0.hasPrefix("_Z5greet") })
    #expect(names.indices.contains(greet + 1) && names[greet + 1] == plus, "\(names)")
  }
}

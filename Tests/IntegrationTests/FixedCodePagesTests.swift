import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A program whose code is in a shared library of its own that calls 2,400 functions of
/// another library through its PLT (38 KiB of stubs, ten 4 KiB pages), as a GTK app's library
/// calls the toolkit: 48 functions of 50 calls each, of which the launch runs 32, scattered.
private enum PLTProgram {
  static let functions = 48
  static let callsPerFunction = 50
  static let launch = (0..<functions).filter { $0 % 3 != 1 }

  static var external: String {
    "volatile int sink;\n"
      + (0..<functions * callsPerFunction).map { "int ext_\($0)(int x) { sink += \($0); return x + sink; }\n" }.joined()
  }

  /// With `exported` false, fix_N are static: in a stripped library no symbol names them.
  static func library(exported: Bool = true) -> String {
    var text = "extern volatile int sink;\n"
    text += (0..<functions * callsPerFunction).map { "int ext_\($0)(int);\n" }.joined()
    for function in 0..<functions {
      text += (exported ? "" : "__attribute__((noinline)) static ") + "int fix_\(function)(int x) {\n"
      // About 600 bytes of its own, so that the library's text spans pages an order can save.
      text += (0..<60).map { "  sink = sink * \(function % 5 + 3) + \($0);\n" }.joined()
      let first = function * callsPerFunction
      text += (first..<first + callsPerFunction).map { "  x = ext_\($0)(x);\n" }.joined()
      text += "  return x;\n}\n"
    }
    text += "int fix_launch(int x) {\n" + launch.map { "  x = fix_\($0)(x);\n" }.joined() + "  return x;\n}\n"
    return text
  }

  static let main =
    "int fix_launch(int);\nint main(int argc, char **argv) { (void)argv; return fix_launch(argc) == 12345; }\n"

  /// Builds `libext.so` once and, in `directory`, `libfix.so` (with `flags`) and `app`.
  static func build(
    in work: TemporaryDirectory, directory: String, flags: [String] = [], order: String? = nil, exported: Bool = true
  ) throws {
    let clang = Toolchain.clang
    let external = work.file("libext.so")
    if !FileManager.default.fileExists(atPath: external) {
      try AtomicFile.write(Self.external, to: work.file("ext.c"))
      try runChecked(clang, ["-O2", "-fPIC", "-shared", work.file("ext.c"), "-o", external, "-fuse-ld=lld"])
      try AtomicFile.write(library(), to: work.file("fix.c"))
      try AtomicFile.write(library(exported: false), to: work.file("fix-static.c"))
      try AtomicFile.write(main, to: work.file("app.c"))
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let orderFlags = order.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? []
    try runChecked(
      clang,
      ["-O2", "-fPIC", "-ffunction-sections", "-shared"] + flags + [
        work.file(exported ? "fix.c" : "fix-static.c"), "-o", directory + "/libfix.so",
      ]
        + ["-L" + work.path, "-lext", "-fuse-ld=lld", "-Wl,--build-id=sha1"] + orderFlags)
    try runChecked(
      clang,
      [work.file("app.c"), "-o", directory + "/app", "-L" + directory, "-lfix", "-L" + work.path, "-lext"]
        + ["-Wl,-rpath," + directory + ":" + work.path, "-fuse-ld=lld"])
  }
}

private func fixedPages(_ estimate: [String: Any], _ pageSize: Int) -> Int? {
  let rows = estimate["pages"] as? [[String: Any]] ?? []
  return rows.first { $0["pageSize"] as? Int == pageSize }?["fixedCode"] as? Int
}

private func section(_ report: [String: Any], _ name: String) -> [String: Any]? {
  let sections = (report["fixedCode"] as? [String: Any])?["sections"] as? [[String: Any]] ?? []
  return sections.first { $0["name"] as? String == name }
}

@Suite("Fixed code: .init and PLT stubs counted in estimate, the page probe and verify", .serialized)
struct FixedCodePagesTests {
  /// Records `directory/app` and estimates its `libfix.so` against the page probe.
  private func measuredEstimate(_ directory: String, trace: String) throws -> [String: Any] {
    let recorded = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", directory + "/app"])
    try #require(recorded.status == 0 || recorded.status == 1, "\(recorded.standardError)")
    let result = try orderfile(
      [
        "estimate", "--trace", trace, "--binary", directory + "/libfix.so", "--json", "--measure", "--",
        directory + "/app",
      ])
    try #require(result.succeeded, "\(result.standardError)")
    return try json(result)
  }

  @Test("a library's PLT pages are in the estimate, which agrees with the probe on the default and the ordered layout")
  func pltPagesCounted() throws {
    let work = try TemporaryDirectory("orderfile-plt")
    defer { work.remove() }
    let plain = work.file("default")
    try PLTProgram.build(in: work, directory: plain)
    let now = try measuredEstimate(plain, trace: work.file("default.trace"))

    for size in [4096, 16384] {
      let estimated = try #require(pages(now, size, "current"))
      let probe = try #require(measured(now, size))
      #expect(agrees(estimated, probe), "default layout, \(size) B pages: estimate \(estimated), probe \(probe)")
    }
    let plt = try #require(section(now, ".plt"), "no .plt in \(now["fixedCode"] ?? "nil")")
    let stubs = try #require(plt["stubs"] as? Int)
    let called = try #require(plt["calledStubs"] as? Int)
    // 1,600 calls of the launch and its 32 calls of fix_N, exported and so through the PLT too.
    #expect(called == PLTProgram.launch.count * (PLTProgram.callsPerFunction + 1), "\(called) of \(stubs) stubs")
    // Every external function, the 32 fix_N the launch calls, and crtbeginS.o's __cxa_finalize.
    #expect(stubs == PLTProgram.functions * PLTProgram.callsPerFunction + PLTProgram.launch.count + 1)
    let stubPages = try #require(fixedPages(now, 4096))
    #expect(stubPages >= 8, "the launch's stubs span eight pages or more; the estimate counted \(stubPages)")

    let order = work.file("fix.order")
    let generated = try orderfile([
      "generate", work.file("default.trace"), "--module", "libfix.so", "-o", order,
      "--release-binary", plain + "/libfix.so",
    ])
    try #require(generated.succeeded, "\(generated.standardError)")
    let ordered = work.file("ordered")
    try PLTProgram.build(in: work, directory: ordered, order: order)
    let after = try measuredEstimate(ordered, trace: work.file("ordered.trace"))
    for size in [4096, 16384] {
      let simulated = try #require(pages(now, size, "ordered"))
      let estimated = try #require(pages(after, size, "current"))
      let probe = try #require(measured(after, size))
      #expect(agrees(estimated, probe), "ordered layout, \(size) B: estimate \(estimated), probe \(probe)")
      #expect(agrees(simulated, probe), "ordered layout, \(size) B: simulated \(simulated), probe \(probe)")
      let bound = try #require(pages(now, size, "lowerBound"))
      #expect(bound <= probe, "lower bound \(bound) above the \(probe) pages touched")
    }

    // verify names what the order cannot move, with the stubs.
    let verified = try orderfile(["verify", "--binary", ordered + "/libfix.so", "--order", order, "--json"])
    #expect(verified.succeeded, "\(verified.standardError)")
    let verifiedPLT = try #require(
      section(try json(verified), ".plt"), "verify lists no .plt: \(verified.standardOutput)")
    #expect(verifiedPLT["stubs"] as? Int == stubs)
    let text = try orderfile(["verify", "--binary", ordered + "/libfix.so", "--order", order])
    #expect(text.standardOutput.contains(".plt"), "\(text.standardOutput)")
  }

  @Test(
    "IBT's .plt.sec with its lazy entries in .plt, and binding at load: the estimate agrees with the probe",
    arguments: [["-fcf-protection=full", "-Wl,-z,force-ibt"], ["-Wl,-z,now"]])
  func otherStubLayouts(flags: [String]) throws {
    let work = try TemporaryDirectory("orderfile-plt-layouts")
    defer { work.remove() }
    let directory = work.file("lib")
    try PLTProgram.build(in: work, directory: directory, flags: flags)
    let estimate = try measuredEstimate(directory, trace: work.file("launch.trace"))
    for size in [4096, 16384] {
      let estimated = try #require(pages(estimate, size, "current"))
      let probe = try #require(measured(estimate, size))
      #expect(agrees(estimated, probe), "\(flags), \(size) B pages: estimate \(estimated), probe \(probe)")
    }
    let stubs = try #require(section(estimate, flags.contains("-Wl,-z,now") ? ".plt" : ".plt.sec"))
    #expect(stubs["calledStubs"] as? Int == PLTProgram.launch.count * (PLTProgram.callsPerFunction + 1))
    #expect(((estimate["fixedCode"] as? [String: Any])?["bindsNow"] as? Bool) == flags.contains("-Wl,-z,now"))
  }

  @Test("-fno-plt: the measured pages drop by the stub pages the estimate counted, and the estimate follows")
  func noPLTSavesStubPages() throws {
    let work = try TemporaryDirectory("orderfile-noplt")
    defer { work.remove() }
    let plain = work.file("default")
    try PLTProgram.build(in: work, directory: plain)
    let withPLT = try measuredEstimate(plain, trace: work.file("default.trace"))
    let direct = work.file("noplt")
    try PLTProgram.build(in: work, directory: direct, flags: ["-fno-plt"])
    let withoutPLT = try measuredEstimate(direct, trace: work.file("noplt.trace"))

    let before = try #require(measured(withPLT, 4096))
    let after = try #require(measured(withoutPLT, 4096))
    #expect(after + 5 <= before, "-fno-plt: \(before) → \(after) pages measured at 4 KiB")
    let estimated = try #require(pages(withoutPLT, 4096, "current"))
    #expect(agrees(estimated, after), "-fno-plt: estimate \(estimated), probe \(after)")
    // clang's -fno-plt leaves calls to functions the unit defines (exported, so preemptible:
    // fix_N) on the PLT; the 1,600 calls to the other library go through the GOT.
    #expect(section(withoutPLT, ".plt")?["calledStubs"] as? Int == PLTProgram.launch.count)
    let note = try orderfile(["estimate", "--trace", work.file("default.trace"), "--binary", plain + "/libfix.so"])
    #expect(note.standardOutput.contains("-fno-plt"), "\(note.standardOutput)")
  }

  @Test("stubs called from code no symbol names: the mismatch names the PLT")
  func uncountedStubsNamed() throws {
    let work = try TemporaryDirectory("orderfile-plt-stripped")
    defer { work.remove() }
    let stripped = work.file("stripped")
    try PLTProgram.build(in: work, directory: stripped, flags: ["-Wl,--strip-all"], exported: false)
    let estimate = try measuredEstimate(stripped, trace: work.file("stripped.trace"))
    let probe = try #require(measured(estimate, 4096))
    let estimated = try #require(pages(estimate, 4096, "current"))
    try #require(!agrees(estimated, probe), "the stripped library's helpers went unseen, yet \(estimated) ≈ \(probe)")
    let causes = (estimate["measurement"] as? [String: Any])?["causes"] as? [String] ?? []
    #expect(causes.contains { $0.hasPrefix("PLT stubs ran that no recorded function calls directly") }, "\(causes)")
  }

  @Test("the page probe counts a library's .init and constructors, which run before the program's own initializers")
  func libraryConstructorsMeasured() throws {
    let work = try TemporaryDirectory("orderfile-probe-init")
    defer { work.remove() }
    // Five constructors on pages of their own, and the function main calls on another.
    let constructors = (1...5).map {
      "__attribute__((constructor, aligned(4096))) static void constructor_\($0)(void) { ran += \($0); }\n"
    }
    try AtomicFile.write(
      "volatile int ran;\n" + constructors.joined()
        + "__attribute__((aligned(4096), noinline)) int lib_main(int x) { return x + ran; }\n",
      to: work.file("lib.c"))
    try AtomicFile.write(
      "int lib_main(int);\nint main(int argc, char **argv) { (void)argv; return lib_main(argc) == 12345; }\n",
      to: work.file("app.c"))
    let library = work.file("libinit.so")
    try runChecked(Toolchain.clang, ["-O2", "-fPIC", "-shared", work.file("lib.c"), "-o", library, "-fuse-ld=lld"])
    let app = work.file("app")
    try runChecked(
      Toolchain.clang,
      [work.file("app.c"), "-o", app, "-L" + work.path, "-linit", "-Wl,-rpath," + work.path, "-fuse-ld=lld"])
    let trace = work.file("launch.trace")
    _ = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", app])
    let result = try orderfile(["estimate", "--trace", trace, "--binary", library, "--json", "--measure", "--", app])
    try #require(result.succeeded, "\(result.standardError)")
    let probe = try #require(measured(try json(result), 4096))
    #expect(probe >= 6, "five constructor pages and lib_main's: the probe counted \(probe)")
  }
}

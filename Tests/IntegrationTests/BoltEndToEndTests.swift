import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// llvm-bolt as `orderfile bolt` finds it, or nil when bolt-22 is not installed.
private let installedBolt: String? = {
  for name in ["llvm-bolt-22", "llvm-bolt"] {
    let path = ProcessRunner.resolve(name)
    if path.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: path) { return path }
  }
  let debian = "/usr/lib/llvm-22/bin/llvm-bolt"
  return FileManager.default.isExecutableFile(atPath: debian) ? debian : nil
}()

private let fixture = PackagePaths.fixtures + "/bolt/app.c"

/// Compiles and links the fixture for release: one section per function, relocations kept
/// for BOLT, and the toolchain clang's own cold-code splitting off where it has it (BOLT
/// leaves functions the compiler split in place).
private func linkRelease(_ output: String, order: String? = nil, source: String = fixture) throws {
  let flags =
    ["-O2", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--emit-relocs", "-Wl,--build-id", source]
    + (order.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? []) + ["-o", output]
  let noSplit = try ProcessRunner.run(
    Toolchain.clang, ["-Xclang", "-fno-split-cold-code"] + flags, environment: Toolchain.environment)
  if !noSplit.succeeded { try runChecked(Toolchain.clang, flags) }
}

/// The address range of a binary's `.text`, from readelf.
private func textRange(_ binary: String) throws -> Range<UInt64> {
  let sections = try runChecked("readelf", ["-SW", binary]).standardOutput
  for line in sections.split(separator: "\n") {
    let fields = line.split(separator: " ").filter { !$0.isEmpty && $0 != "[" }
    guard let name = fields.firstIndex(of: ".text"), fields.count > name + 4,
      let start = UInt64(fields[name + 2], radix: 16), let size = UInt64(fields[name + 4], radix: 16)
    else { continue }
    return start..<(start + size)
  }
  throw TestSupportError("\(binary) has no .text")
}

/// The address of a function symbol, from nm.
private func functionAddress(_ name: String, _ binary: String) throws -> UInt64? {
  let symbols = try runChecked(Toolchain.nm, [binary]).standardOutput
  return symbols.split(separator: "\n").compactMap { line -> UInt64? in
    let fields = line.split(separator: " ")
    return fields.count == 3 && fields[2] == name ? UInt64(fields[0], radix: 16) : nil
  }.first
}

@Suite("End to end with BOLT: record, generate, relink, bolt, estimate", .serialized)
struct BoltEndToEndTests {
  @Test(
    "the launch's entry parts sit together, below the whole-function bound, as a page-touch probe confirms",
    .enabled(if: installedBolt != nil, "llvm-bolt is not installed (apt-get install bolt-22): skipped"))
  func boltedLaunch() throws {
    let work = try TemporaryDirectory("orderfile-bolt")
    defer { work.remove() }
    let app = work.file("app")
    try linkRelease(app)
    let trace = work.file("launch.trace")
    let order = work.file("app.order")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", app])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let generated = try orderfile(["generate", trace, "-o", order])
    #expect(generated.succeeded, "\(generated.standardError)")
    let ordered = work.file("app.ordered")
    try linkRelease(ordered, order: order)

    let bolted = work.file("app.bolt")
    let bolt = try orderfile(["bolt", "--binary", ordered, "--order", order, "-o", bolted, "--json", "--", ordered])
    try #require(bolt.succeeded, "\(bolt.standardError)")
    let report = try json(bolt)
    #expect((report["orderedFunctions"] as? Int ?? 0) >= 7)  // main and the six stages
    #expect((report["leftInPlace"] as? [String]) == [])
    #expect((report["coldBytes"] as? Int ?? 0) > 8192)
    // The launch still does what it did.
    let run = try runChecked(bolted, [])
    #expect(run.standardOutput == "launch value 4358\n")

    let estimate = try json(try orderfile(["estimate", "--trace", trace, "--binary", bolted, "--json"]))
    let fragments = try #require(estimate["fragments"] as? [String: Any], "no fragments in the estimate")
    #expect((fragments["splitFunctions"] as? Int ?? 0) >= 6)
    #expect(fragments["runs"] as? Int == 1, "entry parts not together: \(fragments["outsideLargestRun"] ?? "")")
    let bounds = try #require(fragments["bounds"] as? [[String: Any]])
    let current = try #require(pages(estimate, 4096, "current"))
    let whole = try #require(bounds.first { $0["pageSize"] as? Int == 4096 }?["wholeFunctionBound"] as? Int)
    #expect(current < whole, "\(current) pages at 4 KiB, whole-function bound \(whole)")
    let relinked = try json(try orderfile(["estimate", "--trace", trace, "--binary", ordered, "--json"]))
    #expect(current < pages(relinked, 4096, "current") ?? 0)

    // Independent of symbols and the trace: the pages of the new text the launch executes.
    let touched = try TouchedPages.ofMainExecutable(running: bolted, in: work)
    let start = try #require(fragments["hotSpanStart"] as? UInt64)
    let end = try #require(estimate["textEnd"] as? UInt64)
    let inNewText = Set(touched.filter { $0 >= start / 4096 * 4096 && $0 < end })
    #expect(!touched.isEmpty)
    // .init and the PLT stubs stay in the old text, outside the span the probe's pages are taken from.
    let fixed = try #require(pages(estimate, 4096, "fixedCode"))
    #expect(inNewText.count == current - fixed, "the probe saw \(inNewText.count) pages of the new text run")
  }

  @Test(
    "one-letter names in the current directory, for the binary and the output, are rewritten like any other",
    .enabled(if: installedBolt != nil, "llvm-bolt is not installed (apt-get install bolt-22): skipped"))
  func oneLetterPaths() throws {
    let work = try TemporaryDirectory("orderfile-bolt")
    defer { work.remove() }
    try linkRelease(work.file("t"))
    try AtomicFile.write("main\n", to: work.file("t.order"))
    let bolt = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["bolt", "--binary", "t", "--order", "t.order", "-o", "c", "--", "./t"],
      currentDirectory: work.path)
    #expect(bolt.status == 0, "\(bolt.standardError)")
    let run = try runChecked(work.file("c"), [])
    #expect(run.standardOutput == "launch value 4358\n")
    // Nothing of the run is left beside the binary or the output.
    let left = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
    #expect(left == ["c", "t", "t.order"])
  }

  @Test(
    "the output stays near the binary's size, and --old-text reports whether the new code fit in the old text",
    .enabled(if: installedBolt != nil, "llvm-bolt is not installed (apt-get install bolt-22): skipped"))
  func outputSize() throws {
    let work = try TemporaryDirectory("orderfile-bolt")
    defer { work.remove() }
    let app = work.file("app")
    try linkRelease(app)
    try AtomicFile.write("main\n", to: work.file("app.order"))
    let bolt = try orderfile(["bolt", "--binary", app, "--order", work.file("app.order"), "-o", work.file("app.bolt")])
    try #require(bolt.succeeded, "\(bolt.standardError)")
    let input = try #require(try FileManager.default.attributesOfItem(atPath: app)[.size] as? Int)
    let output = try #require(try FileManager.default.attributesOfItem(atPath: work.file("app.bolt"))[.size] as? Int)
    // BOLT's default 2 MiB alignment made this 120 KB program 6.3 MB.
    #expect(Double(output) < 1.5 * Double(input), "\(input) -> \(output) bytes")
    #expect(bolt.standardOutput.contains("  size:     \(input) -> \(output) bytes"))
    #expect(!bolt.standardError.contains("times the size of"))

    let oldText = try orderfile([
      "bolt", "--binary", app, "--order", work.file("app.order"), "-o", work.file("app.old"), "--old-text", "--json",
    ])
    try #require(oldText.succeeded, "\(oldText.standardError)")
    let report = try json(oldText)
    #expect((report["optimizeOptions"] as? [String] ?? []).contains("-use-old-text"))
    // This program's split code is a little larger than its old text: BOLT says so and
    // writes a new segment, and the report must not claim otherwise.
    let oldTextRange = try textRange(app)
    let main = try #require(try functionAddress("main", work.file("app.old")))
    #expect(
      report["textInOldPlace"] as? Bool == oldTextRange.contains(main), "main at \(main), old text \(oldTextRange)")
  }

  @Test(
    "BOLT's warnings are printed in the report, dropped debug info is said, and --keep-debug-info keeps it",
    .enabled(if: installedBolt != nil, "llvm-bolt is not installed (apt-get install bolt-22): skipped"))
  func debugInfo() throws {
    let work = try TemporaryDirectory("orderfile-bolt-debug")
    defer { work.remove() }
    let app = work.file("app")
    let flags = ["-O2", "-g", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--emit-relocs", fixture, "-o", app]
    try runChecked(Toolchain.clang, flags)
    try AtomicFile.write("main\n", to: work.file("app.order"))
    let debugSections = { (path: String) in
      try runChecked("/usr/bin/readelf", ["-S", "-W", path]).standardOutput.split(separator: "\n")
        .filter { $0.contains(" .debug_") }.count
    }
    try #require(try debugSections(app) > 0, "the fixture has no debug info")

    let dropped = try orderfile([
      "bolt", "--binary", app, "--order", work.file("app.order"), "-o", work.file("app.bolt"),
    ])
    try #require(dropped.succeeded, "\(dropped.standardError)")
    #expect(try debugSections(work.file("app.bolt")) == 0)
    let lines = dropped.standardOutput.split(separator: "\n").map(String.init)
    // The warning itself is in the report, not only its count.
    #expect(lines.contains { $0.hasPrefix("    ") && $0.contains("debug info will be stripped") }, "\(lines)")
    #expect(
      lines.contains {
        $0.hasPrefix("  debug:") && $0.hasSuffix("-> 0 bytes of debug info: dropped (--keep-debug-info keeps it)")
      }, "\(lines)")

    let kept = try orderfile([
      "bolt", "--binary", app, "--order", work.file("app.order"), "-o", work.file("app.kept"), "--keep-debug-info",
      "--json",
    ])
    try #require(kept.succeeded, "\(kept.standardError)")
    #expect(try debugSections(work.file("app.kept")) > 0)
    let report = try json(kept)
    #expect((report["optimizeOptions"] as? [String] ?? []).contains("-update-debug-sections"))
    let debug = try #require(report["debugInfoBytes"] as? [String: Any])
    #expect((debug["output"] as? Int ?? 0) > 0, "\(debug)")
  }

  @Test("a binary linked without --emit-relocs is refused in one line with the flag to add (exit 65)")
  func noRelocations() throws {
    let work = try TemporaryDirectory("orderfile-bolt")
    defer { work.remove() }
    let app = work.file("app")
    try runChecked(Toolchain.clang, ["-O2", "-ffunction-sections", "-fuse-ld=lld", fixture, "-o", app])
    try AtomicFile.write("main\n", to: work.file("app.order"))
    // Any executable stands in for llvm-bolt: the binary is checked before anything runs.
    let result = try orderfile([
      "bolt", "--binary", app, "--order", work.file("app.order"), "-o", work.file("app.bolt"), "--bolt", "/bin/true",
    ])
    #expect(result.status == 65)
    #expect(result.standardOutput.isEmpty)
    #expect(
      result.standardError
        == "orderfile: error: \(app): no relocations (no .rela.text section): relink with -Wl,--emit-relocs\n")
  }
}

extension BoltEndToEndTests {
  @Test(
    "bolt --time-limit on an app that never exits: the profiled launch is ended after the limit, its profile kept, the binary rewritten, no process left",
    .enabled(if: installedBolt != nil, "llvm-bolt is not installed (apt-get install bolt-22): skipped"))
  func appThatNeverExits() throws {
    let work = try TemporaryDirectory("orderfile-bolt-app")
    defer { work.remove() }
    let app = work.file("app")
    try linkRelease(app, source: PackagePaths.fixtures + "/breakpoints/app_idle.c")
    let order = work.file("app.order")
    try AtomicFile.write("main\napp_run\nconfigure\nlaunch_done\n", to: order)
    let pids = work.file("pids")
    let started = Date()
    let result = try ProcessRunner.run(
      "timeout",
      [
        "60", PackagePaths.orderfileExecutable, "bolt", "--binary", app, "--order", order, "-o", work.file("app.bolt"),
        "--time-limit", "300", "--json", "--", app, pids,
      ])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(Date().timeIntervalSince(started) < 45)
    #expect(result.standardOutput.contains("\"launchStatus\" : 0"), "\(result.standardOutput)")
    #expect(FileManager.default.isExecutableFile(atPath: work.file("app.bolt")))
    for pid in try BackgroundProcess.pids(writtenTo: pids) {
      #expect(!BackgroundProcess.isRunning(pid), "process \(pid) outlived bolt")
    }
  }
}

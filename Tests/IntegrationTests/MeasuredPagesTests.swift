import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A C++ program of several translation units whose launch runs a scattered subset of its
/// functions, and in each unit a large local function of one shared name (`helper`) of
/// which only the copy in unit 3 runs: the same-named local clones g++ makes of templates
/// (`_M_construct<…>.isra.0` in many units), made by hand so that both compilers make them.
private enum ClonesProgram {
  static let units = 6
  static let functionsPerUnit = 14

  /// A function body of about `statements` × 10 bytes that the optimizer cannot shrink.
  static func body(_ statements: Int, seed: Int) -> String {
    (0..<statements).map { "  sink = sink * \(seed % 7 + 3) + \($0 + seed);" }.joined(separator: "\n")
  }

  static func unit(_ index: Int) -> String {
    var text = "extern volatile int sink;\n"
    text += "__attribute__((noinline)) static int helper(int x) {\n\(body(300, seed: index))\n  return x + sink;\n}\n"
    for function in 0..<functionsPerUnit {
      text +=
        "__attribute__((noinline)) int f\(index)_\(function)(int x) {\n\(body(40 + (function * 37 + index * 11) % 160, seed: function))\n  return x + sink;\n}\n"
    }
    // Only unit 3 calls its helper at launch; the others' helpers never run.
    text += "int unit\(index)_launch(int x) {\n"
    if index == 3 { text += "  x = helper(x);\n" } else { text += "  if (x == 12345) x = helper(x);\n" }
    for function in stride(from: (index * 5) % 3, to: functionsPerUnit, by: 3) {
      text += "  x = f\(index)_\(function)(x);\n"
    }
    text += "  return x;\n}\n"
    return text
  }

  static var main: String {
    var text = "volatile int sink;\n"
    for index in 0..<units { text += "int unit\(index)_launch(int);\n" }
    text += "int main(int argc, char **argv) {\n  (void)argv;\n  int x = argc;\n"
    for index in [4, 1, 5, 0, 3, 2] { text += "  x = unit\(index)_launch(x);\n" }
    text += "  return x == 12345;\n}\n"
    return text
  }

  /// Writes the sources and compiles them to objects with `compiler`; returns the objects.
  static func compile(in work: TemporaryDirectory, compiler: String) throws -> [String] {
    var objects: [String] = []
    for (index, source) in ((0..<units).map(unit) + [main]).enumerated() {
      let path = work.file("unit\(index).cpp")
      try AtomicFile.write(source, to: path)
      objects.append(work.file("unit\(index).o"))
      try runChecked(compiler, ["-O2", "-ffunction-sections", "-c", path, "-o", objects[index]])
    }
    return objects
  }
}

private var hasGxx: Bool { ProcessRunner.resolve("g++").hasPrefix("/") }

/// Whether `estimated` is within 3 pages or 3% of `measured`: the goal of the estimate.
func agrees(_ estimated: Int, _ measured: Int) -> Bool {
  abs(estimated - measured) <= max(3, (measured * 3 + 99) / 100)
}

/// The measured pages of the estimate's binary at one page size.
func measured(_ estimate: [String: Any], _ pageSize: Int) -> Int? {
  let measurement = estimate["measurement"] as? [String: Any]
  let rows = measurement?["rows"] as? [[String: Any]] ?? []
  return rows.first { $0["pageSize"] as? Int == pageSize }?["measured"] as? Int
}

@Suite("Measured pages: estimate --measure against the page probe on real programs", .serialized)
struct MeasuredPagesTests {
  /// Links the objects with ld.lld; returns lld's warnings.
  @discardableResult
  private func link(
    _ objects: [String], compiler: String, output: String, order: String? = nil, buildID: String = "sha1"
  ) throws -> [String] {
    let flags =
      ["-fuse-ld=lld", "-Wl,--build-id=" + buildID] + (order.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? [])
    let result = try runChecked(compiler, objects + flags + ["-o", output])
    return result.standardError.split(separator: "\n").map(String.init).filter { $0.contains("warning:") }
  }

  private func measuredEstimate(trace: String, binary: String, extra: [String] = []) throws -> [String: Any] {
    let result = try orderfile(
      ["estimate", "--trace", trace, "--binary", binary, "--json"] + extra + ["--measure", "--", binary])
    try #require(result.succeeded, "\(result.standardError)")
    return try json(result)
  }

  @Test(
    "default and ordered layouts: the estimate is within 3% (or 3 pages) of the measured pages; the relink warns of nothing",
    arguments: ["g++", "clang++"])
  func estimateAgreesWithProbe(compilerName: String) throws {
    let compiler = compilerName == "g++" ? ProcessRunner.resolve("g++") : Toolchain.llvmBin + "/clang++"
    try #require(FileManager.default.isExecutableFile(atPath: compiler), "\(compilerName) is not installed")
    let work = try TemporaryDirectory("orderfile-measured")
    defer { work.remove() }
    let objects = try ClonesProgram.compile(in: work, compiler: compiler)
    let app = work.file("app")
    try link(objects, compiler: compiler, output: app)

    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", app])
    try #require(recorded.status == 0 || recorded.status == 1, "\(recorded.standardError)")
    let now = try measuredEstimate(trace: trace, binary: app)
    for size in [4096, 16384] {
      let estimated = try #require(pages(now, size, "current"))
      let probe = try #require(measured(now, size))
      #expect(
        agrees(estimated, probe),
        "\(compilerName) default layout, \(size) B pages: estimate \(estimated), probe \(probe)")
    }

    let order = work.file("app.order")
    let generated = try orderfile(["generate", trace, "-o", order, "--release-binary", app])
    try #require(generated.succeeded, "\(generated.standardError)")
    let ordered = work.file("app.ordered")
    let warnings = try link(objects, compiler: compiler, output: ordered, order: order)
    #expect(warnings.isEmpty, "ld.lld warned: \(warnings)")

    // The simulated ordered layout against the pages the relinked binary really touches.
    let orderedTrace = work.file("ordered.trace")
    let again = try orderfile(["record", "--no-rebuild", "-q", "-o", orderedTrace, "--", ordered])
    try #require(again.status == 0 || again.status == 1, "\(again.standardError)")
    let after = try measuredEstimate(trace: orderedTrace, binary: ordered)
    for size in [4096, 16384] {
      let simulated = try #require(pages(now, size, "ordered"))
      let estimated = try #require(pages(after, size, "current"))
      let probe = try #require(measured(after, size))
      #expect(
        agrees(estimated, probe), "\(compilerName) ordered layout, \(size) B: estimate \(estimated), probe \(probe)")
      #expect(
        agrees(simulated, probe), "\(compilerName) ordered layout, \(size) B: simulated \(simulated), probe \(probe)")
      #expect(probe < (measured(now, size) ?? 0) || size > 4096, "the order did not cut the pages at \(size) B")
    }

    // diff measures both binaries the same way: the base's pages and the head's.
    let empty = work.file("empty.order")
    try AtomicFile.write("", to: empty)
    let diff = try orderfile(["diff", empty, order, "--base-binary", app, "--head-binary", ordered, "--json"])
    try #require(diff.succeeded, "\(diff.standardError)")
    let rows = try #require(((try json(diff))["measured"] as? [String: Any])?["rows"] as? [[String: Any]])
    let row = try #require(rows.first { $0["pageSize"] as? Int == 4096 }?["pages"] as? [String: Any])
    #expect(row["base"] as? Int == measured(now, 4096) && row["head"] as? Int == measured(after, 4096), "\(row)")
  }

  @Test(
    "by name, same-named local copies count once: a trace of another build estimates the pages the probe measures",
    .enabled(if: hasGxx, "g++ is not installed: skipped"))
  func sameNamedClonesCountOnce() throws {
    let work = try TemporaryDirectory("orderfile-clones")
    defer { work.remove() }
    let compiler = ProcessRunner.resolve("g++")
    let objects = try ClonesProgram.compile(in: work, compiler: compiler)
    // Two links of one set of objects that differ only in their build-id: the trace of
    // one names the functions of the other but cannot give their addresses.
    let recordedBuild = work.file("app.recorded")
    let app = work.file("app")
    try link(objects, compiler: compiler, output: recordedBuild, buildID: "0x" + String(repeating: "1", count: 40))
    try link(objects, compiler: compiler, output: app, buildID: "0x" + String(repeating: "2", count: 40))
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", recordedBuild])
    try #require(recorded.status == 0 || recorded.status == 1, "\(recorded.standardError)")
    let symbols = try textSymbolsInAddressOrder(app)
    // g++ makes the helpers that launch never calls `.constprop.0` clones: one name, five functions.
    #expect(
      symbols.filter { $0.hasPrefix("_ZL6helperi") }.count == ClonesProgram.units, "the copies of helper: \(symbols)")
    #expect(symbols.filter { $0 == "_ZL6helperi.constprop.0" }.count > 1, "no same-named clones: \(symbols)")

    let byName = try measuredEstimate(trace: trace, binary: app)
    #expect(byName["countedByAddress"] as? Bool == false)
    let byAddress = try measuredEstimate(trace: trace, binary: recordedBuild)
    #expect(byAddress["countedByAddress"] as? Bool == true)
    for size in [4096, 16384] {
      let probe = try #require(measured(byName, size))
      let estimated = try #require(pages(byName, size, "current"))
      #expect(agrees(estimated, probe), "by name, \(size) B pages: estimate \(estimated), probe \(probe)")
      let exact = try #require(pages(byAddress, size, "current"))
      #expect(agrees(exact, try #require(measured(byAddress, size))), "by address, \(size) B pages")
    }
    // Five helpers that never ran, about 3 KB each: counting them would add pages.
    let launchBytes = try #require(byName["launchBytes"] as? Int)
    #expect(launchBytes == (byAddress["launchBytes"] as? Int ?? -1), "by name \(launchBytes) B, by address")
  }

  @Test("a program that installs its own SIGSEGV handler (sigaction, signal) and leaves by _exit is measured in full")
  func exitWithoutCleanup() throws {
    let work = try TemporaryDirectory("orderfile-measure-exit")
    defer { work.remove() }
    let source = work.file("app.c")
    try AtomicFile.write(
      """
      #include <signal.h>
      #include <string.h>
      #include <unistd.h>
      #define PAGE __attribute__((noinline, aligned(4096)))
      static void on_segv(int sig) { (void)sig; _exit(3); }
      PAGE int first(int x) { return x * 7 + 1; }
      PAGE int second(int x) { return x ^ 0x55; }
      PAGE int third(int x) { return x - 9; }
      int main(int argc, char **argv) {
        (void)argv;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_segv;
        sigaction(SIGSEGV, &action, 0);
        signal(SIGSEGV, on_segv);
        int x = third(second(first(argc)));
        _exit(x == 12345);
      }
      """, to: source)
    let app = work.file("app")
    try runChecked(
      Toolchain.clang, ["-O2", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", source, "-o", app])
    let trace = work.file("launch.trace")
    _ = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--", app])
    let estimate = try measuredEstimate(trace: trace, binary: app)
    let probe = try #require(measured(estimate, 4096))
    #expect(probe >= 4, "first, second, third and main are on 4 pages at least; the probe saw \(probe)")
    #expect(agrees(try #require(pages(estimate, 4096, "current")), probe))
    let launch = (estimate["measurement"] as? [String: Any])?["launch"] as? [String: Any]
    #expect(launch?["exitStatus"] as? Int == 0, "the program's own handler must not have run")
  }

  @Test("--measure without a command, or a command without --measure, is a usage error (exit 64)")
  func measureUsage() throws {
    let missing = try orderfile(["estimate", "--trace", "t", "--binary", "b", "--measure"])
    #expect(missing.status == 64)
    #expect(missing.standardError.contains("--measure runs the program"))
    let stray = try orderfile(["estimate", "--trace", "t", "--binary", "b", "--until", "f"])
    #expect(stray.status == 64)
    #expect(stray.standardError.contains("--until needs --measure"), "\(stray.standardError)")
  }

  @Test("--until ends the count at the first call of a function; the probe's pages stop there")
  func untilEndsTheCount() throws {
    let work = try TemporaryDirectory("orderfile-until")
    defer { work.remove() }
    let compiler = Toolchain.llvmBin + "/clang++"
    let objects = try ClonesProgram.compile(in: work, compiler: compiler)
    let app = work.file("app")
    try link(objects, compiler: compiler, output: app)
    let trace = work.file("launch.trace")
    _ = try orderfile(["record", "--no-rebuild", "-q", "-o", trace, "--until", "unit3_launch", "--", app])
    let whole = try measuredEstimate(trace: trace, binary: app)
    let until = try measuredEstimate(trace: trace, binary: app, extra: ["--until", "unit3_launch"])
    let launch = (until["measurement"] as? [String: Any])?["launch"] as? [String: Any]
    #expect(launch?["end"] as? String == "until")
    let wholePages = try #require(measured(whole, 4096))
    let untilPages = try #require(measured(until, 4096))
    #expect(untilPages < wholePages, "with --until \(untilPages) pages, without \(wholePages)")
    #expect(agrees(try #require(pages(until, 4096, "current")), untilPages))
  }
}

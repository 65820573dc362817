import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A short run of `Scripts/bench`, so the script keeps working as the commands it drives
/// change. The long runs (real programs from Debian sources, LLVM 22, 100,000 functions)
/// stay out of the test suite: this runs the scale section on 2,000 generated functions,
/// once, with the tool and runtime the tests already built. No network.
@Suite("Scripts/bench smoke")
struct BenchSmokeTests {
  @Test("the scale section runs end to end, says what it measured, and writes its block in the docs")
  func scaleSection() throws {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let work = try TemporaryDirectory("orderfile-bench-smoke")
    defer { work.remove() }
    let page = work.file("Performance.md")
    try "Prose.\n<!-- bench:scale -->\nold figures\n<!-- /bench:scale -->\nMore prose.\n"
      .write(toFile: page, atomically: true, encoding: .utf8)
    let saved = work.file("report.json")
    let result = try ProcessRunner.run(
      "/usr/bin/env",
      [
        "python3", PackagePaths.root + "/Scripts/bench", "scale", "--scale-functions", "2000",
        "--orderfile", PackagePaths.orderfileExecutable, "--runtime-dir", runtime, "--json",
        "--save", saved, "--update-docs", "--doc", page,
      ],
      environment: Toolchain.environment)
    #expect(result.status == 0, "bench exited \(result.status): \(result.standardError.suffix(2000))")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let sections = try #require(report["sections"] as? [String: Any])
    let scale = try #require(sections["scale"] as? [String: Any])
    #expect(scale["functions"] as? Int == 2000)
    // The goals are timings: judged by the bench on a quiet machine, not by the suite.
    #expect(scale["pass"] is Bool)
    let steps = try #require(scale["steps"] as? [[String: Any]])
    #expect(steps.map { $0["step"] as? String ?? "" }.contains("generate: orderfile generate"))
    for step in steps {
      #expect((step["seconds"] as? Double ?? -1) >= 0)
      #expect((step["peak_kib"] as? Int ?? 0) > 0, "no peak memory for \(step["step"] ?? "?")")
    }
    let pages = try #require(scale["pages_16k"] as? [String: Any])
    let lowerBound = pages["lower_bound"] as? Int ?? 0
    #expect(lowerBound > 0)
    #expect(pages["ordered_measured"] as? Int ?? 0 >= lowerBound)

    // The block between the markers is replaced by the run's table; the prose stays.
    let updated = try String(contentsOfFile: page, encoding: .utf8)
    #expect(!updated.contains("old figures"))
    #expect(updated.hasPrefix("Prose.\n<!-- bench:scale -->\nRun of "))
    #expect(updated.hasSuffix("\n<!-- /bench:scale -->\nMore prose.\n"))
    #expect(updated.contains("\nGoal: "))
    #expect(updated.contains("| generate: `orderfile generate` | **"))

    // The saved report renders the same block again without measuring: every figure loads back.
    let again = try ProcessRunner.run(
      "/usr/bin/env", ["python3", PackagePaths.root + "/Scripts/bench", "--report", saved, "--markdown"])
    #expect(again.status == 0, "\(again.standardError)")
    #expect(again.standardOutput.hasPrefix("<!-- bench:scale -->\nRun of "))
    #expect(updated.contains(again.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  @Test("the startup section reads the runtime's start-up from its traces and writes its block in the docs")
  func startupSection() throws {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let work = try TemporaryDirectory("orderfile-bench-startup")
    defer { work.remove() }
    let page = work.file("Performance.md")
    try "<!-- bench:startup -->\nold figures\n<!-- /bench:startup -->\n".write(
      toFile: page, atomically: true, encoding: .utf8)
    let result = try ProcessRunner.run(
      "/usr/bin/env",
      [
        "python3", PackagePaths.root + "/Scripts/bench", "startup", "--runs", "1", "--runtime-dir", runtime, "--json",
        "--update-docs", "--doc", page,
      ],
      environment: Toolchain.environment)
    #expect(result.status == 0, "bench exited \(result.status): \(result.standardError.suffix(2000))")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let startup = try #require((report["sections"] as? [String: Any])?["startup"] as? [String: Any])
    let variants = try #require(startup["variants"] as? [[String: Any]])
    #expect(variants.map { $0["name"] as? String } == ["uninstrumented", "recorded", "other"])
    // The recorder's way gives the exact start; the other falls back on /proc.
    #expect(variants.map { $0["start_source"] as? String } == [nil, "spawn", "procStat"])
    let recorded = try #require(variants[1]["startup_ms"] as? [String: Any])
    #expect((recorded["median"] as? Double ?? 0) > 0)
    #expect(startup["runs"] as? Int == 30)
    let updated = try String(contentsOfFile: page, encoding: .utf8)
    #expect(!updated.contains("old figures"))
    #expect(updated.contains("| runtime, started as orderfile record does |"))
  }

  @Test("the bench package's unit tests pass (Markdown blocks, JSON round trips)")
  func packageUnitTests() throws {
    let result = try ProcessRunner.run(
      "/usr/bin/env", ["python3", "-B", "-m", "unittest", "discover", "-s", "orderfile_bench/tests", "-t", "."],
      currentDirectory: PackagePaths.root + "/Benchmarks")
    #expect(result.status == 0, "\(result.standardError.suffix(2000))")
    #expect(result.standardError.contains("\nOK"), "\(result.standardError.suffix(2000))")
  }

  @Test("symbolize, which the symbolization section times, names functions and lines like nm and DWARF")
  func symbolizeCommand() throws {
    let work = try TemporaryDirectory("orderfile-symbolize")
    defer { work.remove() }
    let source = work.file("prog.c")
    try """
    int helper(int x) { return x * 3 + 1; }

    int main(int argc, char **argv) {
      (void)argv;
      return helper(argc);
    }
    """.write(toFile: source, atomically: true, encoding: .utf8)
    let binary = work.file("prog")
    try runChecked(Toolchain.clang, ["-O0", "-g", source, "-o", binary])
    let symbols = try runChecked(Toolchain.nm, [binary]).standardOutput
    func address(of name: String) throws -> String {
      let line = try #require(symbols.split(separator: "\n").first { $0.hasSuffix(" T " + name) })
      return String(line.split(separator: " ")[0])
    }
    let helper = try address(of: "helper")
    let main = try address(of: "main")
    let input = work.file("addresses.txt")
    // Mixed spellings: bare hex, 0x, upper case, a blank line, trailing spaces.
    try "\(helper)\n\n0x\(main.uppercased())  \n0x1\n".write(toFile: input, atomically: true, encoding: .utf8)
    let result = try ProcessRunner.run(
      "/bin/sh",
      [
        "-c", "exec \"$0\" symbolize --binary \"$1\" --lines < \"$2\"",
        PackagePaths.orderfileExecutable, binary, input,
      ])
    #expect(result.status == 0, "\(result.standardError)")
    let rows = result.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(rows.count == 3)
    guard rows.count == 3 else { return }
    #expect(rows[0] == ["0x" + String(UInt64(helper, radix: 16)!, radix: 16), "helper", source + ":1"])
    #expect(rows[1][1] == "main")
    #expect(rows[1][2] == source + ":3")
    #expect(rows[2] == ["0x1", "??", "??"])

    try "0x10\nnot-an-address\n".write(toFile: input, atomically: true, encoding: .utf8)
    let bad = try ProcessRunner.run(
      "/bin/sh",
      [
        "-c", "exec \"$0\" symbolize --binary \"$1\" < \"$2\"",
        PackagePaths.orderfileExecutable, binary, input,
      ])
    #expect(bad.status == 65)
    #expect(bad.standardError.contains("line 2: 'not-an-address' is not a hexadecimal address"))
  }
}

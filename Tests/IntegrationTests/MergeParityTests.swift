import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The in-process recorder, which alone records data touches.
private let inProcessLibrary = PackagePaths.binaryDirectory + "/libOrderfileInProcess.so"

/// A program whose launch reads one table always and one more the argument names (`a` or
/// `b`); a fourth table is never read. Each table is 4 KiB, a page of its own; they are
/// declared in the reverse of the order the merge gives them, which lld keeps by default.
private let scenarioTables = """
  #include <stdio.h>

  const int table_unused[1024] = {7, 8};
  const int table_b[1024] = {5, 6};
  const int table_a[1024] = {3, 4};
  const int table_common[1024] = {1, 2};

  int main(int argc, char **argv) {
    /* argc - 2 is 0 with one argument: the compiler cannot fold the reads. */
    long sum = table_common[argc - 1];
    if (argc > 1 && argv[1][0] == 'a') sum += table_a[argc - 2];
    if (argc > 1 && argv[1][0] == 'b') sum += table_b[argc - 2];
    printf("%ld\\n", sum);
    return 0;
  }

  """

/// `source` compiled once, with a section per function and per data object, so that every
/// link names its object alike.
private func compile(_ source: String, in work: TemporaryDirectory) throws -> String {
  let object = work.file(PathName.split(source).base + ".o")
  try runChecked(Toolchain.clang, ["-O2", "-ffunction-sections", "-fdata-sections", "-c", source, "-o", object])
  return object
}

/// `object` linked by lld with a build-id and a link map.
private func linkWithMap(_ object: String, _ name: String, in work: TemporaryDirectory, _ extra: [String] = [])
  throws -> String
{
  let binary = work.file(name)
  try runChecked(
    Toolchain.clang,
    ["-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map", object, "-o", binary] + extra,
    environment: Toolchain.environment)
  return binary
}

/// Records one launch of `binary` with its data (`record --data`).
private func recordData(_ binary: String, _ arguments: [String] = [], to trace: String) throws {
  let recorded = try orderfile(["record", "-q", "--data", "-o", trace, "--", binary] + arguments)
  guard recorded.succeeded else { throw TestSupportError("record --data failed: \(recorded.standardError)") }
}

@Suite(
  "merge writes what generate writes: the launch's data, merged over the runs, in an lld script and by name",
  .enabled(
    if: FileManager.default.fileExists(atPath: inProcessLibrary), "needs Scripts/build-runtime's \(inProcessLibrary)"))
struct MergeParityTests {
  @Test(
    "one trace merged alone gives the file generate gives of it, data included, in each format that places data; verify checks only its functions"
  )
  func oneTraceAlike() throws {
    let work = try TemporaryDirectory("orderfile-merge-parity")
    defer { work.remove() }
    let object = try compile(PackagePaths.fixtures + "/launchdata/launchdata.c", in: work)
    let binary = try linkWithMap(object, "launchdata", in: work)
    let trace = work.file("launch.trace")
    try recordData(binary, to: trace)
    for (format, dataLine, linkFlag) in [
      ("lld-script", "(.rodata.launch_table_0)", "-Wl,--script="),
      ("lld", "launch_table_0", "-Wl,--symbol-ordering-file="),
    ] {
      let generated = work.file("generated." + format)
      let merged = work.file("merged." + format)
      let generate = try orderfile(["generate", trace, "--format", format, "-o", generated])
      #expect(generate.succeeded, "\(generate.standardError)")
      let merge = try orderfile(["merge", trace, "--format", format, "-o", merged])
      #expect(merge.succeeded, "\(merge.standardError)")
      let text = try FileReading.text(atPath: generated)
      #expect(text.split(separator: "\n").contains { $0.hasSuffix(dataLine) }, "\(format): \(text)")
      #expect(try FileReading.text(atPath: merged) == text, "\(format)")
      // The data's lines are no functions the relinked layout lacks (regenerate's min-in-order gate).
      let relinked = try linkWithMap(object, "relinked-" + format, in: work, [linkFlag + merged])
      let verified = try orderfile(["verify", "--binary", relinked, "--order", merged])
      #expect(verified.succeeded, "\(format): \(verified.standardOutput)")
    }
    // Without --format both choose the script, as the trace holds data and the map is there.
    let chosen = work.file("chosen.ld")
    let merge = try orderfile(["merge", trace, "-o", chosen])
    #expect(merge.standardError.contains("writing an lld script"), "\(merge.standardError)")
    #expect(try FileReading.text(atPath: chosen) == FileReading.text(atPath: work.file("generated.lld-script")))
  }

  @Test("two runs merged place the union of their data: what every run read first, then by the weight that read it")
  func unionOfRuns() throws {
    let work = try TemporaryDirectory("orderfile-merge-data")
    defer { work.remove() }
    let source = work.file("tables.c")
    try AtomicFile.write(scenarioTables, to: source)
    let object = try compile(source, in: work)
    let binary = try linkWithMap(object, "tables", in: work)
    let traceA = work.file("a.trace")
    let traceB = work.file("b.trace")
    try recordData(binary, ["a"], to: traceA)
    try recordData(binary, ["b"], to: traceB)
    // A run recorded without its data takes no part in the data's merge.
    let withoutData = work.file("plain.trace")
    #expect(try orderfile(["record", "-q", "-o", withoutData, "--", binary, "a"]).succeeded)

    func tables(_ inputs: [String]) throws -> [String] {
      let script = work.file("merged.ld")
      let merged = try orderfile(["merge"] + inputs + ["--format", "lld-script", "-o", script])
      #expect(merged.succeeded, "\(merged.standardError)")
      // Relinked with the script, .rodata opens with the tables the script names, in its order.
      let relinked = try linkWithMap(object, "relinked", in: work, ["-Wl,--script=" + script])
      let inputs = try inputSections(of: ".rodata", inMap: relinked + ".map")
      return inputs.filter { $0.hasPrefix(".rodata.table_") }.prefix(3).map { String($0.dropFirst(".rodata.".count)) }
    }
    // Equal weights: b, read by as much weight as a, follows it by name.
    #expect(try tables([traceA, traceB, withoutData]) == ["table_common", "table_a", "table_b"])
    // Given more weight, b goes before a; the table no run read stays behind them.
    #expect(try tables([traceA, traceB + ":3"]) == ["table_common", "table_b", "table_a"])
  }
}

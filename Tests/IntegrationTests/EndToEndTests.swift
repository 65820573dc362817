import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The launch order the fixture program must produce, by construction of its sources.
private let expectedExecutableOrder = [
  "main", "launch", "config_load", "parse_line", "config_validate", "store_open", "store_index", "checksum",
  "ui_layout", "ui_first_frame",
]
private let expectedLibraryOrder = ["plugin_register", "plugin_activate", "plugin_hash"]
private let executableSources = ["main.c", "config.c", "store.c", "ui.c"]

/// Runs the built `orderfile` tool.
func orderfile(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
  try ProcessRunner.run(PackagePaths.orderfileExecutable, arguments, environment: environment)
}

/// Text symbols of a binary in address order, as `nm -n` lists them (`nm`: another nm, e.g.
/// llvm-nm for an arm64 binary).
func textSymbolsInAddressOrder(_ binary: String, nm: String = Toolchain.nm) throws -> [String] {
  let output = try runChecked(nm, ["-n", binary]).standardOutput
  return output.split(separator: "\n").compactMap { line in
    let fields = line.split(separator: " ")
    guard fields.count == 3, fields[1] == "t" || fields[1] == "T" else { return nil }
    return String(fields[2])
  }
}

/// Whether `entries` sit side by side in `symbols`, in this order. Two local
/// functions that share a name both sit at their entry, so runs of one name count once.
func isContiguous(_ entries: [String], in symbols: [String]) -> Bool {
  var collapsed: [String] = []
  for name in symbols where collapsed.last != name { collapsed.append(name) }
  guard let start = collapsed.firstIndex(of: entries[0]), start + entries.count <= collapsed.count else {
    return false
  }
  return Array(collapsed[start..<(start + entries.count)]) == entries
}

@Suite("End to end: record, generate, relink with ld.lld, check with nm", .serialized)
struct EndToEndTests {
  @Test(arguments: ["clang", "gcc"])
  func wholePath(compiler: String) throws {
    let work = try TemporaryDirectory("orderfile-e2e-\(compiler)")
    let fixtures = PackagePaths.fixtures + "/integration"
    let cc = compiler == "clang" ? Toolchain.clang : Toolchain.gcc
    let runtimeEnvironment = [
      "ORDERFILE_RUNTIME_DIR": try RuntimeBuilder.libraryDirectory(),
      "ORDERFILE_INCLUDE_DIR": PackagePaths.runtimeInclude,
    ]

    // 1. The flags come from the tool itself, as a user's build would take them.
    let cflagsResult = try orderfile(
      ["flags", "--instrument", "--compiler", compiler, "--cflags"], environment: runtimeEnvironment)
    let ldflagsResult = try orderfile(
      ["flags", "--instrument", "--compiler", compiler, "--ldflags"], environment: runtimeEnvironment)
    #expect(cflagsResult.succeeded, "\(cflagsResult.standardError)")
    let cflags = cflagsResult.standardOutput.split(separator: " ").map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let ldflags = ldflagsResult.standardOutput.split(separator: " ").map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(cflags.contains(compiler == "clang" ? "-finstrument-functions-after-inlining" : "-finstrument-functions"))

    // 2. Instrumented build: a PIE executable over four files using a shared library.
    let instrumented = work.file("instrumented")
    try FileManager.default.createDirectory(atPath: instrumented, withIntermediateDirectories: true)
    let common = ["-O2", "-g", "-I", fixtures]
    try runChecked(
      cc,
      common + cflags + ["-fPIC", "-shared", fixtures + "/plugin.c", "-o", instrumented + "/libplugin.so"] + ldflags)
    try runChecked(
      cc,
      common + cflags + ["-fPIE", "-pie"] + executableSources.map { fixtures + "/" + $0 }
        + ["-o", instrumented + "/app", "-L", instrumented, "-lplugin", "-Wl,-rpath," + instrumented] + ldflags)

    // 3. Record one launch with the CLI.
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-o", trace, "--", instrumented + "/app", "7"])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput.contains("launch value"))
    #expect(recorded.standardError.contains("recorded"))

    // 4. One orderfile per module.
    let orders = work.file("orders")
    let generated = try orderfile(["generate", trace, "--output-dir", orders, "--json"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let appOrder = try FileReading.text(atPath: orders + "/app.order").split(separator: "\n").map(String.init)
    let libOrder = try FileReading.text(atPath: orders + "/libplugin.so.order").split(separator: "\n").map(String.init)
    #expect(appOrder == expectedExecutableOrder)
    #expect(libOrder == expectedLibraryOrder)
    // Functions first called after orderfile_startup_complete() are not part of the launch order.
    #expect(!appOrder.contains("store_compact_after_launch"))
    let report = try JSONSerialization.jsonObject(with: Data(generated.standardOutput.utf8)) as? [String: Any]
    let modules = report?["modules"] as? [[String: Any]] ?? []
    #expect(modules.count == 2)
    let appModule = modules.first { ($0["path"] as? String)?.hasSuffix("/app") == true }
    let ambiguous = appModule?["ambiguousNames"] as? [[String: Any]] ?? []
    #expect(ambiguous.map { $0["name"] as? String } == ["checksum"])

    // 5. Release build: uninstrumented, one section per function, relinked with ld.lld.
    let objects = work.file("objects")
    try FileManager.default.createDirectory(atPath: objects, withIntermediateDirectories: true)
    for source in executableSources + ["plugin.c"] {
      let pic = source == "plugin.c" ? "-fPIC" : "-fPIE"
      try runChecked(
        cc,
        [
          "-O2", "-ffunction-sections", pic, "-I", fixtures, "-c", fixtures + "/" + source, "-o",
          objects + "/" + source + ".o",
        ])
    }
    try linkRelease(objects: objects, into: work.file("default"))
    try linkRelease(
      objects: objects, into: work.file("ordered"), appOrder: orders + "/app.order",
      libOrder: orders + "/libplugin.so.order")

    // 6. nm: the launch functions are side by side, in recorded order, only in the ordered build.
    let defaultSymbols = try textSymbolsInAddressOrder(work.file("default") + "/app")
    let orderedSymbols = try textSymbolsInAddressOrder(work.file("ordered") + "/app")
    #expect(
      !isContiguous(expectedExecutableOrder, in: defaultSymbols),
      "the default layout is already ordered: the fixture proves nothing")
    #expect(isContiguous(expectedExecutableOrder, in: orderedSymbols), "\(orderedSymbols)")
    let orderedLibrary = try textSymbolsInAddressOrder(work.file("ordered") + "/libplugin.so")
    #expect(isContiguous(expectedLibraryOrder, in: orderedLibrary), "\(orderedLibrary)")
    // The relinked program still runs.
    let run = try runChecked(
      work.file("ordered") + "/app", ["7"], environment: ["LD_LIBRARY_PATH": work.file("ordered")])
    #expect(run.standardOutput == recorded.standardOutput)
  }
}

@Suite("End to end with gcc and gold: a section-ordering file, relinked with ld.gold, checked with nm")
struct GoldEndToEndTests {
  @Test("the launch functions sit side by side, main (in gcc's .text.startup.main) first")
  func gcc() throws {
    let fixture = try RecordedFixture(compiler: "gcc")
    let sections = fixture.work.file("app.sections")
    let generated = try orderfile(["generate", fixture.trace, "--format", "gold", "-o", sections])
    #expect(generated.succeeded, "\(generated.standardError)")
    #expect(try FileReading.text(atPath: sections).contains(".text.startup.main\n"))

    let defaultApp = try fixture.release("gold-default", compiler: "gcc", linker: .gold)
    let orderedApp = try fixture.release("gold-ordered", orderfile: sections, compiler: "gcc", linker: .gold)
    // gcc really puts main apart, so a bare .text.main line would not reach it.
    let mainSections = try runChecked(
      "/usr/bin/env", ["objdump", "-h", fixture.work.file("gold-ordered") + "/main.c.o"]
    ).standardOutput
    #expect(mainSections.contains(".text.startup.main"))
    #expect(!isContiguous(expectedExecutableOrder, in: try textSymbolsInAddressOrder(defaultApp)))
    let orderedSymbols = try textSymbolsInAddressOrder(orderedApp)
    #expect(isContiguous(expectedExecutableOrder, in: orderedSymbols), "\(orderedSymbols)")

    let verified = try orderfile(["verify", "--binary", orderedApp, "--order", sections])
    #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
    #expect(
      verified.standardOutput.contains(
        "in order, adjacent: \(expectedExecutableOrder.count) of \(expectedExecutableOrder.count)"))
    #expect(verified.standardOutput.contains("linked by GNU gold"), "\(verified.standardOutput)")
  }
}

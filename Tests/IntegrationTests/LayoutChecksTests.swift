import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The integration fixture recorded once and its objects compiled for release, both with
/// and without -ffunction-sections.
struct RecordedFixture {
  let work: TemporaryDirectory
  let trace: String
  let appOrder: String
  var fixtures: String { Self.fixtures }
  static let fixtures = PackagePaths.fixtures + "/integration"

  init(compiler: String = "clang") throws {
    let fixtures = Self.fixtures
    let work = try TemporaryDirectory("orderfile-layout")
    self.work = work
    let cc = compiler == "clang" ? Toolchain.clang : Toolchain.gcc
    let runtime = try RuntimeBuilder.libraryDirectory()
    let instrument = compiler == "clang" ? "-finstrument-functions-after-inlining" : "-finstrument-functions"
    let flags = [
      "-O2", "-g", instrument, "-DORDERFILE_INSTRUMENTED", "-I", fixtures, "-I", PackagePaths.runtimeInclude,
    ]
    let runtimeLink = ["-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime]
    let bin = work.file("instrumented")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    try runChecked(cc, flags + ["-fPIC", "-shared", fixtures + "/plugin.c", "-o", bin + "/libplugin.so"] + runtimeLink)
    try runChecked(
      cc,
      flags + ["-fPIE", "-pie"] + ["main.c", "config.c", "store.c", "ui.c"].map { fixtures + "/" + $0 }
        + ["-o", bin + "/app", "-L", bin, "-lplugin", "-Wl,-rpath," + bin] + runtimeLink)
    let trace = work.file("launch.trace")
    self.trace = trace
    let recorded = try orderfile(["record", "-o", trace, "--", bin + "/app"])
    guard recorded.succeeded else { throw TestSupportError("record failed: \(recorded.standardError)") }
    let appOrder = work.file("app.order")
    self.appOrder = appOrder
    let generated = try orderfile(["generate", trace, "-o", appOrder])
    guard generated.succeeded else { throw TestSupportError("generate failed: \(generated.standardError)") }
  }

  /// The linker of a release build, and how it takes an orderfile.
  enum Linker {
    /// ld.lld through clang, `--symbol-ordering-file`.
    case lld
    /// ld.gold through gcc, `--section-ordering-file`.
    case gold
  }

  /// Links the fixture's executable for release; returns its path.
  func release(
    _ name: String, functionSections: Bool = true, orderfile: String? = nil, compiler: String = "clang",
    linker: Linker = .lld
  ) throws -> String {
    let directory = work.file(name)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let cc = compiler == "clang" ? Toolchain.clang : Toolchain.gcc
    var objects: [String] = []
    for source in ["main.c", "config.c", "store.c", "ui.c", "plugin.c"] {
      let object = directory + "/" + source + ".o"
      let pic = source == "plugin.c" ? "-fPIC" : "-fPIE"
      try runChecked(
        cc,
        ["-O2", "-g", pic, "-I", fixtures, "-c", fixtures + "/" + source, "-o", object]
          + (functionSections ? ["-ffunction-sections"] : []))
      objects.append(object)
    }
    let (driver, fuse, ordering) =
      linker == .lld
      ? (Toolchain.clang, "-fuse-ld=lld", "-Wl,--symbol-ordering-file=")
      : (Toolchain.gcc, "-fuse-ld=gold", "-Wl,--section-ordering-file=")
    try runChecked(driver, [fuse, "-shared", objects[4], "-o", directory + "/libplugin.so"])
    try runChecked(
      driver,
      [fuse, "-pie"] + objects.prefix(4) + ["-o", directory + "/app", "-L", directory, "-lplugin"]
        + (orderfile.map { [ordering + $0] } ?? []))
    return directory + "/app"
  }
}

/// The JSON object a command printed.
func json(_ result: ProcessResult) throws -> [String: Any] {
  guard let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] else {
    throw TestSupportError("not a JSON object: \(result.standardOutput) \(result.standardError)")
  }
  return object
}

func pages(_ estimate: [String: Any], _ pageSize: Int, _ key: String) -> Int? {
  let rows = estimate["pages"] as? [[String: Any]] ?? []
  return rows.first { $0["pageSize"] as? Int == pageSize }?[key] as? Int
}

@Suite("Estimate and verify on real relinked binaries", .serialized)
struct LayoutChecksTests {
  @Test("the simulated ordered layout matches the relinked binary's real layout to within one page")
  func estimateMatchesRelink() throws {
    let fixture = try RecordedFixture()
    let defaultApp = try fixture.release("default")
    let orderedApp = try fixture.release("ordered", orderfile: fixture.appOrder)
    let predicted = try json(
      orderfile(["estimate", "--trace", fixture.trace, "--binary", defaultApp, "--order", fixture.appOrder, "--json"]))
    let measured = try json(orderfile(["estimate", "--trace", fixture.trace, "--binary", orderedApp, "--json"]))
    #expect(predicted["missingFunctions"] as? [String] == [])
    for pageSize in [4096, 16384] {
      let simulated = try #require(pages(predicted, pageSize, "ordered"))
      let real = try #require(pages(measured, pageSize, "current"))
      #expect(abs(simulated - real) <= 1, "page size \(pageSize): simulated \(simulated), relinked \(real)")
      let lowerBound = try #require(pages(predicted, pageSize, "lowerBound"))
      #expect(real >= lowerBound)
    }
  }

  @Test("verify passes on a correct relink")
  func verifyPasses() throws {
    let fixture = try RecordedFixture()
    let app = try fixture.release("ordered", orderfile: fixture.appOrder)
    let result = try orderfile(["verify", "--binary", app, "--order", fixture.appOrder])
    #expect(result.status == 0, "\(result.standardOutput)")
    #expect(result.standardOutput.contains("PASS"))
  }

  @Test("verify names -ffunction-sections when the release build lacks it")
  func verifyWithoutFunctionSections() throws {
    let fixture = try RecordedFixture()
    let app = try fixture.release("no-sections", functionSections: false, orderfile: fixture.appOrder)
    let result = try orderfile(["verify", "--binary", app, "--order", fixture.appOrder, "--json"])
    #expect(result.status == 1)
    let report = try json(result)
    #expect(report["cause"] as? String == "noFunctionSections")
    #expect((report["diagnosis"] as? String)?.contains("-ffunction-sections") == true)
  }

  @Test("verify tells a binary never linked with the order from one without function sections, by gcc's producer")
  func verifyNotLinkedWithOrder() throws {
    let fixture = try RecordedFixture()
    // gcc records its options in DW_AT_producer: with -ffunction-sections and no
    // orderfile, the linker could have moved every entry.
    let unordered = try fixture.release("gcc-sections", compiler: "gcc")
    let result = try orderfile(["verify", "--binary", unordered, "--order", fixture.appOrder, "--json"])
    #expect(result.status == 1)
    let report = try json(result)
    #expect(report["cause"] as? String == "notLinkedWithOrder", "\(report["diagnosis"] ?? "")")
    #expect((report["diagnosis"] as? String)?.contains("not linked with this orderfile") == true)
    // Without the flag, gcc's producer says so.
    let whole = try fixture.release(
      "gcc-no-sections", functionSections: false, orderfile: fixture.appOrder, compiler: "gcc")
    let missing = try json(try orderfile(["verify", "--binary", whole, "--order", fixture.appOrder, "--json"]))
    #expect(missing["cause"] as? String == "noFunctionSections", "\(missing["diagnosis"] ?? "")")
    #expect((missing["diagnosis"] as? String)?.contains("without -ffunction-sections") == true)
  }

  @Test("verify names the format when a gold orderfile was given to lld")
  func verifyGoldFormatWithLLD() throws {
    let fixture = try RecordedFixture()
    let goldOrder = fixture.work.file("app.sections")
    let generated = try orderfile(["generate", fixture.trace, "-o", goldOrder, "--format", "gold"])
    #expect(generated.succeeded)
    let app = try fixture.release("gold-to-lld", orderfile: goldOrder)
    let result = try orderfile(["verify", "--binary", app, "--order", goldOrder])
    #expect(result.status == 1)
    #expect(result.standardOutput.contains("gold's section format"))
    #expect(result.standardOutput.contains("--format lld"))
  }

  @Test("verify names renamed symbols when the release build calls its functions differently")
  func verifyRenamed() throws {
    let fixture = try RecordedFixture()
    let renamed = fixture.work.file("renamed.order")
    let names = try FileReading.text(atPath: fixture.appOrder).split(separator: "\n").map { "\($0).lto_priv.0" }
    try AtomicFile.write(names.joined(separator: "\n") + "\n", to: renamed)
    let app = try fixture.release("ordered", orderfile: fixture.appOrder)
    let result = try orderfile(["verify", "--binary", app, "--order", renamed, "--json"])
    #expect(result.status == 1)
    #expect(try json(result)["cause"] as? String == "renamedSymbols")
  }
}

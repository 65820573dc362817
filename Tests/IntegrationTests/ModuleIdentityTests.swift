import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A versioned library and the paths that lead to it, as a build and an install leave them:
/// `libcore.so` (the link for `-lcore`) → `libcore.so.0` (the SONAME link the loader opens)
/// → `libcore.so.0.0.0` (the file the kernel maps); the same file copied to another folder;
/// a rebuild of it installed elsewhere (another build-id, the same names); another library.
/// Its traces name the library by the SONAME link (as the in-process recorder did) or by
/// the real file (as the tracer does), whichever recorder wrote them.
struct VersionedLibrary {
  let work: TemporaryDirectory
  var build: String { work.file("build") }
  var realFile: String { build + "/libcore.so.0.0.0" }
  var sonameLink: String { build + "/libcore.so.0" }
  var developmentLink: String { build + "/libcore.so" }
  /// The very file, copied to another folder: the same build-id.
  var copy: String { work.file("copy/libcore.so.0.0.0") }
  /// A rebuild installed elsewhere (another rpath, another build-id), through its SONAME link.
  var rebuiltLink: String { work.file("install/lib/libcore.so.0") }
  /// Another library altogether.
  var other: String { work.file("other/libother.so.1") }
  var app: String { build + "/app" }
  var object: String { work.file("core.o") }

  /// How the library is linked, with lld: its SONAME and a build-id.
  static let link = [
    "-shared", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-soname,libcore.so.0",
  ]

  /// How a trace names the library.
  enum Naming: String, CaseIterable, Sendable, CustomStringConvertible {
    case sonameLink = "the SONAME link"
    case realFile = "the real file"
    var description: String { rawValue }
  }

  /// Every path that leads to the library or to a copy or rebuild of it.
  var spellings: [String] { [sonameLink, developmentLink, realFile, copy, rebuiltLink] }

  static let core = """
    __attribute__((noinline)) int core_parse(int x) { return x * 3 + 1; }
    __attribute__((noinline)) int core_draw(int x) { return x ^ 5; }
    int core_unused(int x) { return x - 7; }
    int core_start(int x) { return core_draw(core_parse(x)); }

    """

  init() throws {
    work = try TemporaryDirectory("orderfile-identity")
    for folder in ["build", "copy", "install/lib", "other"] {
      try FileManager.default.createDirectory(atPath: work.file(folder), withIntermediateDirectories: true)
    }
    try AtomicFile.write(Self.core, to: work.file("core.c"))
    try AtomicFile.write("int other_work(int x) { return x + 11; }\n", to: work.file("other.c"))
    try AtomicFile.write(
      "int core_start(int);\nint main(int argc, char **argv) { return core_start(argc) == 12345; }\n",
      to: work.file("main.c"))
    // One object, linked again by the tests that relink: an lld script names its sections by it.
    try runChecked(
      Toolchain.clang, ["-O2", "-g", "-fPIC", "-ffunction-sections", "-c", work.file("core.c"), "-o", object])
    try runChecked(Toolchain.clang, Self.link + ["-Wl,-Map=" + realFile + ".map", object, "-o", realFile])
    try FileManager.default.createSymbolicLink(atPath: sonameLink, withDestinationPath: "libcore.so.0.0.0")
    try FileManager.default.createSymbolicLink(atPath: developmentLink, withDestinationPath: "libcore.so.0")
    try FileManager.default.copyItem(atPath: realFile, toPath: copy)
    try runChecked(
      Toolchain.clang,
      Self.link + ["-Wl,-rpath,/usr/local/lib", object, "-o", work.file("install/lib/libcore.so.0.0.0")])
    try FileManager.default.createSymbolicLink(atPath: rebuiltLink, withDestinationPath: "libcore.so.0.0.0")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-fPIC", "-shared", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-soname,libother.so.1",
        work.file("other.c"), "-o", other,
      ])
    try runChecked(
      Toolchain.clang,
      ["-O2", "-g", work.file("main.c"), "-L", build, "-lcore", "-Wl,-rpath," + build, "-o", app])
  }

  /// A trace of the app's launch whose library module has the path `naming` says, written
  /// from a recording whatever name its recorder gave.
  func trace(naming: Naming) throws -> String {
    let recorded = work.file("recorded.trace")
    if !FileManager.default.fileExists(atPath: recorded) {
      let result = try orderfile(["record", "-q", "-o", recorded, "--", app])
      #expect(result.status == 0, "\(result.standardError)")
    }
    var trace = try TraceReader.read(path: recorded)
    let library = try #require(trace.modules.firstIndex { PathName.split($0.path).base.hasPrefix("libcore.so") })
    trace.modules[library].path = naming == .sonameLink ? sonameLink : realFile
    let path = work.file("\(naming == .sonameLink ? "soname" : "real").trace")
    try AtomicFile.write(TraceEncoder.encode(trace), to: path)
    return path
  }

  func remove() { work.remove() }
}

@Suite("one module, whatever path names it: the SONAME link, a link, the real file, a copy")
struct ModuleIdentityTests {
  @Test(
    "generate --module and --release-binary take every path of the library", arguments: VersionedLibrary.Naming.allCases
  )
  func generate(naming: VersionedLibrary.Naming) throws {
    let library = try VersionedLibrary()
    defer { library.remove() }
    let trace = try library.trace(naming: naming)
    for spelling in library.spellings {
      let order = library.work.file("core.order")
      let result = try orderfile([
        "generate", trace, "--module", spelling, "--release-binary", spelling, "-o", order,
      ])
      #expect(result.status == 0, "\(spelling): \(result.standardError)")
      let entries = try FileReading.text(atPath: order).split(separator: "\n")
      #expect(entries.contains("core_start") && entries.contains("core_parse"), "\(spelling): \(entries)")
      #expect(!entries.contains("main"), "\(spelling): the executable's order, not the library's: \(entries)")
    }
  }

  @Test("estimate --binary finds the library's module by any of its paths", arguments: VersionedLibrary.Naming.allCases)
  func estimate(naming: VersionedLibrary.Naming) throws {
    let library = try VersionedLibrary()
    defer { library.remove() }
    let trace = try library.trace(naming: naming)
    for spelling in library.spellings {
      let result = try orderfile(["estimate", "--trace", trace, "--binary", spelling, "--json"])
      #expect(result.status == 0, "\(spelling): \(result.standardError)")
      let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
      // The build that ran is counted by address; a rebuild of it by name.
      let sameBuild = spelling != library.rebuiltLink
      #expect(report["countedByAddress"] as? Bool == sameBuild, "\(spelling): \(report["countedByAddress"] ?? "none")")
      #expect((report["missingFunctions"] as? [String])?.isEmpty == true, "\(spelling): \(report)")
    }
    let order = library.work.file("core.order")
    try AtomicFile.write("core_start\n", to: order)
    let diff = try orderfile(["diff", order, order, "--trace", trace, "--binary", library.rebuiltLink])
    #expect(diff.status == 0, "\(diff.standardError)")
  }

  @Test("merge takes a run that named the SONAME link and one that named the real file as one module")
  func merge() throws {
    let library = try VersionedLibrary()
    defer { library.remove() }
    let traces = try VersionedLibrary.Naming.allCases.map(library.trace(naming:))
    let orders = library.work.file("orders")
    let result = try orderfile(["merge"] + traces + ["--output-dir", orders])
    #expect(result.status == 0, "\(result.standardError)")
    let written = try FileManager.default.contentsOfDirectory(atPath: orders).sorted()
    // Named as the first run in canonical order named it.
    #expect(written.count == 2 && written.first == "app.order" && written[1].hasPrefix("libcore.so.0"), "\(written)")
  }

  @Test("the link map beside the real file serves the SONAME link: generate --format lld-script, then verify")
  func linkMap() throws {
    let library = try VersionedLibrary()
    defer { library.remove() }
    let trace = try library.trace(naming: .sonameLink)
    let script = library.work.file("core.ld")
    let generate = try orderfile([
      "generate", trace, "--module", "libcore.so.0", "--format", "lld-script", "-o", script,
    ])
    #expect(generate.status == 0, "\(generate.standardError)")
    let relinked = library.work.file("relinked")
    try FileManager.default.createDirectory(atPath: relinked, withIntermediateDirectories: true)
    try runChecked(
      Toolchain.clang,
      VersionedLibrary.link + [
        "-Wl,-T," + script, "-Wl,-Map=" + relinked + "/libcore.so.0.0.0.map", library.object, "-o",
        relinked + "/libcore.so.0.0.0",
      ])
    try FileManager.default.createSymbolicLink(
      atPath: relinked + "/libcore.so.0", withDestinationPath: "libcore.so.0.0.0")
    for spelling in [relinked + "/libcore.so.0", relinked + "/libcore.so.0.0.0"] {
      let result = try orderfile(["verify", "--binary", spelling, "--order", script])
      #expect(result.status == 0, "\(spelling): \(result.standardOutput) \(result.standardError)")
    }
  }

  @Test("another library is refused in one line naming it and the modules recorded")
  func otherLibrary() throws {
    let library = try VersionedLibrary()
    defer { library.remove() }
    let trace = try library.trace(naming: .sonameLink)
    let generate = try orderfile([
      "generate", trace, "--module", "libcore.so.0", "--release-binary", library.other, "-o",
      library.work.file("core.order"),
    ])
    #expect(generate.status == 65)
    #expect(
      generate.standardError.hasPrefix("orderfile: error: \(library.other) (")
        && generate.standardError.contains("recorded: ") && generate.standardError.contains(library.sonameLink)
        && generate.standardError.split(separator: "\n").count == 1, "\(generate.standardError)")
    #expect(!FileManager.default.fileExists(atPath: library.work.file("core.order")))
    let estimate = try orderfile(["estimate", "--trace", trace, "--binary", library.other])
    #expect(estimate.status == 65)
    #expect(
      estimate.standardError.hasPrefix("orderfile: error: \(library.other): shares no build-id")
        && estimate.standardError.split(separator: "\n").count == 1, "\(estimate.standardError)")
  }
}

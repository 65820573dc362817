import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A C++ program and its own shared library, instrumented with gcc's -finstrument-functions
/// (which instruments before inlining) and built again for release, optimized, with one
/// section per function.
private struct GCCInstrumentedProgram {
  let work: TemporaryDirectory
  let trace: String
  var instrumented: String { work.file("instrumented") }
  var release: String { work.file("release") }
  static let sources = PackagePaths.fixtures + "/cxx"

  init() throws {
    work = try TemporaryDirectory("orderfile-release-match")
    let runtime = try RuntimeBuilder.libraryDirectory()
    let gxx = ProcessRunner.resolve("g++")
    let instrumented = work.file("instrumented")
    let release = work.file("release")
    for directory in [instrumented, release] {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    let runtimeLink = [
      "-L", runtime, "-Wl,--no-as-needed", "-lOrderfileRuntime", "-Wl,--as-needed", "-Wl,-rpath," + runtime,
    ]
    for (directory, flags, link) in [
      (instrumented, ["-finstrument-functions"], runtimeLink), (release, ["-ffunction-sections"], []),
    ] {
      try runChecked(
        gxx,
        ["-O2", "-g", "-fPIC", "-shared", Self.sources + "/shapes.cpp", "-o", directory + "/libshapes.so"] + flags
          + link)
      try runChecked(
        gxx,
        [
          "-O2", "-g", "-I", Self.sources, Self.sources + "/main.cpp", "-o", directory + "/cxxapp", "-L", directory,
          "-lshapes",
          "-Wl,-rpath," + directory,
        ] + flags + link)
    }
    trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-o", trace, "--", instrumented + "/cxxapp"])
    guard recorded.succeeded else { throw TestSupportError("record failed: \(recorded.standardError)") }
  }

  var releaseBinaryArguments: [String] {
    ["--release-binary", release + "/cxxapp", "--release-binary", release + "/libshapes.so"]
  }

  /// Relinks the release objects with lld and `orders` (a directory of generated orderfiles);
  /// returns lld's symbol-ordering warnings and the executable's path.
  func relink(_ name: String, orders: String) throws -> (warnings: [String], app: String) {
    let directory = work.file(name)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let gxx = ProcessRunner.resolve("g++")
    let library = try runChecked(
      gxx,
      [
        "-O2", "-g", "-fPIC", "-ffunction-sections", "-shared", Self.sources + "/shapes.cpp", "-o",
        directory + "/libshapes.so",
        "-fuse-ld=lld", "-Wl,--symbol-ordering-file=" + orders + "/libshapes.so.order",
      ])
    let app = try runChecked(
      gxx,
      [
        "-O2", "-g", "-ffunction-sections", "-I", Self.sources, Self.sources + "/main.cpp", "-o", directory + "/cxxapp",
        "-L", directory, "-lshapes", "-Wl,-rpath," + directory, "-fuse-ld=lld",
        "-Wl,--symbol-ordering-file=" + orders + "/cxxapp.order",
      ])
    let warnings = (library.standardError + app.standardError).split(separator: "\n").map(String.init)
      .filter { $0.contains("symbol ordering file") }
    return (warnings, directory + "/cxxapp")
  }
}

@Suite("Match rate against the release binary (gcc, C++)", .serialized)
struct ReleaseMatchTests {
  @Test("generate checks entries against the release binaries: inlined ones are named and left out, lld warns of none")
  func generateAgainstRelease() throws {
    let program = try GCCInstrumentedProgram()
    let orders = program.work.file("orders")
    let result = try orderfile(
      ["generate", program.trace, "--output-dir", orders, "--json"] + program.releaseBinaryArguments)
    #expect(result.succeeded, "\(result.standardError)")
    let report = try json(result)
    let modules = try #require(report["modules"] as? [[String: Any]])
    let app = try #require(modules.first { ($0["path"] as? String)?.hasSuffix("/cxxapp") == true })
    let release = try #require(app["release"] as? [String: Any])
    let inlined = try #require(release["inlined"] as? [String])
    // gcc instruments std:: templates and small members the -O2 build inlines.
    #expect(inlined.count > 10)
    #expect(inlined.contains { $0.hasPrefix("_ZNSt") })
    let recorded = try #require(app["recordedFunctions"] as? Int)
    let present = try #require(release["present"] as? Int)
    #expect(try #require(app["matchRate"] as? Double) == Double(present) / Double(recorded))
    #expect(try #require(report["matchRate"] as? Double) < 0.5)

    // gcc records libstdc++'s inlined extern-template members inside libstdc++.so: the build
    // does not produce that library, so it gets no orderfile, and the report says why.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: orders).sorted() == ["cxxapp.order", "libshapes.so.order"])
    let skipped = try #require(report["skippedModules"] as? [[String: Any]])
    #expect(
      skipped.contains {
        ($0["path"] as? String)?.contains("libstdc++") == true && $0["reason"] as? String == "systemLibrary"
      })

    // Every entry names a function the release binary has, so lld finds them all.
    let entries = try FileReading.text(atPath: orders + "/cxxapp.order").split(separator: "\n").map(String.init)
    #expect(entries.contains("main"))
    #expect(!entries.contains { inlined.contains($0) })
    let relinked = try program.relink("ordered", orders: orders)
    #expect(relinked.warnings.isEmpty, "\(relinked.warnings.prefix(5))")
    let verified = try orderfile(["verify", "--binary", relinked.app, "--order", orders + "/cxxapp.order"])
    #expect(verified.succeeded, "\(verified.standardOutput)")
  }

  @Test("--min-match gates on the release match rate, and the text names what the release build inlined")
  func minMatchGatesOnRelease() throws {
    let program = try GCCInstrumentedProgram()
    let against = try orderfile(
      ["generate", program.trace, "--output-dir", program.work.file("gated"), "--min-match", "0.9"]
        + program.releaseBinaryArguments)
    #expect(against.status == 1)
    #expect(against.standardError.contains("(against the release binary) is below --min-match"))
    #expect(against.standardOutput.contains("inlined in the release build (left out of the orderfile)"))
    // Measured against the instrumented binary, the same trace looks complete.
    let instrumented = try orderfile([
      "generate", program.trace, "--output-dir", program.work.file("all"), "--min-match", "0.9",
    ])
    #expect(instrumented.succeeded)
    // merge gates the same way.
    let merged = try orderfile(
      ["merge", program.trace, program.trace + ":2", "--output-dir", program.work.file("merged"), "--min-match", "0.9"]
        + program.releaseBinaryArguments)
    #expect(merged.status == 1)
    #expect(merged.standardOutput.contains("inlined in the release build"))
  }

  @Test("verify names inlining in the release build when the orderfile came from the instrumented binary")
  func verifyNamesInlining() throws {
    let program = try GCCInstrumentedProgram()
    let orders = program.work.file("instrumented-orders")
    let generated = try orderfile(["generate", program.trace, "--output-dir", orders])
    #expect(generated.succeeded)
    let relinked = try program.relink("ordered", orders: orders)
    #expect(!relinked.warnings.isEmpty)
    let verified = try orderfile(["verify", "--binary", relinked.app, "--order", orders + "/cxxapp.order", "--json"])
    #expect(verified.status == 1)
    let report = try json(verified)
    #expect(report["cause"] as? String == "inlinedInRelease")
    #expect((report["diagnosis"] as? String)?.contains("--release-binary " + relinked.app) == true)
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// Builds the integration fixture for release, as it ships: one section per function, linked
/// with ld.lld, an orderfile per module when given. Returns the link's standard error, where
/// lld warns about orderfile entries it cannot place.
@discardableResult
func linkRelease(
  objects: String, into directory: String, appOrder: String? = nil, libOrder: String? = nil
) throws -> String {
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  let ordering = { (file: String?) in file.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? [] }
  let library = try runChecked(
    Toolchain.clang,
    ["-fuse-ld=lld", "-shared", objects + "/plugin.c.o", "-o", directory + "/libplugin.so"] + ordering(libOrder))
  let executable = try runChecked(
    Toolchain.clang,
    ["-fuse-ld=lld", "-pie"] + ["main.c", "config.c", "store.c", "ui.c"].map { objects + "/" + $0 + ".o" }
      + ["-o", directory + "/app", "-L", directory, "-lplugin", "-Wl,-rpath," + directory] + ordering(appOrder))
  return library.standardError + executable.standardError
}

@Suite("End to end without a rebuild: record the release binary, generate, relink with ld.lld, verify", .serialized)
struct NoRebuildEndToEndTests {
  @Test(arguments: ["clang", "gcc"], ["in-process", "tracer"])
  func releaseBinary(compiler: String, recorder: String) throws {
    let work = try TemporaryDirectory("orderfile-norebuild-\(compiler)-\(recorder)")
    let fixtures = PackagePaths.fixtures + "/integration"
    let cc = compiler == "clang" ? Toolchain.clang : Toolchain.gcc
    // 1. The release build with the flags `orderfile flags` prints for it, nothing
    //    instrumented: the compiler inlines as it will for the shipped binary.
    let printed = try orderfile(["flags", "--cflags"])
    #expect(printed.succeeded, "\(printed.standardError)")
    let releaseFlags = printed.standardOutput.split(separator: " ").map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(releaseFlags == ["-ffunction-sections", "-fdata-sections"])
    let objects = work.file("objects")
    try FileManager.default.createDirectory(atPath: objects, withIntermediateDirectories: true)
    for source in ["main.c", "config.c", "store.c", "ui.c", "plugin.c"] {
      let pic = source == "plugin.c" ? "-fPIC" : "-fPIE"
      try runChecked(
        cc,
        ["-O2", "-g"] + releaseFlags + [
          pic, "-I", fixtures, "-c", fixtures + "/" + source,
          "-o", objects + "/" + source + ".o",
        ])
    }
    let release = work.file("release")
    try linkRelease(objects: objects, into: release)

    // 2. Record that very binary; the launch ends where the instrumented build would call
    //    orderfile_startup_complete().
    let trace = work.file("launch.trace")
    let recorded = try orderfile(
      [
        "record", "--recorder", recorder, "-o", trace, "--until", "store_compact_after_launch", "--wait-for-exit", "--",
        release + "/app", "7",
      ])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == (try runChecked(release + "/app", ["7"]).standardOutput))
    #expect(recorded.standardError.contains("without a rebuild"), "\(recorded.standardError)")

    // 3. One orderfile per module; every entry exists in the binary that will be linked.
    let orders = work.file("orders")
    let generated = try orderfile(["generate", trace, "--output-dir", orders, "--min-match", "1.0"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let appOrder = try FileReading.text(atPath: orders + "/app.order").split(separator: "\n").map(String.init)
    let libOrder = try FileReading.text(atPath: orders + "/libplugin.so.order").split(separator: "\n").map(String.init)
    // The fixture's own launch functions, in the order its sources call them, whatever the
    // compiler inlined: what is left of them in the release binary is what is recorded.
    let releaseFunctions = Set(try textSymbolsInAddressOrder(release + "/app"))
    let expected = [
      "main", "launch", "config_load", "parse_line", "config_validate", "store_open", "store_index",
      "checksum", "ui_layout", "ui_first_frame", "store_compact_after_launch",
    ].filter(releaseFunctions.contains)
    #expect(appOrder.filter(expected.contains) == expected, "\(appOrder)")
    #expect(expected.count >= 4, "the compiler inlined nearly everything: \(expected)")
    #expect(appOrder.first == "_start", "code before main is recorded too: \(appOrder)")
    #expect(libOrder.contains("plugin_register"), "\(libOrder)")
    #expect(!FileManager.default.fileExists(atPath: orders + "/libc.so.6.order"))

    // 4. Relink with the orders: lld places every entry, and nm shows them in order.
    let ordered = work.file("ordered")
    let warnings = try linkRelease(
      objects: objects, into: ordered, appOrder: orders + "/app.order", libOrder: orders + "/libplugin.so.order")
    #expect(!warnings.contains("warning"), "\(warnings)")
    #expect(isContiguous(appOrder, in: try textSymbolsInAddressOrder(ordered + "/app")))
    #expect(
      !isContiguous(appOrder, in: try textSymbolsInAddressOrder(release + "/app")),
      "the default layout is already in launch order: the test proves nothing")
    for (binary, order) in [(ordered + "/app", "app.order"), (ordered + "/libplugin.so", "libplugin.so.order")] {
      let verified = try orderfile(["verify", "--binary", binary, "--order", orders + "/" + order])
      #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
      #expect(verified.standardOutput.contains("PASS"))
    }
  }

  @Test("the bundled example is ordered from its release binary alone: fewer launch pages, verify passes")
  func example() throws {
    let work = try TemporaryDirectory("orderfile-norebuild-example")
    let example = PackagePaths.root + "/Examples/launchpad"
    let make = ProcessRunner.resolve("make")
    func build(_ name: String, orders: String? = nil) throws -> ProcessResult {
      var arguments = ["-s", "-C", example, "release", "CC=clang", "BUILD_DIR=" + work.file(name)]
      if let orders {
        arguments += ["ORDER_FILE=\(orders)/launchpad.order", "LIB_ORDER_FILE=\(orders)/libwidgets.so.order"]
      }
      return try runChecked(make, arguments)
    }
    _ = try build("default")
    let program = work.file("default") + "/launchpad"
    let trace = work.file("launch.trace")
    // Left to run to its end, so that its whole output can be compared with a plain run's.
    let recorded = try orderfile([
      "record", "-q", "--until", "launch_ready", "--wait-for-exit", "-o", trace, "--", program,
    ])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == (try runChecked(program, []).standardOutput))
    #expect(recorded.standardOutput.contains("startup complete"))

    let orders = work.file("orders")
    let generated = try orderfile(["generate", trace, "--output-dir", orders, "--min-match", "1.0"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let launch = try FileReading.text(atPath: orders + "/launchpad.order").split(separator: "\n")
    #expect(launch.contains("launch_ready") && launch.contains("main"))
    #expect(try FileReading.text(atPath: orders + "/libwidgets.so.order").split(separator: "\n").count > 10)

    let relinked = try build("ordered", orders: orders)
    #expect(!relinked.standardError.contains("warning"), "\(relinked.standardError)")
    for (binary, order) in [("launchpad", "launchpad.order"), ("libwidgets.so", "libwidgets.so.order")] {
      let verified = try orderfile([
        "verify", "--binary", work.file("ordered") + "/" + binary, "--order", orders + "/" + order,
      ])
      #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
    }
    // The relinked release binary touches fewer pages at launch than the default one.
    let before = try json(orderfile(["estimate", "--trace", trace, "--binary", program, "--json"]))
    let after = try json(
      orderfile(["estimate", "--trace", trace, "--binary", work.file("ordered") + "/launchpad", "--json"]))
    for pageSize in [4096, 16384] {
      let now = try #require(pages(before, pageSize, "current"))
      let ordered = try #require(pages(after, pageSize, "current"))
      let bound = try #require(pages(after, pageSize, "lowerBound"))
      #expect(ordered < now, "page size \(pageSize): \(now) before, \(ordered) after")
      #expect(ordered <= bound + 1, "page size \(pageSize): \(ordered) pages against a bound of \(bound)")
    }
  }

  @Test("a stripped executable: record says which file has no symbols and how to keep them, and fails")
  func strippedExecutable() throws {
    let work = try TemporaryDirectory("orderfile-norebuild-stripped")
    let binary = work.file("stripped")
    try runChecked(Toolchain.clang, ["-O2", "-s", PackagePaths.fixtures + "/breakpoints/sequence.c", "-o", binary])
    let recorded = try orderfile(["record", "--no-rebuild", "-o", work.file("launch.trace"), "--", binary])
    #expect(!recorded.succeeded)
    let lines = recorded.standardError.split(separator: "\n")
    // One line: what failed, which file has no symbols, and how to keep them.
    #expect(lines.count == 1, "\(lines)")
    #expect(
      lines.contains {
        $0.hasPrefix("orderfile: error:") && $0.contains("no function of the program was recorded")
          && $0.contains("\(binary) has no symbol table") && $0.contains("--strip-debug")
      }, "\(lines)")
    #expect(recorded.status == 65)
    #expect(!FileManager.default.fileExists(atPath: work.file("launch.trace")))
  }
}

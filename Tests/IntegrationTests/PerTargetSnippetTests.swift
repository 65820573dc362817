import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The launch orders the tests give the fixture's two modules: each reverses part of its
/// source order, so an order not applied shows in `nm -n`.
private let applicationOrder = ["app_second", "main", "app_first"]
private let libraryOrder = ["widget_d", "widget_b", "widget_c"]

private let hasMeson = ProcessRunner.resolve("meson").hasPrefix("/") && ProcessRunner.resolve("ninja").hasPrefix("/")
private let noMeson: Comment =
  "meson or ninja is not installed (Scripts/setup-deps installs meson and ninja-build): skipped"
private let hasLibtool = ProcessRunner.resolve("libtool").hasPrefix("/")
private let noLibtool: Comment = "libtool is not installed (Scripts/setup-deps installs libtool-bin): skipped"

/// Tests/Fixtures/pertarget (a C executable and a shared library of its own) for one build
/// system, copied into a temporary folder with the snippet `orderfile flags --build-system`
/// prints pasted over its "# orderfile snippet" line, built with swift's clang and ld.lld.
private struct PerTargetProject {
  /// The build, and so the snippet: libtool's is Make's.
  enum System: String { case make, libtool, cmake, meson }

  let system: System
  let work: TemporaryDirectory
  var source: String { work.file("src") }
  /// Where the binaries land: Make builds in the source folder, libtool in its .libs.
  var build: String {
    switch system {
    case .make: return source
    case .libtool: return source + "/.libs"
    case .cmake, .meson: return work.file("build")
    }
  }
  var library: String { build + (system == .libtool ? "/libwidgets.so.0.0.0" : "/libwidgets.so") }
  var application: String { build + "/app" }
  /// What runs the application: libtool's wrapper script finds the uninstalled library.
  var launcher: String { system == .libtool ? source + "/app" : application }
  var buildSystem: String { system == .libtool ? "make" : system.rawValue }
  var buildFile: String {
    source + "/" + [
      "make": "Makefile", "libtool": "Makefile.libtool", "cmake": "CMakeLists.txt", "meson": "meson.build",
    ][
      system.rawValue]!
  }

  init(_ system: System) throws {
    self.system = system
    work = try TemporaryDirectory("orderfile-per-target-\(system.rawValue)")
    try FileManager.default.createDirectory(atPath: work.file("orders"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: PackagePaths.fixtures + "/pertarget", toPath: source)
    try order(application: applicationOrder, library: libraryOrder)
  }

  /// Writes the two orderfiles, under the names `generate --output-dir` gives them.
  func order(application: [String], library: [String]) throws {
    try AtomicFile.write(application.joined(separator: "\n") + "\n", to: work.file("orders/app.order"))
    try AtomicFile.write(library.joined(separator: "\n") + "\n", to: work.file("orders/libwidgets.so.order"))
  }

  /// Prints the snippet for `release` (paths relative to the work folder, as a user types
  /// them) and pastes it into the project's build file.
  func paste(release: [String]) throws {
    let printed = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["flags", "--build-system", buildSystem, "--release"] + release,
      currentDirectory: work.path)
    guard printed.succeeded else { throw TestSupportError("flags failed: \(printed.standardError)") }
    let file = buildFile
    let text = try FileReading.text(atPath: file)
    guard text.contains("# orderfile snippet\n") else { throw TestSupportError("\(file) has no snippet line") }
    try AtomicFile.write(text.replacingOccurrences(of: "# orderfile snippet\n", with: printed.standardOutput), to: file)
  }

  /// Configures (once) and builds; returns everything the build printed.
  func compile() throws -> String {
    let compiler = ["CC": Toolchain.clang]
    var results: [ProcessResult] = []
    switch system {
    case .make, .libtool:
      results.append(
        try runUnblocked(
          "make", ["-C", source, "-f", (buildFile as NSString).lastPathComponent, "CC=" + Toolchain.clang]))
    case .cmake:
      if !FileManager.default.fileExists(atPath: build) {
        results.append(
          try runUnblocked(
            "cmake",
            ["-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_COMPILER=" + Toolchain.clang]))
      }
      results.append(try runUnblocked("cmake", ["--build", build, "--", "VERBOSE=1"]))
    case .meson:
      if !FileManager.default.fileExists(atPath: build) {
        results.append(try runUnblocked("meson", ["setup", build, source], environment: compiler))
      }
      results.append(try runUnblocked("ninja", ["-C", build, "-v"]))
    }
    return results.map { $0.standardOutput + $0.standardError }.joined()
  }
}

/// lld's warnings in a build's output: an orderfile given to a link that lacks its
/// functions warns of each one.
private func linkerWarnings(_ output: String) -> [Substring] {
  output.split(separator: "\n").filter { $0.contains("ld.lld: warning") || $0.contains("symbol ordering file") }
}

/// Whether `binary`'s text holds `order` side by side in this order, ahead of `after`.
private func applies(_ order: [String], to binary: String, before after: String? = nil) throws -> Bool {
  let symbols = try textSymbolsInAddressOrder(binary)
  guard isContiguous(order, in: symbols), let first = symbols.firstIndex(of: order[0]) else { return false }
  return after.map { symbols.firstIndex(of: $0).map { first < $0 } ?? false } ?? true
}

@Suite("Per-target build snippets: each module's orderfile to its own link", .serialized)
struct PerTargetSnippetTests {
  /// Builds `project` with both orderfiles as pairs and checks both links, then (where the
  /// build system relinks on a changed orderfile) a new library order. `library` is the
  /// library's module name.
  fileprivate func checkPairs(_ project: PerTargetProject, library: String = "libwidgets.so", relinksOnChange: Bool)
    throws
  {
    try project.paste(release: ["app=orders/app.order", library + "=orders/libwidgets.so.order"])
    let output = try project.compile()
    #expect(linkerWarnings(output).isEmpty, "\(linkerWarnings(output).prefix(5))")
    #expect(try applies(libraryOrder, to: project.library, before: "widget_a"), "\(project.library)")
    #expect(try applies(applicationOrder, to: project.application), "\(project.application)")
    #expect(try runChecked(project.launcher, []).succeeded)
    guard relinksOnChange else { return }

    try project.order(application: applicationOrder, library: ["widget_c", "widget_a"])
    let relinked = try project.compile()
    #expect(linkerWarnings(relinked).isEmpty, "\(linkerWarnings(relinked).prefix(5))")
    #expect(try applies(["widget_c", "widget_a"], to: project.library, before: "widget_b"), "relinked on the change")
  }

  @Test("Make: target-specific variables; the executable's link warns of nothing")
  func make() throws {
    try checkPairs(try PerTargetProject(.make), relinksOnChange: false)
  }

  @Test(
    "Make, one orderfile alone: it goes to the module its file name names, not to the others (the library built on the executable's behalf neither)",
    arguments: ["libwidgets.so", "app"])
  func makeSingleOrderfile(module: String) throws {
    let project = try PerTargetProject(.make)
    try project.paste(release: ["orders/\(module).order"])
    let output = try project.compile()
    #expect(linkerWarnings(output).isEmpty, "\(linkerWarnings(output).prefix(5))")
    if module == "app" {
      #expect(try applies(applicationOrder, to: project.application))
    } else {
      #expect(try applies(libraryOrder, to: project.library, before: "widget_a"))
    }
  }

  @Test(
    "Make with libtool: the flags survive libtool's link, the library's order goes to its .la target",
    .enabled(if: hasLibtool, noLibtool))
  func libtool() throws {
    // The name the loader opens the library by, as a recording names it.
    try checkPairs(try PerTargetProject(.libtool), library: "libwidgets.so.0", relinksOnChange: false)
  }

  @Test("CMake: target_link_options and LINK_DEPENDS per target; a changed orderfile relinks")
  func cmake() throws {
    try checkPairs(try PerTargetProject(.cmake), relinksOnChange: true)
  }

  @Test("Meson: link_args and link_depends per target; a changed orderfile relinks", .enabled(if: hasMeson, noMeson))
  func meson() throws {
    try checkPairs(try PerTargetProject(.meson), relinksOnChange: true)
  }
}

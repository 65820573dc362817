import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The C++ fixture's CMake project (an executable and a shared library of its own, linked
/// with -Wl,--as-needed) built three times with the snippets `orderfile flags
/// --build-system cmake` prints: instrumented, release, and release with the orderfiles.
private struct CMakeProject {
  let work: TemporaryDirectory
  let compiler: String
  static let source = PackagePaths.fixtures + "/cxx"

  init(compiler: String) throws {
    self.compiler = compiler
    work = try TemporaryDirectory("orderfile-cmake")
  }

  var environment: [String: String] {
    var environment = ["CXX": compiler]
    // The tool finds the runtime beside itself; tests build it elsewhere.
    if let runtime = try? RuntimeBuilder.libraryDirectory() { environment["ORDERFILE_RUNTIME_DIR"] = runtime }
    environment["ORDERFILE_INCLUDE_DIR"] = PackagePaths.runtimeInclude
    return environment
  }

  /// Prints the snippet for `flags`, then configures and builds into `name`; returns the
  /// build directory and everything the build printed.
  func build(_ name: String, flags: [String], defines: [String] = []) throws -> (directory: String, output: String) {
    let snippet = try orderfile(["flags", "--build-system", "cmake"] + flags, environment: environment)
    guard snippet.succeeded else { throw TestSupportError("flags failed: \(snippet.standardError)") }
    let snippetFile = work.file(name + ".cmake")
    try AtomicFile.write(snippet.standardOutput, to: snippetFile)
    let directory = work.file(name)
    try cmake(
      [
        "-S", Self.source, "-B", directory, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_CXX_COMPILER=" + compiler,
        "-DORDERFILE_SNIPPET=" + snippetFile,
      ] + defines)
    let built = try cmake(["--build", directory, "--", "VERBOSE=1"])
    return (directory, built.standardOutput + built.standardError)
  }
}

@discardableResult
private func cmake(_ arguments: [String]) throws -> ProcessResult { try runUnblocked("cmake", arguments) }

@Suite("A CMake C++ project with the printed snippets, gcc and clang", .serialized)
struct CMakeProjectTests {
  static let compilers = [ProcessRunner.resolve("g++"), Toolchain.llvmBin + "/clang++"]

  @Test("record, generate against the release build, relink with lld without warnings, verify", arguments: compilers)
  func wholeWorkflow(compiler: String) throws {
    let project = try CMakeProject(compiler: compiler)
    let instrumented = try project.build("instrumented", flags: ["--instrument"])
    #expect(
      instrumented.output.contains(
        compiler.contains("clang") ? "-finstrument-functions-after-inlining" : "-finstrument-functions "))
    let release = try project.build("release", flags: [])

    let trace = project.work.file("launch.trace")
    let recorded = try orderfile(["record", "--instrumented", "-o", trace, "--", instrumented.directory + "/cxxapp"])
    #expect(recorded.succeeded, "\(recorded.standardError)")

    let orders = project.work.file("orders")
    let generated = try orderfile(
      [
        "generate", trace, "--output-dir", orders, "--json", "--release-binary", release.directory + "/cxxapp",
        "--release-binary", release.directory + "/libshapes.so",
      ])
    #expect(generated.succeeded, "\(generated.standardError)")
    let report = try json(generated)
    let modules = try #require(report["modules"] as? [[String: Any]])
    for name in ["cxxapp", "libshapes.so"] {
      let module = try #require(modules.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true })
      #expect(module["release"] is [String: Any], "\(name): matched against the release binary")
      let initializers = module["staticInitializers"] as? [String] ?? []
      #expect(initializers.contains { $0.hasPrefix("_GLOBAL__sub_I_") }, "\(name): \(initializers)")
    }

    let ordered = try project.build(
      "ordered", flags: ["--release", orders + "/cxxapp.order"], defines: ["-DORDERFILE_DIR=" + orders])
    let warnings = ordered.output.split(separator: "\n").filter { $0.contains("symbol ordering file") }
    #expect(warnings.isEmpty, "\(warnings.prefix(5))")
    for (binary, order) in [("cxxapp", "cxxapp.order"), ("libshapes.so", "libshapes.so.order")] {
      let verified = try orderfile([
        "verify", "--binary", ordered.directory + "/" + binary, "--order", orders + "/" + order,
      ])
      #expect(verified.succeeded, "\(binary): \(verified.standardOutput)")
      // clang records none of them; they come first all the same, before main's code.
      let text = try textFunctions(ordered.directory + "/" + binary)
      // gcc splits a cold part off an initializer (_GLOBAL__sub_I_main.cold): it stays out.
      let initializers = text.filter { $0.hasPrefix("_GLOBAL__sub_I_") && !$0.hasSuffix(".cold") }
      #expect(
        !initializers.isEmpty && text.prefix(initializers.count).elementsEqual(initializers),
        "\(binary): \(text.prefix(5))")
    }
  }
}

@Suite("The build snippets of Docs/BuildWiring.md")
struct BuildWiringSnippetTests {
  /// What `orderfile flags` prints in `directory` for `arguments`, as the page shows it: the
  /// runtime installed under /opt/orderfile, the project at /src. Comment lines are left out.
  func printed(_ arguments: [String], in directory: String, compiler: String) throws -> [String] {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["flags"] + arguments,
      environment: [
        "CXX": compiler, "ORDERFILE_RUNTIME_DIR": runtime, "ORDERFILE_INCLUDE_DIR": PackagePaths.runtimeInclude,
      ], currentDirectory: directory)
    guard result.succeeded else { throw TestSupportError("flags \(arguments) failed: \(result.standardError)") }
    return result.standardOutput
      .replacingOccurrences(of: runtime, with: "/opt/orderfile/lib")
      .replacingOccurrences(of: PackagePaths.runtimeInclude, with: "/opt/orderfile/include")
      .replacingOccurrences(of: directory, with: "/src")
      .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
  }

  @Test("every line the CMake and Make snippets print is in Docs/BuildWiring.md")
  func pageShowsPrintedSnippets() throws {
    let work = try TemporaryDirectory("orderfile-build-wiring")
    let project = work.file("src")
    try FileManager.default.createDirectory(atPath: project + "/orders", withIntermediateDirectories: true)
    for file in ["orders/app.order", "orders/libui.so.order", "app.order", "libui.so.order"] {
      try AtomicFile.write("main\n", to: project + "/" + file)
    }
    let page = try FileReading.text(atPath: PackagePaths.root + "/Docs/BuildWiring.md")
    let snippets = [
      try printed(["--build-system", "cmake", "--instrument"], in: project, compiler: "clang++"),
      try printed(
        ["--build-system", "cmake", "--release", "app=orders/app.order", "libui.so=orders/libui.so.order"],
        in: project, compiler: "clang++"),
      // The Make snippet names the orderfiles relative to the Makefile.
      try printed(
        ["--build-system", "make", "--release", "app=app.order", "libui.so=libui.so.order"], in: project,
        compiler: "clang++"
      ).map { $0.replacingOccurrences(of: "/src/", with: "$(CURDIR)/") },
    ]
    for line in snippets.joined() {
      let shown = page.contains(line)
      #expect(shown, "Docs/BuildWiring.md lacks the printed line: \(line)")
    }
    // The instrumented Make lines run the tool; what they run prints the snippet's flags.
    let make = try printed(["--build-system", "make", "--instrument"], in: project, compiler: "clang++")
    let cflags = try printed(["--instrument", "--cflags"], in: project, compiler: "clang++")
    let ldflags = try printed(["--instrument", "--ldflags"], in: project, compiler: "clang++")
    #expect(
      make.contains("CFLAGS   += " + cflags.joined()) && make.contains("CXXFLAGS += " + cflags.joined()), "\(make)")
    #expect(make.contains("LDFLAGS  += " + ldflags.joined()), "\(make)")
  }
}

/// The sized functions of a binary's text, by address, from nm.
private func textFunctions(_ binary: String) throws -> [String] {
  let listed = try runChecked(Toolchain.nm, ["-S", "--defined-only", "--numeric-sort", binary])
  return listed.standardOutput.split(separator: "\n").compactMap { line in
    let fields = line.split(separator: " ")
    guard fields.count == 4, "tT".contains(fields[2]), UInt64(fields[1], radix: 16) ?? 0 > 0 else { return nil }
    return String(fields[3])
  }
}

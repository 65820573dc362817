import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The build tools of the two examples, found where their installers put them.
enum ExampleTools {
  /// `swift`, which runs these tests, unless only its test runner is installed.
  static let swift: String? = {
    let onPath = ProcessRunner.resolve("swift")
    if onPath.hasPrefix("/") { return onPath }
    let beside = Toolchain.llvmBin + "/swift"
    return FileManager.default.isExecutableFile(atPath: beside) ? beside : nil
  }()

  /// `cargo` on PATH, else where rustup installs it ($CARGO_HOME/bin, ~/.cargo/bin).
  static let cargo: String? = RustToolchains.program("cargo")
}

/// How one example is built: its release build, with or without an orderfile, and its
/// instrumented build. The flags are the recipes of Docs/BuildWiring.md.
protocol ExampleProject {
  /// The executable's file name.
  var executable: String { get }
  /// Builds the release binary, with `orderfile` applied when given; returns its path and
  /// the build's output (where the linker's warnings appear).
  func release(orderfile: String?) throws -> (binary: String, output: String)
  /// Builds the instrumented binary, linked with the runtime in `runtime`.
  func instrumented(runtime: String) throws -> String
  /// A name that only a demangler writes, of a function the launch runs.
  var demangledLaunchFunction: String { get }
  /// The linkage name of that function.
  var mangledLaunchFunction: String { get }
}

/// Examples/swift-app through `swift build`. The release and instrumented builds keep
/// scratch paths of their own, so applying an order only links again.
struct SwiftExample: ExampleProject {
  let swift: String
  let work: TemporaryDirectory
  var executable: String { "swiftapp" }
  var demangledLaunchFunction: String { "SwiftAppCore.settingsLoad(inout SwiftAppCore.Context) -> ()" }
  var mangledLaunchFunction: String { "$s12SwiftAppCore12settingsLoadyyAA7ContextVzF" }

  /// The flags come from `orderfile flags --language swift`, as a user's build takes them.
  static func flags(_ build: [String], runtime: String? = nil) throws -> [String] {
    try languageArguments("swift", build, runtime: runtime)
  }

  private func build(scratch: String, _ flags: [String]) throws -> (binary: String, output: String) {
    let arguments =
      [
        "build", "-c", "release", "--package-path", PackagePaths.root + "/Examples/swift-app",
        "--scratch-path", work.file(scratch),
      ] + flags
    let result = try runChecked(swift, arguments)
    let bin = try runChecked(swift, arguments + ["--show-bin-path"]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return (bin + "/" + executable, result.standardOutput + result.standardError)
  }

  func release(orderfile: String?) throws -> (binary: String, output: String) {
    try build(scratch: ".build-release", Self.flags(orderfile.map { ["--release", $0] } ?? []))
  }

  func instrumented(runtime: String) throws -> String {
    try build(scratch: ".build-instrumented", Self.flags(["--instrument"], runtime: runtime)).binary
  }
}

/// Examples/rust-app through `cargo build --offline`. Flags go in CARGO_ENCODED_RUSTFLAGS,
/// which overrides any RUSTFLAGS of the environment and keeps paths with spaces whole.
struct RustExample: ExampleProject {
  let cargo: String
  let work: TemporaryDirectory
  var executable: String { "rustapp" }
  var demangledLaunchFunction: String { "rustapp::handlers::settings_load" }
  var mangledLaunchFunction: String { "_ZN7rustapp8handlers13settings_load" }

  /// The flags come from `orderfile flags --language rust`, as a user's build takes them.
  static func flags(_ build: [String], runtime: String? = nil) throws -> [String] {
    try languageArguments("rust", build, runtime: runtime)
  }

  /// Builds into `target` (a folder of `work`) with `flags` as RUSTFLAGS and `--target`
  /// when given: the printed instrumented build names the host. With `finalCrate`
  /// arguments, as the ordered build prints them, `cargo rustc` passes them to the
  /// binary's crate alone.
  private func build(target: String, _ flags: [String], triple: String? = nil, finalCrate: [String] = []) throws -> (
    binary: String, output: String
  ) {
    let cargoBin = (cargo as NSString).deletingLastPathComponent
    let path =
      cargoBin + ":" + Toolchain.llvmBin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    let result = try runChecked(
      cargo,
      [
        finalCrate.isEmpty ? "build" : "rustc", "--release", "--offline", "--locked", "--manifest-path",
        PackagePaths.root + "/Examples/rust-app/Cargo.toml",
        "--target-dir", work.file(target),
      ] + (triple.map { ["--target", $0] } ?? [])
        + (finalCrate.isEmpty ? [] : ["--bin", executable, "--"] + finalCrate),
      environment: ["CARGO_ENCODED_RUSTFLAGS": flags.joined(separator: "\u{1F}"), "PATH": path])
    let folder = work.file(target) + (triple.map { "/" + $0 } ?? "")
    return (folder + "/release/" + executable, result.standardOutput + result.standardError)
  }

  func release(orderfile: String?) throws -> (binary: String, output: String) {
    let printed = try printedBuild("rust", orderfile.map { ["--release", $0] } ?? [], runtime: nil)
    return try build(
      target: "target-release", printed.arguments, triple: Self.triple(printed), finalCrate: printed.finalCrateArguments
    )
  }

  func instrumented(runtime: String) throws -> String {
    let printed = try printedBuild("rust", ["--instrument"], runtime: runtime)
    #expect(printed.cargoArguments.contains("--target-dir"), "\(printed.cargoArguments)")
    return try build(target: "target-instrumented", printed.arguments, triple: Self.triple(printed)).binary
  }

  /// The `--target` every printed Rust build names: RUSTFLAGS then stay off the build
  /// script, which the example has.
  static func triple(_ printed: PrintedBuild) throws -> String {
    let index = try #require(printed.cargoArguments.firstIndex(of: "--target"), "\(printed.cargoArguments)")
    return printed.cargoArguments[index + 1]
  }
}

/// `orderfile flags --language LANGUAGE BUILD... --json`: the build's arguments.
private func languageArguments(_ language: String, _ build: [String], runtime: String?) throws -> [String] {
  try printedBuild(language, build, runtime: runtime).arguments
}

/// What `orderfile flags --language LANGUAGE BUILD... --json` prints.
struct PrintedBuild: Decodable {
  var arguments: [String]
  /// cargo's own arguments: `--target HOST --target-dir …` for the instrumented build.
  var cargoArguments: [String]
  /// The ordered build's arguments of the final crate alone (`cargo rustc … -- …`).
  var finalCrateArguments: [String]
}

func printedBuild(_ language: String, _ build: [String], runtime: String?) throws -> PrintedBuild {
  let result = try orderfile(
    ["flags", "--language", language, "--json"] + build,
    environment: runtime.map { ["ORDERFILE_RUNTIME_DIR": $0] } ?? [:])
  guard result.succeeded else { throw TestSupportError("orderfile flags failed: \(result.standardError)") }
  return try JSONDecoder().decode(PrintedBuild.self, from: Data(result.standardOutput.utf8))
}

/// Whether `entries` lie in `binary` in this order, by the addresses `nm` gives them.
func liesInOrder(_ entries: [String], in binary: String) throws -> Bool {
  var addresses: [String: UInt64] = [:]
  for line in try runChecked(Toolchain.nm, ["--defined-only", binary]).standardOutput.split(separator: "\n") {
    let fields = line.split(separator: " ")
    guard fields.count == 3, let address = UInt64(fields[0], radix: 16) else { continue }
    if addresses[String(fields[2])] == nil { addresses[String(fields[2])] = address }
  }
  let placed = entries.compactMap { addresses[$0] }
  return placed.count == entries.count && zip(placed, placed.dropFirst()).allSatisfy { $0 < $1 }
}

@Suite("Swift and Rust examples end to end: build, record both ways, generate, relink, verify")
struct SwiftRustEndToEndTests {
  @Test("swift build: the SwiftPM example", .enabled(if: ExampleTools.swift != nil, "swift is not installed"))
  func swiftPackage() throws {
    let work = try TemporaryDirectory("orderfile-swift-example")
    try endToEnd(SwiftExample(swift: try #require(ExampleTools.swift), work: work), work: work)
    // The package's C target runs at launch: its function is ordered with the Swift code,
    // which takes -Xcc -ffunction-sections (endToEnd checks that it lies in order).
    let entries = try FileReading.text(atPath: work.file("release.order")).split(separator: "\n").map(String.init)
    let seed = try #require(entries.firstIndex(of: "swiftapp_seed"), "\(entries.prefix(8))")
    // Moved as a function of its own, not with the rest of its object file: the entry
    // before it in the order is right before it in the binary.
    let symbols = try textSymbolsInAddressOrder(work.file("ordered-release/swiftapp"))
    let placed = try #require(symbols.firstIndex(of: "swiftapp_seed"))
    #expect(
      seed > 0 && placed > 0 && symbols[placed - 1] == entries[seed - 1], "\(symbols[max(placed - 2, 0)...placed])")
  }

  @Test(
    "cargo build: the Rust example",
    .enabled(if: ExampleTools.cargo != nil, "cargo is not installed (not on PATH nor in ~/.cargo/bin)"))
  func cargoCrate() throws {
    let work = try TemporaryDirectory("orderfile-rust-example")
    let example = RustExample(cargo: try #require(ExampleTools.cargo), work: work)
    let noRebuild = try endToEnd(example, work: work)

    // --until takes a Rust path without the crate: the window ends at the last launch handler.
    let trace = work.file("until.trace")
    let recorded = try orderfile(["record", "-q", "--until", "handlers::editor_apply", "-o", trace, "--", noRebuild])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(!recorded.standardError.contains("named no function"), "\(recorded.standardError)")
    let order = work.file("until.order")
    #expect(try orderfile(["generate", trace, "-o", order]).succeeded)
    let entries = try FileReading.text(atPath: order).split(separator: "\n")
    #expect(entries.last?.hasPrefix("_ZN7rustapp8handlers12editor_apply") == true, "\(entries.suffix(3))")

    // The build script ran during the instrumented build: uninstrumented, it recorded
    // nothing and wrote no trace into the source tree.
    let scripts = try FileManager.default.subpathsOfDirectory(atPath: work.file("target-instrumented"))
      .filter { $0.hasSuffix("/build-script-build") }
    #expect(!scripts.isEmpty, "the example's build script was not built")
    for script in scripts {
      let undefined = try runChecked(Toolchain.nm, ["-u", work.file("target-instrumented/" + script)]).standardOutput
      #expect(!undefined.contains("__sanitizer_cov"), "\(script) is instrumented")
    }
    let source = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Examples/rust-app")
    #expect(!source.contains { $0.hasSuffix(".trace") }, "\(source)")

    // Only the orderfile's contents change, under the same name: cargo relinks.
    let sameName = work.file("release.order")
    let reversed = Array(try FileReading.text(atPath: sameName).split(separator: "\n").map(String.init).reversed())
    try AtomicFile.write(reversed.joined(separator: "\n") + "\n", to: sameName)
    let relinked = try example.release(orderfile: sameName)
    #expect(try liesInOrder(reversed, in: relinked.binary), "cargo kept the old order")
    // A name lld cannot find is a warning the build shows.
    try AtomicFile.write((reversed + ["no_such_function_anywhere"]).joined(separator: "\n") + "\n", to: sameName)
    let warned = try example.release(orderfile: sameName)
    #expect(warned.output.contains("no_such_function_anywhere"), "\(warned.output)")
  }

  @Test(
    "the examples' generated handlers are what Examples/tools/gen-handlers.py writes",
    arguments: [
      ("swift", "Examples/swift-app/Sources/SwiftAppCore/Handlers.swift"),
      ("rust", "Examples/rust-app/src/handlers.rs"),
    ])
  func generatedHandlers(language: String, file: String) throws {
    let work = try TemporaryDirectory("orderfile-handlers")
    try runChecked(
      ProcessRunner.resolve("python3"),
      [PackagePaths.root + "/Examples/tools/gen-handlers.py", language, work.file("handlers")])
    #expect(
      try FileReading.text(atPath: work.file("handlers"))
        == (try FileReading.text(atPath: PackagePaths.root + "/" + file)))
  }

  /// Builds the example for release, records it without a rebuild and from an instrumented
  /// build, and relinks the release build with each order. Returns the default release binary.
  @discardableResult
  private func endToEnd(_ example: some ExampleProject, work: TemporaryDirectory) throws -> String {
    let name = example.executable
    // 1. The release build as it ships, kept aside: the ordered builds link over it.
    let built = try example.release(orderfile: nil)
    try FileManager.default.createDirectory(atPath: work.file("default"), withIntermediateDirectories: true)
    let program = work.file("default/" + name)
    try FileManager.default.copyItem(atPath: built.binary, toPath: program)
    let output = try runChecked(program, []).standardOutput

    // 2. Record that very binary; reports show demangled names, orderfiles linkage names.
    let trace = work.file("release.trace")
    let recorded = try orderfile(["record", "--no-rebuild", "-o", trace, "--", program])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == output)
    let order = work.file("release.order")
    let generated = try orderfile(["generate", trace, "-o", order, "--min-match", "1.0", "--list"])
    #expect(generated.succeeded, "\(generated.standardOutput)\(generated.standardError)")
    #expect(generated.standardOutput.contains(example.demangledLaunchFunction), "\(generated.standardOutput)")
    let entries = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    #expect(entries.contains { $0.hasPrefix(example.mangledLaunchFunction) }, "\(entries)")
    #expect(!entries.contains(example.demangledLaunchFunction))
    let firstCalls = try json(orderfile(["report", trace, "--json"]))["firstCalls"] as? [[String: Any]] ?? []
    let reported = firstCalls.filter { $0["module"] as? Int == 0 }.compactMap { $0["name"] as? String }
    #expect(reported.contains(example.demangledLaunchFunction), "\(reported)")
    #expect(!reported.contains { ["_Z", "_R", "$s"].contains(where: $0.hasPrefix) }, "\(reported)")
    // The report finds main, which SwiftPM makes an alias of <Module>_main.
    let report = try orderfile(["report", trace])
    #expect(report.standardOutput.contains("first hook → main"), "\(report.standardOutput)")

    // 3. Relink with the order: no linker warning, every entry in place, fewer launch pages.
    try relinkAndVerify(example, order: order, as: "ordered-release", default: program, trace: trace, work: work)

    // 4. The instrumented build records through the SanitizerCoverage hooks; its names are
    //    the release build's, and it orders the release build as well.
    let instrumented = try example.instrumented(runtime: try RuntimeBuilder.libraryDirectory())
    let instrumentedTrace = work.file("instrumented.trace")
    let run = try orderfile(["record", "-o", instrumentedTrace, "--", instrumented])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(run.standardOutput == output)
    #expect(
      !run.standardError.contains("without a rebuild") && !run.standardError.contains("warning"),
      "\(run.standardError)")
    let instrumentedOrder = work.file("instrumented.order")
    // Against the release binary: a Rust build with other settings (the instrumented one's
    // --target) hashes its symbols differently, and generate enters the release build's names.
    let fromInstrumented = try orderfile(
      ["generate", instrumentedTrace, "-o", instrumentedOrder, "--min-match", "1.0", "--release-binary", program])
    #expect(fromInstrumented.succeeded, "\(fromInstrumented.standardOutput)\(fromInstrumented.standardError)")
    let instrumentedEntries = try FileReading.text(atPath: instrumentedOrder).split(separator: "\n").map(String.init)
    #expect(instrumentedEntries.count > 36, "the 36 launch handlers and what calls them")
    #expect(
      Set(instrumentedEntries).isSubset(of: Set(entries)),
      "names the release build does not record: \(Set(instrumentedEntries).subtracting(entries).sorted())")
    try relinkAndVerify(
      example, order: instrumentedOrder, as: "ordered-instrumented", default: program, trace: nil, work: work)
    return program
  }

  /// Relinks the release build with `order`, then checks that the linker placed every entry
  /// in order (and that the default layout did not), that verify passes, and with a trace,
  /// that the launch touches fewer pages, within one of the lower bound.
  private func relinkAndVerify(
    _ example: some ExampleProject, order: String, as label: String, default program: String, trace: String?,
    work: TemporaryDirectory
  ) throws {
    let relinked = try example.release(orderfile: order)
    // cargo shows lld's lines (-W linker-messages) under one "warning: linker stderr".
    let warnings = relinked.output.split(separator: "\n").filter { $0.contains("warning") || $0.contains("lld:") }
    #expect(warnings.isEmpty, "\(warnings.prefix(5))")
    try FileManager.default.createDirectory(atPath: work.file(label), withIntermediateDirectories: true)
    let ordered = work.file(label + "/" + example.executable)
    try FileManager.default.copyItem(atPath: relinked.binary, toPath: ordered)
    let entries = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    #expect(try liesInOrder(entries, in: ordered), "\(label): the linker did not apply the order")
    #expect(
      !(try liesInOrder(entries, in: program)), "the default layout is already in launch order: the test proves nothing"
    )
    let verified = try orderfile(["verify", "--binary", ordered, "--order", order])
    #expect(
      verified.succeeded && verified.standardOutput.contains("PASS"),
      "\(verified.standardOutput)\(verified.standardError)")
    guard let trace else { return }
    let before = try json(orderfile(["estimate", "--trace", trace, "--binary", program, "--json"]))
    let after = try json(orderfile(["estimate", "--trace", trace, "--binary", ordered, "--json"]))
    for pageSize in [4096, 16384] {
      let now = try #require(pages(before, pageSize, "current"))
      let placed = try #require(pages(after, pageSize, "current"))
      let bound = try #require(pages(after, pageSize, "lowerBound"))
      #expect(placed < now, "page size \(pageSize): \(now) before, \(placed) after")
      #expect(placed <= bound + 1, "page size \(pageSize): \(placed) pages against a bound of \(bound)")
    }
  }
}

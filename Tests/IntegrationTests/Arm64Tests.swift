import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The launch order of the integration fixture (Tests/Fixtures/integration), as on x86-64:
/// recorded instrumented here, in-process in Arm64InProcessTests.
let arm64LaunchOrder = [
  "main", "launch", "config_load", "parse_line", "config_validate", "store_open", "store_index", "checksum",
  "ui_layout", "ui_first_frame",
]
let arm64LibraryOrder = ["plugin_register", "plugin_activate", "plugin_hash"]
private let launchOrder = arm64LaunchOrder
private let libraryOrder = arm64LibraryOrder

/// A program cross-built for arm64 twice: instrumented and linked with the cross-built runtime,
/// recorded under qemu-user (ptrace does not work there: the runtime records), and built again
/// for release with one section per function, the binary the trace is read against.
private struct Arm64Program {
  let work: TemporaryDirectory
  let compiler: String
  private(set) var trace = ""
  private(set) var recordedOutput = ""
  let executable: String
  let library: String
  let sources: [String]
  let librarySources: [String]
  let includeDirectory: String

  var instrumented: String { work.file("instrumented") }

  /// Builds `sources` into `executable` over `library` (built from `librarySources`), records
  /// one launch with `arguments` and builds the release objects.
  init(
    compiler: String, fixture: String, sources: [String], executable: String, librarySources: [String], library: String,
    flags: [String] = [], arguments: [String] = []
  ) throws {
    work = try TemporaryDirectory("orderfile-arm64-\(compiler)")
    self.compiler = compiler
    self.sources = sources
    self.librarySources = librarySources
    self.executable = executable
    self.library = library
    includeDirectory = PackagePaths.fixtures + "/" + fixture
    let runtime = try Arm64.runtimeDirectory(compiler: compiler.hasPrefix("clang") ? "clang" : "gcc")
    let instrument = compiler.hasPrefix("clang") ? "-finstrument-functions-after-inlining" : "-finstrument-functions"
    let runtimeLink = [
      "-L", runtime, "-Wl,--no-as-needed", "-lOrderfileRuntime", "-Wl,--as-needed", "-Wl,-rpath," + runtime,
    ]
    try FileManager.default.createDirectory(atPath: work.file("instrumented"), withIntermediateDirectories: true)
    let instrumentedFlags = flags + [instrument, "-DORDERFILE_INSTRUMENTED", "-I", PackagePaths.runtimeInclude]
    try link(into: work.file("instrumented"), flags: instrumentedFlags, extra: runtimeLink)

    trace = work.file("launch.trace")
    // qemu's pid is the program's: the runtime names its trace after it, as on a device.
    let recorded = try orderfile(
      [
        "record", "--instrumented", "-o", trace, "--", Arm64.qemu, "-L", Arm64.sysroot,
        work.file("instrumented/" + executable),
      ]
        + arguments)
    guard recorded.succeeded else { throw TestSupportError("record under qemu failed: \(recorded.standardError)") }
    recordedOutput = recorded.standardOutput
    try link(into: work.file("default"), flags: flags + ["-ffunction-sections"])
  }

  /// Compiles and links the library and the executable into `directory` with lld.
  @discardableResult
  func link(into directory: String, flags: [String], extra: [String] = [], orders: String? = nil) throws -> String {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let (cc, cross) = Arm64.compiler(compiler)
    let common = cross + ["-O2", "-g", "-fuse-ld=lld", "-I", includeDirectory] + flags
    let source = { (name: String) in self.includeDirectory + "/" + name }
    func ordering(_ module: String) -> [String] {
      orders.map { ["-Wl,--symbol-ordering-file=" + $0 + "/" + module + ".order"] } ?? []
    }
    let library = try runChecked(
      cc,
      common + ["-fPIC", "-shared"] + librarySources.map(source) + ["-o", directory + "/" + self.library]
        + ordering(self.library) + extra)
    let executable = try runChecked(
      cc,
      common + ["-fPIE", "-pie"] + sources.map(source)
        + ["-o", directory + "/" + self.executable, "-L", directory, "-l" + libraryLinkName, "-Wl,-rpath," + directory]
        + ordering(self.executable) + extra)
    return library.standardError + executable.standardError
  }

  private var libraryLinkName: String { String(library.dropFirst(3).dropLast(3)) }

  var releaseBinaryArguments: [String] {
    ["--release-binary", work.file("default/" + executable), "--release-binary", work.file("default/" + library)]
  }
}

/// The names of each code address of an arm64 binary, in address order, as llvm-nm lists them:
/// C++ template instances are weak (W), and a constructor's C1 and C2 names share one address.
private func codePlaces(_ binary: String) throws -> [[String]] {
  var places: [(address: Substring, names: [String])] = []
  for line in try runChecked(Arm64.nm, ["-n", binary]).standardOutput.split(separator: "\n") {
    let fields = line.split(separator: " ")
    guard fields.count == 3, ["t", "T", "W"].contains(fields[1]) else { continue }
    if places.last?.address == fields[0] {
      places[places.count - 1].names.append(String(fields[2]))
    } else {
      places.append((fields[0], [String(fields[2])]))
    }
  }
  return places.map(\.names)
}

/// Whether `entries` name neighbouring places of `places`, in this order.
private func liesTogether(_ entries: [String], in places: [[String]]) -> Bool {
  var indices: [Int] = []
  for entry in entries {
    guard let index = places.firstIndex(where: { $0.contains(entry) }) else { return false }
    if indices.last != index { indices.append(index) }
  }
  return zip(indices, indices.dropFirst()).allSatisfy { $1 == $0 + 1 }
}

@Suite(
  "arm64: cross-built, recorded under qemu-user with the cross-built runtime, read by the x86-64 tool", .serialized,
  .enabled(if: Arm64.available, Comment(rawValue: Arm64.skipReason)))
struct Arm64Tests {
  @Test(
    "a C program and its library: record, generate against the release binary, relink with lld, nm, verify, estimate",
    arguments: ["clang", "gcc"])
  func cProgram(compiler: String) throws {
    let program = try Arm64Program(
      compiler: compiler, fixture: "integration", sources: ["main.c", "config.c", "store.c", "ui.c"], executable: "app",
      librarySources: ["plugin.c"], library: "libplugin.so", arguments: ["7"])
    #expect(program.recordedOutput.contains("launch value"))
    let machine = try runChecked("/usr/bin/env", ["file", "-L", program.work.file("default/app")]).standardOutput
    #expect(machine.contains("ARM aarch64"), "\(machine)")

    let orders = program.work.file("orders")
    let generated = try orderfile(
      ["generate", program.trace, "--output-dir", orders, "--json"] + program.releaseBinaryArguments)
    #expect(generated.succeeded, "\(generated.standardError)")
    let appOrder = try FileReading.text(atPath: orders + "/app.order").split(separator: "\n").map(String.init)
    #expect(appOrder == launchOrder)
    #expect(
      try FileReading.text(atPath: orders + "/libplugin.so.order").split(separator: "\n").map(String.init)
        == libraryOrder)
    // The two local functions named checksum are one entry, named as the x86-64 report names them.
    let report = try json(generated)
    let modules = report["modules"] as? [[String: Any]] ?? []
    let app = modules.first { ($0["path"] as? String)?.hasSuffix("/app") == true }
    #expect((app?["ambiguousNames"] as? [[String: Any]] ?? []).map { $0["name"] as? String } == ["checksum"])
    #expect(report["matchRate"] as? Double == 1.0)

    let warnings = try program.link(into: program.work.file("ordered"), flags: ["-ffunction-sections"], orders: orders)
    #expect(!warnings.contains("symbol ordering file"), "\(warnings)")
    let defaultSymbols = try textSymbolsInAddressOrder(program.work.file("default/app"), nm: Arm64.nm)
    let orderedSymbols = try textSymbolsInAddressOrder(program.work.file("ordered/app"), nm: Arm64.nm)
    #expect(
      !isContiguous(launchOrder, in: defaultSymbols), "the default layout is already ordered: the test proves nothing")
    #expect(isContiguous(launchOrder, in: orderedSymbols), "\(orderedSymbols)")
    let orderedLibrary = try textSymbolsInAddressOrder(program.work.file("ordered/libplugin.so"), nm: Arm64.nm)
    #expect(isContiguous(libraryOrder, in: orderedLibrary), "\(orderedLibrary)")

    let verified = try orderfile([
      "verify", "--binary", program.work.file("ordered/app"), "--order", orders + "/app.order",
    ])
    #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
    #expect(
      verified.standardOutput.contains("in order, adjacent: \(launchOrder.count) of \(launchOrder.count)"),
      "\(verified.standardOutput)")
    // The same link with what `flags --target` prints for this compiler.
    struct Printed: Decodable {
      var compile: [String]
      var link: [String]
      var compiler: String?
    }
    let printedFlags = try orderfile(
      ["flags", "--release", orders + "/app.order", "--target", Arm64.triple, "--compiler", compiler, "--json"])
    #expect(printedFlags.succeeded, "\(printedFlags.standardError)")
    let printed = try JSONDecoder().decode(Printed.self, from: Data(printedFlags.standardOutput.utf8))
    let byFlags = program.work.file("by-flags")
    try FileManager.default.createDirectory(atPath: byFlags, withIntermediateDirectories: true)
    let linked = try runChecked(
      ProcessRunner.resolve(try #require(printed.compiler)),
      ["-O2", "-I", program.includeDirectory, "-fPIE", "-pie"] + printed.compile
        + program.sources.map { program.includeDirectory + "/" + $0 }
        + ["-o", byFlags + "/app", "-L", program.work.file("default"), "-lplugin"] + printed.link)
    #expect(!linked.standardError.contains("symbol ordering file"), "\(linked.standardError)")
    let verifiedByFlags = try orderfile(["verify", "--binary", byFlags + "/app", "--order", orders + "/app.order"])
    #expect(verifiedByFlags.succeeded, "\(verifiedByFlags.standardOutput)\(verifiedByFlags.standardError)")

    let unordered = try orderfile([
      "verify", "--binary", program.work.file("default/app"), "--order", orders + "/app.order",
    ])
    #expect(unordered.status == 1, "\(unordered.standardOutput)")

    // Pages at the sizes arm64 kernels use: the order never costs pages, and it reaches the bound.
    let estimate = try json(
      try orderfile(
        [
          "estimate", "--trace", program.trace, "--binary", program.work.file("default/app"), "--order",
          orders + "/app.order",
          "--json",
        ]))
    for size in [4096, 16384, 65536] {
      let now = try #require(pages(estimate, size, "current"), "no \(size)-byte row: \(estimate)")
      let ordered = try #require(pages(estimate, size, "ordered"))
      let bound = try #require(pages(estimate, size, "lowerBound"))
      #expect(bound <= ordered && ordered <= now, "\(size): now \(now), ordered \(ordered), bound \(bound)")
      #expect(ordered == bound, "\(size): ordered \(ordered), bound \(bound)")
    }

    // The relinked arm64 program still runs, and says what the instrumented one said.
    let run = try Arm64.run(program.work.file("ordered/app"), ["7"])
    #expect(run.standardOutput == program.recordedOutput)
  }

  @Test(
    "gcc -freorder-blocks-and-partition: the cold parts of launch functions go last in the order, and the relink places them"
  )
  func gccColdParts() throws {
    let work = try TemporaryDirectory("orderfile-arm64-cold")
    defer { work.remove() }
    let runtime = try Arm64.runtimeDirectory(compiler: "gcc")
    let (gcc, cross) = Arm64.compiler("gcc")
    // Every parse_N has a branch marked unlikely that gcc moves to parse_N.cold, and which
    // this launch takes; source order kept, so each unit's pieces sit apart by default.
    let source = PackagePaths.fixtures + "/coldparts/launch.c"
    let flags = cross + ["-O2", "-freorder-blocks-and-partition", "-fno-toplevel-reorder", "-fuse-ld=lld", source]
    func release(_ name: String, order: String? = nil) throws -> (binary: String, output: String) {
      let binary = work.file(name)
      let ordering = order.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? []
      let result = try runChecked(gcc, flags + ["-ffunction-sections", "-Wl,--build-id", "-o", binary] + ordering)
      return (binary, result.standardOutput + result.standardError)
    }
    let shipped = try release("cp").binary
    let coldParts = (0..<16).map { "parse_\($0).cold" }
    let shippedSymbols = try textSymbolsInAddressOrder(shipped, nm: Arm64.nm)
    #expect(Set(coldParts).isSubset(of: Set(shippedSymbols)), "gcc split off: \(shippedSymbols)")

    // The instrumented build, recorded under qemu-user: its hooks run at entries, cold parts unseen.
    let instrumented = work.file("instrumented/cp")
    try FileManager.default.createDirectory(atPath: work.file("instrumented"), withIntermediateDirectories: true)
    try runChecked(
      gcc,
      flags + [
        "-finstrument-functions", "-o", instrumented, "-L", runtime, "-Wl,--no-as-needed", "-lOrderfileRuntime",
        "-Wl,--as-needed", "-Wl,-rpath," + runtime,
      ])
    let trace = work.file("launch.trace")
    let recorded = try orderfile([
      "record", "--instrumented", "-o", trace, "--", Arm64.qemu, "-L", Arm64.sysroot, instrumented,
    ])
    #expect(recorded.succeeded, "\(recorded.standardError)")

    let order = work.file("cp.order")
    let generated = try orderfile(["generate", trace, "--release-binary", shipped, "-o", order, "--json"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let entries = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    // Every cold part after every other entry, in the order their functions first ran.
    let firstCold = try #require(entries.firstIndex { $0.hasSuffix(".cold") }, "no cold part in \(entries)")
    #expect(Array(entries[firstCold...]) == coldParts, "\(entries)")
    #expect(entries[..<firstCold].filter { $0.hasPrefix("parse_") } == (0..<16).map { "parse_\($0)" })
    let module = try #require((try json(generated)["modules"] as? [[String: Any]])?.first)
    #expect((module["release"] as? [String: Any])?["placedColdParts"] as? [String] == coldParts)
    #expect(module["matchRate"] as? Double == 1.0, "the cold parts are entries, not misses: \(module)")

    // Relinked with ld.lld: no warning, the launch code first and the cold parts right after it.
    let ordered = try release("ordered", order: order)
    #expect(!ordered.output.contains("warning"), "\(ordered.output)")
    let orderedSymbols = try textSymbolsInAddressOrder(ordered.binary, nm: Arm64.nm)
    #expect(isContiguous(entries, in: orderedSymbols), "\(orderedSymbols)")
    let verified = try orderfile(["verify", "--binary", ordered.binary, "--order", order])
    #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")

    // The pages the launch really executes, counted by the page probe in qemu's guest: the cold
    // parts it ran stay on their own pages unless the order places them.
    let hotOnlyOrder = work.file("hot-only.order")
    try AtomicFile.write(entries[..<firstCold].map { $0 + "\n" }.joined(), to: hotOnlyOrder)
    let hotOnly = try release("hot-only", order: hotOnlyOrder).binary
    func touched(_ binary: String) throws -> Int {
      let (run, pages) = try Arm64.probedPages(
        binary, runtime: runtime, output: work.file("pages-" + PathName.split(binary).base))
      #expect(run.standardOutput == recorded.standardOutput)
      return pages
    }
    let (defaultPages, hotOnlyPages, orderedPages) = (
      try touched(shipped), try touched(hotOnly), try touched(ordered.binary)
    )
    #expect(
      orderedPages < hotOnlyPages && orderedPages < defaultPages,
      "4 KiB pages: default \(defaultPages), order without the cold parts \(hotOnlyPages), with them \(orderedPages)")
  }

  @Test("SanitizerCoverage's trace-pc-guard hooks (Rust's and Swift's instrumentation) record on arm64 too")
  func sanitizerCoverage() throws {
    let work = try TemporaryDirectory("orderfile-arm64-sancov")
    defer { work.remove() }
    let runtime = try Arm64.runtimeDirectory(compiler: "clang")
    let (clang, cross) = Arm64.compiler("clang")
    let fixtures = PackagePaths.fixtures + "/integration"
    // Compiled with the hooks, linked apart: clang's driver would add its own coverage runtime,
    // which is not built for arm64 here.
    var objects: [String] = []
    for source in ["main.c", "config.c", "store.c", "ui.c", "plugin.c"] {
      let object = work.file(source + ".o")
      objects.append(object)
      try runChecked(
        clang,
        cross + [
          "-O2", "-g", "-fPIE", "-fsanitize-coverage=func,trace-pc-guard", "-DORDERFILE_INSTRUMENTED", "-I", fixtures,
          "-I", PackagePaths.runtimeInclude, "-c", fixtures + "/" + source, "-o", object,
        ])
    }
    try runChecked(
      clang,
      cross + ["-pie"] + objects + [
        "-o", work.file("app"), "-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime,
      ])
    let trace = work.file("launch.trace")
    let recorded = try orderfile(
      ["record", "--instrumented", "-o", trace, "--", Arm64.qemu, "-L", Arm64.sysroot, work.file("app"), "7"])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let generated = try orderfile(["generate", trace, "-o", work.file("app.order")])
    #expect(generated.succeeded, "\(generated.standardError)")
    let order = try FileReading.text(atPath: work.file("app.order")).split(separator: "\n").map(String.init)
    // One executable here: the library's functions run between config_validate and store_open.
    #expect(order == Array(launchOrder[..<5]) + libraryOrder + Array(launchOrder[5...]), "\(order)")
  }

  @Test(
    "a C++ program and its own library: names demangle, lld warns of none, verify passes",
    arguments: ["clang++", "g++"])
  func cxxProgram(compiler: String) throws {
    let program = try Arm64Program(
      compiler: compiler, fixture: "cxx", sources: ["main.cpp"], executable: "cxxapp", librarySources: ["shapes.cpp"],
      library: "libshapes.so")
    #expect(program.recordedOutput.contains("2 shapes"), "\(program.recordedOutput)")
    let orders = program.work.file("orders")
    let generated = try orderfile(
      ["generate", program.trace, "--output-dir", orders, "--json"] + program.releaseBinaryArguments)
    #expect(generated.succeeded, "\(generated.standardError)")
    // The arm64 libstdc++ (a path inside the sysroot, as the loader under qemu named it) gets no orderfile.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: orders).sorted() == ["cxxapp.order", "libshapes.so.order"])
    let appOrder = try FileReading.text(atPath: orders + "/cxxapp.order").split(separator: "\n").map(String.init)
    let libraryOrder = try FileReading.text(atPath: orders + "/libshapes.so.order").split(separator: "\n").map(
      String.init)
    // The executable's static initializer runs before main, and is placed so.
    let main = try #require(appOrder.firstIndex(of: "main"), "\(appOrder)")
    #expect(appOrder.firstIndex { $0.hasPrefix("_GLOBAL__sub_I") }.map { $0 < main } == true, "\(appOrder)")
    // Mangled names, as lld wants them: the library's factory functions in the order they ran.
    let square = try #require(libraryOrder.firstIndex(of: "_ZN6shapes10makeSquareEd"), "\(libraryOrder)")
    let circle = try #require(libraryOrder.firstIndex(of: "_ZN6shapes10makeCircleEd"), "\(libraryOrder)")
    #expect(square < circle)

    let warnings = try program.link(into: program.work.file("ordered"), flags: ["-ffunction-sections"], orders: orders)
    #expect(!warnings.contains("symbol ordering file"), "\(warnings)")
    for (binary, order) in [("cxxapp", appOrder), ("libshapes.so", libraryOrder)] {
      let verified = try orderfile(
        ["verify", "--binary", program.work.file("ordered/" + binary), "--order", orders + "/" + binary + ".order"])
      #expect(verified.succeeded, "\(binary): \(verified.standardOutput)\(verified.standardError)")
      #expect(
        verified.standardOutput.contains("in order, adjacent: \(order.count) of \(order.count)"),
        "\(verified.standardOutput)")
      let places = try codePlaces(program.work.file("ordered/" + binary))
      #expect(liesTogether(order, in: places), "\(binary): \(places)")
    }
    let run = try Arm64.run(program.work.file("ordered/cxxapp"))
    #expect(run.standardOutput == program.recordedOutput)
  }
}

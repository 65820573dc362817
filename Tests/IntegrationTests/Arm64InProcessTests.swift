import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The instrumented launch order of the integration fixture on arm64 (Arm64Tests): the
/// in-process order of the release build must agree with it.
private let launchOrder = arm64LaunchOrder
private let libraryOrder = arm64LibraryOrder

/// qemu-user as `record --emulator` takes it: with every optional CPU feature (PAC, BTI).
private let emulator = "\(Arm64.qemu) -cpu max -L \(Arm64.sysroot)"

/// Records `program` in-process under qemu-user, with the recorder cross-built by `compiler`
/// found through ORDERFILE_RUNTIME_DIR.
private func recordUnderQemu(
  _ program: String, _ arguments: [String] = [], trace: String, compiler: String = "clang", options: [String] = []
) throws -> ProcessResult {
  let runtime = try Arm64.runtimeDirectory(compiler: compiler.hasPrefix("clang") ? "clang" : "gcc")
  return try orderfile(
    ["record", "--emulator", emulator, "-o", trace] + options + ["--", program] + arguments,
    environment: ["ORDERFILE_RUNTIME_DIR": runtime])
}

/// Compiles `sources` for arm64 with `compiler` (clang or gcc) and lld.
@discardableResult
private func crossBuild(
  _ compiler: String, _ sources: [String], _ flags: [String], output: String
) throws -> ProcessResult {
  let (cc, cross) = Arm64.compiler(compiler)
  return try runChecked(cc, cross + ["-O2", "-g", "-fuse-ld=lld"] + flags + sources + ["-o", output])
}

/// The function of each recorded first call of the module whose path ends in `suffix`, in
/// first-call order, named by llvm-nm's list of the module's file.
private func recordedNames(_ trace: Trace, module suffix: String) throws -> [String] {
  guard let module = trace.modules.first(where: { $0.path.hasSuffix(suffix) }) else { return [] }
  var names: [UInt64: String] = [:]
  for line in try runChecked(Arm64.nm, ["--defined-only", module.path]).standardOutput.split(separator: "\n") {
    let fields = line.split(separator: " ")
    guard fields.count == 3, "tTW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
    names[address] = names[address] ?? String(fields[2])
  }
  return trace.records.filter { $0.module == module.index }.map { names[$0.address] ?? "?" }
}

@Suite(
  "arm64 in-process: release binaries recorded under qemu-user with the recorder built for arm64", .serialized,
  .enabled(if: Arm64.available, Comment(rawValue: Arm64.skipReason)))
struct Arm64InProcessTests {
  @Test(
    "a C program and its library: record under qemu, generate, relink with lld (no warnings), nm, verify",
    arguments: ["clang", "gcc"])
  func cProgram(compiler: String) throws {
    let work = try TemporaryDirectory("orderfile-arm64-ip-\(compiler)")
    defer { work.remove() }
    let fixtures = PackagePaths.fixtures + "/integration"
    func link(into directory: String, orders: String? = nil) throws -> String {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      func ordering(_ module: String) -> [String] {
        orders.map { ["-Wl,--symbol-ordering-file=" + $0 + "/" + module + ".order"] } ?? []
      }
      let common = ["-ffunction-sections", "-I", fixtures]
      let library = try crossBuild(
        compiler, [fixtures + "/plugin.c"], common + ["-fPIC", "-shared"] + ordering("libplugin.so"),
        output: directory + "/libplugin.so")
      let executable = try crossBuild(
        compiler, ["main.c", "config.c", "store.c", "ui.c"].map { fixtures + "/" + $0 },
        common + ["-fPIE", "-pie", "-L", directory, "-lplugin", "-Wl,-rpath," + directory] + ordering("app"),
        output: directory + "/app")
      return library.standardError + executable.standardError
    }
    try link(into: work.file("default"))
    let app = work.file("default/app")
    let trace = work.file("launch.trace")
    let recorded = try recordUnderQemu(
      app, ["7"], trace: trace, compiler: compiler, options: ["--until", "ui_first_frame", "--wait-for-exit"])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput.contains("launch value"), "\(recorded.standardOutput)")
    #expect(recorded.standardError.contains("in-process"), "\(recorded.standardError)")

    let read = try TraceReader.read(path: trace)
    // The trace names the modules as the emulated loader did: the program's own files here.
    #expect(read.modules.first { $0.isMainExecutable }?.path == app, "\(read.modules.map(\.path))")
    let launch = try recordedNames(read, module: "/app").filter { launchOrder.contains($0) }
    // The same order as the instrumented build of the same program (Arm64Tests).
    #expect(Array(launch.prefix(launchOrder.count)) == launchOrder, "\(launch)")

    let orders = work.file("orders")
    let generated = try orderfile(["generate", trace, "--output-dir", orders])
    #expect(generated.succeeded, "\(generated.standardError)")
    let appOrder = try FileReading.text(atPath: orders + "/app.order").split(separator: "\n").map(String.init)
    #expect(appOrder.filter { launchOrder.contains($0) } == launchOrder, "\(appOrder)")
    #expect(appOrder.last == "ui_first_frame", "--until ends the window there: \(appOrder)")
    let pluginOrder = try FileReading.text(atPath: orders + "/libplugin.so.order").split(separator: "\n").map(
      String.init)
    #expect(pluginOrder.filter { $0.hasPrefix("plugin_") } == libraryOrder, "\(pluginOrder)")

    let warnings = try link(into: work.file("ordered"), orders: orders)
    #expect(!warnings.contains("warning"), "\(warnings)")
    let defaultSymbols = try textSymbolsInAddressOrder(app, nm: Arm64.nm)
    let orderedSymbols = try textSymbolsInAddressOrder(work.file("ordered/app"), nm: Arm64.nm)
    #expect(!isContiguous(launchOrder, in: defaultSymbols), "the default layout is already ordered")
    #expect(isContiguous(launchOrder, in: orderedSymbols), "\(orderedSymbols)")
    #expect(
      isContiguous(libraryOrder, in: try textSymbolsInAddressOrder(work.file("ordered/libplugin.so"), nm: Arm64.nm)))
    let verified = try orderfile(["verify", "--binary", work.file("ordered/app"), "--order", orders + "/app.order"])
    #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
    #expect(
      verified.standardOutput.contains("in order, adjacent: \(appOrder.count) of \(appOrder.count)"),
      "\(verified.standardOutput)")
    let run = try Arm64.run(work.file("ordered/app"), ["7"])
    #expect(run.standardOutput == recorded.standardOutput)
  }

  @Test(
    "the same sources recorded both ways under --emulator: the release build in-process, the instrumented build with its runtime; the orders agree"
  )
  func agreesWithInstrumented() throws {
    let work = try TemporaryDirectory("orderfile-arm64-ip-agree")
    defer { work.remove() }
    let fixtures = PackagePaths.fixtures + "/integration"
    let sources = ["main.c", "config.c", "store.c", "ui.c"].map { fixtures + "/" + $0 }
    let runtime = try Arm64.runtimeDirectory(compiler: "clang")
    var orders: [String: [String]] = [:]
    for build in ["release", "instrumented"] {
      let directory = work.file(build)
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let instrumented = build == "instrumented"
      let flags =
        ["-I", fixtures]
        + (instrumented
          ? ["-finstrument-functions-after-inlining", "-DORDERFILE_INSTRUMENTED", "-I", PackagePaths.runtimeInclude]
          : [])
      let runtimeLink =
        instrumented
        ? ["-L", runtime, "-Wl,--no-as-needed", "-lOrderfileRuntime", "-Wl,--as-needed", "-Wl,-rpath," + runtime] : []
      try crossBuild(
        "clang", [fixtures + "/plugin.c"], flags + ["-fPIC", "-shared"] + runtimeLink,
        output: directory + "/libplugin.so")
      try crossBuild(
        "clang", sources, flags + ["-L", directory, "-lplugin", "-Wl,-rpath," + directory] + runtimeLink,
        output: directory + "/app")
      let trace = directory + "/launch.trace"
      // No mode given: the instrumented build is recognised and recorded with its runtime.
      let recorded = try recordUnderQemu(
        directory + "/app", ["7"], trace: trace, options: instrumented ? [] : ["--until", "ui_first_frame"])
      #expect(recorded.succeeded, "\(build): \(recorded.standardError)")
      #expect(recorded.standardError.contains("in-process") != instrumented, "\(build): \(recorded.standardError)")
      let generated = try orderfile(["generate", trace, "--output-dir", directory + "/orders"])
      #expect(generated.succeeded, "\(build): \(generated.standardError)")
      orders[build] = try FileReading.text(atPath: directory + "/orders/app.order").split(separator: "\n").map(
        String.init)
    }
    let release = try #require(orders["release"])
    let instrumented = try #require(orders["instrumented"])
    #expect(instrumented == launchOrder, "\(instrumented)")
    // Every instrumented entry, in the same order; beyond them only the crt's code, which
    // no instrumentation sees.
    #expect(release.filter { instrumented.contains($0) } == instrumented, "\(release)")
    #expect(Set(release).subtracting(instrumented) == ["_start", "call_weak_fn"], "\(release)")
  }

  @Test(
    "clang's -fsplit-machine-functions on arm64: the jumps into cold parts past their first instruction are armed; a program named ./split"
  )
  func coldParts() throws {
    let work = try TemporaryDirectory("orderfile-arm64-ip-cold")
    defer { work.remove() }
    let profile = try coldPartsProfile(in: work)
    try crossBuild(
      "clang", [PackagePaths.fixtures + "/coldparts/launch.c"],
      ["-fprofile-use=" + profile, "-fsplit-machine-functions", "-ffunction-sections"],
      output: work.file("split"))
    // Named relative to the current directory, as a user types it.
    let recorded = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["record", "--emulator", emulator, "-o", "launch.trace", "--", "./split"],
      environment: ["ORDERFILE_RUNTIME_DIR": try Arm64.runtimeDirectory(compiler: "clang")],
      currentDirectory: work.path)
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let generated = try orderfile(["generate", work.file("launch.trace"), "-o", work.file("launch.order")])
    #expect(generated.succeeded, "\(generated.standardError)")
    let entries = try FileReading.text(atPath: work.file("launch.order")).split(separator: "\n").map(String.init)
    // parse_N jumps to parse_N.cold+0x8 (b), past the part's first instruction.
    #expect(entries.filter { $0.hasPrefix("parse_") && $0.hasSuffix(".cold") }.count == 16, "\(entries)")
  }

  @Test(
    "branch protection (PAC and BTI, qemu -cpu max): guarded code recorded, paciasp and bti c entries resumed, results unchanged"
  )
  func branchProtection() throws {
    let work = try TemporaryDirectory("orderfile-arm64-ip-bti")
    defer { work.remove() }
    let fixtures = PackagePaths.fixtures + "/arm64/"
    try crossBuild(
      "clang", [fixtures + "guarded.c"],
      ["-mbranch-protection=standard", "-fPIC", "-shared", "-nostartfiles", "-Wl,-z,force-bti"],
      output: work.file("libguarded.so"))
    try crossBuild(
      "clang", [fixtures + "guarded_main.c"],
      ["-mbranch-protection=standard", "-L", work.path, "-lguarded", "-Wl,-rpath," + work.path],
      output: work.file("guarded"))
    let entries = try runChecked(Toolchain.llvmBin + "/llvm-objdump", ["-d", work.file("libguarded.so")]).standardOutput
    #expect(entries.contains("paciasp") && entries.contains("bti\tc"), "no landing pads: the test proves nothing")
    // The library's code is guarded here: a pointer call to code without a landing pad faults.
    let probe = try ProcessRunner.run(Arm64.qemu, ["-cpu", "max", "-L", Arm64.sysroot, work.file("guarded"), "probe"])
    #expect(probe.status == 128 + SIGILL || probe.signal == SIGILL, "BTI is not enforced: \(probe.status)")
    let plain = try ProcessRunner.run(Arm64.qemu, ["-cpu", "max", "-L", Arm64.sysroot, work.file("guarded")])
    #expect(plain.succeeded && plain.standardOutput.hasPrefix("guarded "), "\(plain.standardOutput)")

    let trace = work.file("launch.trace")
    let recorded = try recordUnderQemu(work.file("guarded"), trace: trace)
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == plain.standardOutput)
    let read = try TraceReader.read(path: trace)
    #expect(
      try recordedNames(read, module: "/libguarded.so") == [
        "guarded_entry", "guarded_static", "guarded_signed", "guarded_leaf",
      ])
    #expect(try recordedNames(read, module: "/guarded").contains("launch"))
  }
}

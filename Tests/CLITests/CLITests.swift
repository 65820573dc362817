import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

func orderfile(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
  try ProcessRunner.run(PackagePaths.orderfileExecutable, arguments, environment: environment)
}

/// A real binary and a trace that points into it, written with the trace encoder.
struct TracedBinary {
  let directory: TemporaryDirectory
  let binary: String
  let trace: String
  let buildID: [UInt8]
  let addresses: [String: UInt64]

  /// Records `called` functions (by name) and, if given, addresses no function covers.
  init(called: [String], unresolved: [UInt64] = [], buildIDOverride: [UInt8]? = nil) throws {
    directory = try TemporaryDirectory("orderfile-cli")
    binary = directory.file("tool")
    let source = directory.file("tool.c")
    try """
    __attribute__((noinline)) int alpha(int x) { return x + 1; }
    __attribute__((noinline)) int beta(int x) { return x * 2; }
    __attribute__((noinline)) int gamma_(int x) { return x - 3; }
    int main(int argc, char **argv) { return alpha(argc) + beta(argc) + gamma_(argc); }
    """.write(toFile: source, atomically: true, encoding: .utf8)
    try runChecked(Toolchain.clang, ["-O2", "-g", "-fPIE", "-pie", source, "-o", binary])
    var addresses: [String: UInt64] = [:]
    for line in try runChecked(Toolchain.nm, [binary]).standardOutput.split(separator: "\n") {
      let fields = line.split(separator: " ")
      if fields.count == 3, let address = UInt64(fields[0], radix: 16) { addresses[String(fields[2])] = address }
    }
    self.addresses = addresses
    buildID = try BinaryLocator.buildID(ofFileAt: binary)?.bytes ?? []
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: 77, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 2, processStartNanoseconds: 100, processStartResolutionNanoseconds: 10_000_000,
      traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
    let module = TraceModule(
      index: 0, path: binary, buildID: buildIDOverride ?? buildID, loadBase: 0x5555_0000_0000,
      textRange: 0..<0x10_0000, isMainExecutable: true)
    let addressList =
      try called.map { name in
        guard let address = addresses[name] else { throw TestSupportError("no symbol \(name)") }
        return address
      } + unresolved
    let records = addressList.enumerated().map { index, address in
      FirstCall(module: 0, address: address, timeNanoseconds: 300 + UInt64(index), threadID: 77, phase: .launch)
    }
    trace = directory.file("launch.trace")
    let value = Trace(path: trace, header: header, modules: [module], records: records)
    try AtomicFile.write(TraceEncoder.encode(value), to: trace)
  }
}

@Suite("Command line")
struct CLITests {
  @Test("--help lists the commands and the exit statuses")
  func help() throws {
    let result = try orderfile(["--help"])
    #expect(result.status == 0)
    for word in ["flags", "record", "generate", "Exit status"] {
      #expect(result.standardOutput.contains(word))
    }
  }

  @Test("--help teaches the release binary first, as record's default and the README do")
  func helpStartsWithReleaseBinary() throws {
    let lines = try orderfile(["--help"]).standardOutput.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let steps = lines.filter { $0.first?.isNumber == true && $0.contains(". ") }
    let first = try #require(steps.first, "no numbered steps in --help")
    #expect(first.contains("release") && !first.contains("--instrument"), "\(first)")
    let record = try #require(steps.first { $0.contains("orderfile record") })
    #expect(!record.contains("--instrumented"), "\(record)")
  }

  @Test("every command's help examples fit 80 columns: each line is a command or the continuation of one")
  func helpExamplesDoNotWrap() throws {
    let top = try orderfile(["--help"]).standardOutput.split(separator: "\n").map(String.init)
    let commandsStart = try #require(top.firstIndex { $0.hasPrefix("SUBCOMMANDS:") })
    let commands = top[(commandsStart + 1)...].prefix { !$0.isEmpty }.compactMap { line -> String? in
      let word = line.split(separator: " ").first.map(String.init)
      return line.hasPrefix("  ") && !line.hasPrefix("   ") ? word : nil
    }
    try #require(commands.count > 10, "\(commands)")
    var examples = 0
    for command in commands {
      let help = try orderfile([command, "--help"]).standardOutput.split(
        separator: "\n", omittingEmptySubsequences: false)
      guard let start = help.firstIndex(of: "Examples:") else { continue }
      var continued = false
      for line in help[(start + 1)...].prefix(while: { !$0.hasPrefix("USAGE:") }) where !line.isEmpty {
        let words = line.split(separator: " ")
        // A command begins with the tool, or is a pipeline into it; anything else was wrapped.
        let isCommand = words.first == "orderfile" || line.contains(" | ")
        #expect(continued || isCommand, "\(command) --help: a wrapped example line: '\(line)'")
        #expect(line.count <= 80, "\(command) --help: an example longer than 80 columns: '\(line)'")
        continued = line.hasSuffix("\\")
        examples += 1
      }
    }
    #expect(examples > 20)
  }

  @Test("generate writes the orderfile in first-call order and is byte-identical on a second run")
  func generateIsDeterministic() throws {
    let fixture = try TracedBinary(called: ["main", "gamma_", "alpha"])
    let first = fixture.directory.file("first.order")
    let second = fixture.directory.file("second.order")
    let run1 = try orderfile(["generate", fixture.trace, "-o", first])
    let run2 = try orderfile(["generate", fixture.trace, "-o", second])
    #expect(run1.status == 0, "\(run1.standardError)")
    #expect(run2.status == 0)
    let text = try FileReading.text(atPath: first)
    #expect(text == "main\ngamma_\nalpha\n")
    #expect(try FileReading.bytes(atPath: second) == FileReading.bytes(atPath: first))
    #expect(run1.standardOutput.contains("3 lines from 3 recorded functions (100.0% matched)"))
  }

  @Test("each format names the functions as its linker expects")
  func formats() throws {
    let fixture = try TracedBinary(called: ["main", "beta"])
    for (format, expected) in [
      ("lld", "main\nbeta\n"),
      ("gold", ".text.main\n.text.hot.main\n.text.startup.main\n.text.beta\n.text.hot.beta\n.text.startup.beta\n"),
      ("ld64", "_main\n_beta\n"),
    ] {
      let result = try orderfile(["generate", fixture.trace, "--format", format])
      #expect(result.status == 0)
      #expect(result.standardOutput == expected, "format \(format)")
    }
  }

  @Test("--min-match fails with exit 1 when too few recorded functions resolve")
  func minMatchGate() throws {
    let fixture = try TracedBinary(called: ["main"], unresolved: [0x10])
    let output = fixture.directory.file("app.order")
    let passing = try orderfile(["generate", fixture.trace, "-o", output, "--min-match", "50%"])
    #expect(passing.status == 0, "\(passing.standardError)")
    // A failed gate writes nothing: the orderfile a passing run wrote stays as it was.
    try AtomicFile.write("kept\n", to: output)
    let failing = try orderfile(["generate", fixture.trace, "-o", output, "--min-match", "0.9"])
    #expect(failing.status == 1)
    #expect(failing.standardError.contains("match rate 50.0% of tool is below --min-match 90.0%"))
    #expect(failing.standardError.contains("no orderfile written"))
    #expect(failing.standardOutput.contains("1 addresses have no function symbol: 0x10"))
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "kept\n")
    // The report says which question the match rate answers.
    #expect(failing.standardOutput.contains("the match rate answers: how many of the recorded launch functions"))
  }

  @Test("the match rate of a trace recorded without a rebuild is against that binary, not an instrumented one")
  func matchRateWording() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let released = try orderfile(["generate", fixture.trace, "-o", fixture.directory.file("a.order")])
    #expect(
      released.standardOutput.contains("(against the recorded binary, recorded without a rebuild)"),
      "\(released.standardOutput)")
    #expect(!released.standardOutput.contains("instrumented"), "\(released.standardOutput)")
    // The runtime notes when its start-up ended: its trace is of an instrumented build.
    var trace = try TraceReader.read(path: fixture.trace)
    trace.header.versionMinor = 2
    trace.header.startupEndNanoseconds = trace.header.traceStartNanoseconds + 10
    try AtomicFile.write(TraceEncoder.encode(trace), to: fixture.trace)
    let instrumented = try orderfile(["generate", fixture.trace, "-o", fixture.directory.file("b.order")])
    #expect(instrumented.standardOutput.contains("(against the instrumented binary: give --release-binary"))
  }

  @Test("--min-match gates each module that gets an orderfile, not the rate over all of them")
  func minMatchPerModule() throws {
    let fixture = try TracedBinary(called: ["main", "alpha", "beta", "gamma_"])
    // A second module, a copy of the same binary, whose launch resolves one call in two.
    let library = fixture.directory.file("libplugin.so")
    try FileManager.default.copyItem(atPath: fixture.binary, toPath: library)
    var trace = try TraceReader.read(path: fixture.trace)
    trace.modules.append(
      TraceModule(
        index: 1, path: library, buildID: fixture.buildID, loadBase: 0x7f00_0000_0000, textRange: 0..<0x10_0000,
        isMainExecutable: false))
    let main = try #require(fixture.addresses["main"])
    for (offset, address) in [main, 0x10].enumerated() {
      trace.records.append(
        FirstCall(module: 1, address: address, timeNanoseconds: 400 + UInt64(offset), threadID: 77, phase: .launch))
    }
    try AtomicFile.write(TraceEncoder.encode(trace), to: fixture.trace)
    // 5 of 6 recorded functions resolve (83%), but the library's order has half of its own.
    let result = try orderfile(
      ["generate", fixture.trace, "--output-dir", fixture.directory.file("orders"), "--min-match", "0.8"])
    #expect(result.status == 1, "\(result.standardOutput)")
    #expect(
      result.standardError.contains("match rate 50.0% of libplugin.so is below --min-match 80.0%"),
      "\(result.standardError)")
  }

  @Test("a corrupt trace is one error line naming the file and offset, exit 65, nothing written")
  func corruptTrace() throws {
    let fixture = try TracedBinary(called: ["main"])
    var bytes = try FileReading.bytes(atPath: fixture.trace)
    bytes[bytes.count - 20] ^= 0x04
    try AtomicFile.write(bytes, to: fixture.trace)
    let output = fixture.directory.file("app.order")
    let result = try orderfile(["generate", fixture.trace, "-o", output])
    #expect(result.status == 65)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("orderfile: error: \(fixture.trace): corrupt record 0 at offset 0x") == true)
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test("a file that is not a trace, and a missing one, are refused clearly")
  func notATrace() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("notes.txt")
    try "hello".write(toFile: path, atomically: true, encoding: .utf8)
    let result = try orderfile(["generate", path, "-o", directory.file("x.order")])
    #expect(result.status == 65)
    #expect(result.standardError.contains("\(path): offset 0x0: not an orderfile trace"))
    let missing = try orderfile(["generate", directory.file("none.trace")])
    #expect(missing.status == 66)
    #expect(missing.standardError.contains("none.trace: cannot read trace"))
  }

  @Test("an output that cannot be written (a socket) is exit 74, not 66: the input was fine")
  func unwritableOutput() throws {
    let fixture = try TracedBinary(called: ["main"])
    let socket = try UnixSocket(path: fixture.directory.file("out.sock"))
    let result = try orderfile(["generate", fixture.trace, "-o", socket.path])
    #expect(result.status == 74, "\(result.standardError)")
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("orderfile: error: \(socket.path): open failed") == true, "\(lines)")
  }

  @Test("a binary whose build-id differs from the trace's is an error, not a silent wrong answer")
  func buildIDMismatch() throws {
    let fixture = try TracedBinary(called: ["main"], buildIDOverride: [0xaa, 0xbb, 0xcc, 0xdd])
    let result = try orderfile(["generate", fixture.trace, "-o", fixture.directory.file("x.order")])
    #expect(result.status == 65)
    #expect(result.standardError.contains("build-id"))
    #expect(result.standardError.contains("aabbccdd"))
  }

  @Test("usage errors name the flag and exit 64")
  func usageErrors() throws {
    let badRate = try orderfile(["generate", "x.trace", "--min-match", "lots"])
    #expect(badRate.status == 64)
    #expect(badRate.standardError.contains("The value 'lots' is invalid for '--min-match <rate>'"))
    #expect(badRate.standardError.contains("0.95 or 95%"), "the help line says what a rate looks like")
    let badFormat = try orderfile(["generate", "x.trace", "--format", "gld"])
    #expect(badFormat.status == 64)
    let noProgram = try orderfile(["record", "-o", "x.trace"])
    #expect(noProgram.status == 64)
    let missingOrder = try orderfile(["flags", "--release", "/nonexistent/app.order"])
    #expect(missingOrder.status == 64)
    #expect(missingOrder.standardError.contains("no orderfile at '/nonexistent/app.order'"))
  }

  @Test("flags --release prints the section and ordering flags for each linker")
  func releaseFlags() throws {
    let directory = try TemporaryDirectory()
    let order = directory.file("app.order")
    try "main\n".write(toFile: order, atomically: true, encoding: .utf8)
    // A root without libc.so.6 (the order's folder): no loader option applies.
    let lld = try orderfile(["flags", "--release", order, "--ldflags", "--sysroot", directory.path])
    #expect(lld.standardOutput == "-fuse-ld=lld -Wl,--build-id -Wl,--symbol-ordering-file=\(order)\n")
    let gold = try orderfile([
      "flags", "--release", order, "--format", "gold", "--ldflags", "--sysroot", directory.path,
    ])
    #expect(gold.standardOutput == "-fuse-ld=gold -Wl,--build-id -Wl,--section-ordering-file=\(order)\n")
    let cflags = try orderfile(["flags", "--release", order, "--cflags"])
    // One section per data object too: the launch's data is placed by it (record --data).
    #expect(cflags.standardOutput == "-ffunction-sections -fdata-sections\n")
  }

  @Test(
    "flags --release module=orderfile: a bad pair, a module named twice, a missing file, several for one link: one line naming it, exit 64"
  )
  func releasePairsRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let app = directory.file("app.order")
    let library = directory.file("libui.so.order")
    try AtomicFile.write("main\n", to: app)
    try AtomicFile.write("ui_init\n", to: library)
    let cases: [([String], String)] = [
      (["--build-system", "make", "--release", "app=" + app, library], "'\(library)' is no module=orderfile pair"),
      (["--build-system", "cmake", "--release", "app=" + app, "app=" + library], "module 'app' is named twice"),
      (
        ["--build-system", "meson", "--release", "app=" + app, "libui.so=" + directory.file("none.order")], "none.order"
      ),
      (["--ldflags", "--release", "app=" + app, "libui.so=" + library], "one orderfile per module (app, libui.so)"),
      (["--build-system", "swiftpm", "--release", "app=" + app, "libui.so=" + library], "needs --build-system make"),
    ]
    for (arguments, message) in cases {
      let result = try orderfile(["flags"] + arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.standardOutput.isEmpty, "\(arguments): \(result.standardOutput)")
      let lines = result.standardError.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].hasPrefix("orderfile: error: --release: "), "\(result.standardError)")
      #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }
    let both = try orderfile(["flags", "--release", "app=" + app, "libui.so=" + library])
    #expect(both.succeeded)
    #expect(both.standardOutput.contains("# Link flags for the ordered release build of libui.so:\n"))
  }
}

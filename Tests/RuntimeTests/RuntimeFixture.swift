import Foundation
import OrderfileSupport
import OrderfileTrace
import _OrderfileTestSupport

/// The two instrumenting compilers the runtime supports.
enum Compiler: String, CaseIterable, Sendable, CustomStringConvertible {
  case gcc
  case clang

  var description: String { rawValue }

  var executable: String { self == .gcc ? Toolchain.gcc : Toolchain.clang }

  /// gcc instruments every function; clang's after-inlining mode only those that survive inlining.
  var instrumentation: String {
    self == .gcc ? "-finstrument-functions" : "-finstrument-functions-after-inlining"
  }
}

/// Builds the C programs in Tests/Fixtures/runtime against the runtime and runs them.
enum RuntimeFixture {
  static var sources: String { PackagePaths.fixtures + "/runtime" }

  /// Compiles `source` (a file in Tests/Fixtures/runtime) into an instrumented PIE linked
  /// with the runtime (or with the libOrderfileRuntime.so in `runtimeDirectory`); returns
  /// the executable's path.
  static func program(
    _ source: String, compiler: Compiler, in directory: TemporaryDirectory, extra: [String] = [],
    runtimeDirectory: String? = nil, name: String? = nil
  ) throws -> String {
    let runtime = try runtimeDirectory ?? RuntimeBuilder.libraryDirectory()
    let output = directory.file(name ?? (source as NSString).deletingPathExtension + "-\(compiler)")
    try runChecked(
      compiler.executable,
      [
        "-O2", "-fPIE", "-pie", compiler.instrumentation, "-I", sources, "-I", PackagePaths.runtimeInclude,
        sources + "/" + source, "-o", output,
      ]
        + extra
        + ["-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime, "-Wl,--build-id", "-lpthread"])
    return output
  }

  /// Compiles `source` into an instrumented shared library `lib<name>.so` in `directory`.
  static func library(
    _ source: String, named name: String, compiler: Compiler, in directory: TemporaryDirectory
  ) throws -> String {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let output = directory.file("lib\(name).so")
    try runChecked(
      compiler.executable,
      [
        "-O2", "-fPIC", "-shared", compiler.instrumentation, sources + "/" + source, "-o", output,
        "-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime, "-Wl,--build-id",
      ])
    return output
  }

  /// Builds the overhead benchmark's empty hooks (Benchmarks/overhead/empty_hooks.c) as a
  /// libOrderfileRuntime.so of its own, in a new directory inside `directory`; returns
  /// that directory.
  static func emptyHooks(in directory: TemporaryDirectory) throws -> String {
    let output = directory.file("empty-hooks")
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-fPIC", "-shared", PackagePaths.root + "/Benchmarks/overhead/empty_hooks.c",
        "-o", output + "/libOrderfileRuntime.so",
      ])
    return output
  }

  /// Runs a fixture with a clean ORDERFILE_* environment plus `environment`.
  /// With `timeLimit`, the fixture runs under timeout(1) and a hang ends with status 124
  /// instead of hanging the test run.
  static func run(
    _ program: String, _ arguments: [String] = [], environment: [String: String] = [:],
    currentDirectory: String? = nil, timeLimit seconds: Int? = nil
  ) throws -> ProcessResult {
    // Empty means unset to the runtime: this keeps the test's own environment out.
    var clean = [
      "ORDERFILE_OUTPUT": "", "ORDERFILE_TIME_LIMIT_MS": "", "ORDERFILE_CAPACITY": "",
      "ORDERFILE_DISABLE": "", "ORDERFILE_VERBOSE": "", "ORDERFILE_MODE": "", "ORDERFILE_MARKS": "",
      "ORDERFILE_EVENTS": "", "ORDERFILE_EVENT_THREADS": "",
    ]
    for (key, value) in environment { clean[key] = value }
    if let seconds {
      return try ProcessRunner.run(
        "timeout", ["-s", "KILL", "\(seconds)", program] + arguments, environment: clean,
        currentDirectory: currentDirectory)
    }
    return try ProcessRunner.run(program, arguments, environment: clean, currentDirectory: currentDirectory)
  }

  /// The "<label> <hex address>" lines a fixture prints, in order.
  static func addresses(_ output: String) -> [(label: String, address: UInt64)] {
    output.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ")
      guard parts.count == 2, parts[1].hasPrefix("0x"), let address = UInt64(parts[1].dropFirst(2), radix: 16)
      else { return nil }
      return (String(parts[0]), address)
    }
  }

  /// The addresses a fixture printed under `label`.
  static func addresses(_ output: String, labelled label: String) -> [UInt64] {
    addresses(output).filter { $0.label == label }.map(\.address)
  }

  /// The trace files in `directory`, sorted by name.
  static func traces(in directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.contains(".trace") }.sorted().map { directory.file($0) }
  }

  /// Runs the built `orderfile` tool (build it first into the same scratch path:
  /// `swift build --product orderfile`), failing with that advice when it is missing.
  static func orderfile(_ arguments: [String]) throws -> ProcessResult {
    let executable = PackagePaths.orderfileExecutable
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw TestSupportError("no orderfile tool at \(executable): run swift build --product orderfile first")
    }
    return try ProcessRunner.run(executable, arguments)
  }

  /// Lines of `text` that start with `prefix`.
  static func lines(_ text: String, startingWith prefix: String) -> [Substring] {
    text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
  }
}

extension Trace {
  /// The index of the main executable's module entry.
  var mainModule: Int? { modules.first(where: \.isMainExecutable)?.index }

  /// Addresses recorded for `module`, in record order.
  func addresses(inModule module: Int) -> [UInt64] {
    records.filter { $0.module == module }.map(\.address)
  }
}

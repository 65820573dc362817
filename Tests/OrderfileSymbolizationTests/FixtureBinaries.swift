import Foundation
import OrderfileSupport
import _OrderfileTestSupport

/// One way of building the C fixtures in `Tests/Fixtures/symbolization`.
struct FixtureVariant: Sendable, CustomStringConvertible {
  enum Compiler: Sendable { case clang, gcc }

  var name: String
  var compiler: Compiler
  var flags: [String]
  /// A shared library (no `main.c`) rather than an executable.
  var isLibrary = false
  /// Built with `-ffunction-sections` and linked with GNU ld's `--unique=.text.*`, so each
  /// function keeps its own `.text.<name>` section in the output.
  var keepsFunctionSections = false
  /// Built at -O0, where a function's first row in the line table is its opening line.
  var unoptimized = true
  var dwarfVersion: Int

  var description: String { name }

  static let all: [FixtureVariant] = [
    FixtureVariant(
      name: "clang-pie-lld-dwarf5", compiler: .clang,
      flags: ["-g", "-O0", "-fPIE", "-pie", "-fuse-ld=lld", "-Wl,--build-id"], dwarfVersion: 5),
    FixtureVariant(
      name: "clang-shared-function-sections-dwarf4", compiler: .clang,
      flags: [
        "-g", "-gdwarf-4", "-O1", "-fPIC", "-shared", "-ffunction-sections", "-fuse-ld=lld",
        "-Wl,--build-id",
      ],
      isLibrary: true, unoptimized: false, dwarfVersion: 4),
    FixtureVariant(
      name: "gcc-pie-dwarf5", compiler: .gcc,
      flags: ["-g", "-O0", "-fPIE", "-pie", "-Wl,--build-id"], dwarfVersion: 5),
    FixtureVariant(
      name: "gcc-shared-unique-sections-dwarf4", compiler: .gcc,
      flags: [
        "-g", "-gdwarf-4", "-O1", "-fPIC", "-shared", "-ffunction-sections",
        "-Wl,--unique=.text.*", "-Wl,--build-id",
      ],
      isLibrary: true, keepsFunctionSections: true, unoptimized: false, dwarfVersion: 4),
    FixtureVariant(
      name: "gcc-non-pie-dwarf4", compiler: .gcc,
      flags: ["-g", "-gdwarf-4", "-O0", "-no-pie", "-Wl,--build-id"], dwarfVersion: 4),
    FixtureVariant(
      name: "clang-pie-unique-sections-dwarf5", compiler: .clang,
      flags: [
        "-g", "-O0", "-fPIE", "-pie", "-ffunction-sections", "-fuse-ld=bfd",
        "-Wl,--unique=.text.*", "-Wl,--build-id",
      ],
      keepsFunctionSections: true, dwarfVersion: 5),
  ]
}

/// Builds fixture binaries once per test process, into a directory that lives as long as it.
enum FixtureBinaries {
  static var sources: String { PackagePaths.fixtures + "/symbolization" }

  private static let directory = Locked<TemporaryDirectory?>(nil)
  private static let built = Locked<[String: String]>([:])

  /// The directory all fixture binaries go to.
  static func outputDirectory() throws -> String {
    try directory.withLock { directory in
      if let directory { return directory.path }
      let created = try TemporaryDirectory("orderfile-symbolization")
      directory = created
      // Statics are never deinitialised: remove the binaries when the test process exits.
      atexit { FixtureBinaries.removeOutputDirectory() }
      return created.path
    }
  }

  private static func removeOutputDirectory() {
    directory.withLock { $0?.remove() }
  }

  /// The binary of `variant`, built on first use.
  static func path(for variant: FixtureVariant) throws -> String {
    let sourceFiles = (variant.isLibrary ? [] : ["main.c"]) + ["located.c", "other.c"]
    return try build(
      variant.name + (variant.isLibrary ? ".so" : ""), compiler: compilerPath(variant.compiler),
      arguments: variant.flags + sourceFiles.map { sources + "/" + $0 })
  }

  /// The C++ fixture built by `compiler`.
  static func widget(_ compiler: FixtureVariant.Compiler) throws -> String {
    let driver = compiler == .clang ? Toolchain.clang + "++" : ProcessRunner.resolve("g++")
    return try build(
      "widget-\(compiler)", compiler: driver,
      arguments: ["-g", "-O0", "-Wl,--build-id", sources + "/widget.cpp"])
  }

  /// Compiles `arguments` into `name` in the output directory, once.
  static func build(_ name: String, compiler: String, arguments: [String]) throws -> String {
    let output = try outputDirectory() + "/" + name
    return try built.withLock { built in
      if let path = built[name] { return path }
      try runChecked(compiler, arguments + ["-o", output])
      built[name] = output
      return output
    }
  }

  static func compilerPath(_ compiler: FixtureVariant.Compiler) -> String {
    compiler == .clang ? Toolchain.clang : Toolchain.gcc
  }

  /// The 1-based line of the first line of `file` (in the fixtures) that contains `text`.
  static func line(containing text: String, in file: String) throws -> Int {
    let lines = try FileReading.text(atPath: sources + "/" + file).split(
      separator: "\n", omittingEmptySubsequences: false)
    guard let index = lines.firstIndex(where: { $0.contains(text) }) else {
      throw TestSupportError("'\(text)' is not in \(file)")
    }
    return index + 1
  }
}

/// One line of `nm -f sysv`.
struct NMSymbol: Hashable {
  var name: String
  var address: UInt64
  var size: UInt64
  var type: String
  var section: String

  /// The defined function symbols of `path`, as GNU nm lists them.
  static func functions(of path: String) throws -> [NMSymbol] {
    let output = try runChecked(Toolchain.nm, ["-f", "sysv", "--defined-only", path]).standardOutput
    return output.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: "|", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
      guard fields.count == 7, let address = UInt64(fields[1], radix: 16) else { return nil }
      // nm prints STT_GNU_IFUNC as "<OS specific>: 10".
      let type = fields[3] == "<OS specific>: 10" ? "IFUNC" : fields[3]
      guard type == "FUNC" || type == "IFUNC" else { return nil }
      return NMSymbol(
        name: fields[0], address: address, size: UInt64(fields[4], radix: 16) ?? 0, type: type,
        section: fields[6])
    }
  }
}

/// Facts about a binary from binutils, to check the symbolizer against.
enum BinutilsFacts {
  /// The build-id `readelf -n` prints, if any.
  static func buildID(of path: String) throws -> String? {
    let output = try runChecked(ProcessRunner.resolve("readelf"), ["-n", path]).standardOutput
    for line in output.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("Build ID:") {
        return trimmed.dropFirst("Build ID:".count).trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  /// Section names and the alignments (`Al`) of the sections of that name, from `readelf -SW`.
  static func sectionAlignments(of path: String) throws -> [String: Set<UInt64>] {
    let output = try runChecked(ProcessRunner.resolve("readelf"), ["-SW", path]).standardOutput
    var result = [String: Set<UInt64>]()
    for line in output.split(separator: "\n") {
      guard let close = line.firstIndex(of: "]"), line.contains("[") else { continue }
      let fields = line[line.index(after: close)...].split(separator: " ")
      guard fields.count >= 2, let last = fields.last, let alignment = UInt64(last) else {
        continue
      }
      result[String(fields[0]), default: []].insert(alignment)
    }
    return result
  }

  /// The section names of `path`.
  static func sectionNames(of path: String) throws -> Set<String> {
    Set(try sectionAlignments(of: path).keys)
  }

  /// The DWARF versions of the compile units, from `readelf --debug-dump=info`.
  static func dwarfVersions(of path: String) throws -> Set<Int> {
    let output = try runChecked(
      ProcessRunner.resolve("readelf"), ["--debug-dump=info", path]
    ).standardOutput
    var versions = Set<Int>()
    for line in output.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("Version:"),
        let version = Int(trimmed.dropFirst("Version:".count).trimmingCharacters(in: .whitespaces))
      {
        versions.insert(version)
      }
    }
    return versions
  }
}

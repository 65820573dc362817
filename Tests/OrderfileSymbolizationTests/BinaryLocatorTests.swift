import Foundation
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("BinaryLocator")
struct BinaryLocatorTests {
  private func fixture(_ name: String) throws -> (path: String, buildID: BuildID) {
    let variant = try #require(FixtureVariant.all.first { $0.name == name })
    let path = try FixtureBinaries.path(for: variant)
    return (path, try #require(try BinaryLocator.buildID(ofFileAt: path)))
  }

  private func copy(_ source: String, to destination: String) throws {
    try FileManager.default.createDirectory(
      atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true
    )
    try FileManager.default.copyItem(atPath: source, toPath: destination)
  }

  @Test("the recorded path is used when its build-id matches")
  func byPath() throws {
    let (path, id) = try fixture("gcc-pie-dwarf5")
    #expect(
      try BinaryLocator.locate(recordedPath: path, buildID: id, searchDirectories: []) == path)
    #expect(
      try BinaryLocator.locate(recordedPath: path, buildID: nil, searchDirectories: []) == path)
  }

  @Test("a file with the build-id is found in a search directory, whatever its name")
  func byBuildIDInDirectory() throws {
    let (path, id) = try fixture("gcc-pie-dwarf5")
    let (other, _) = try fixture("clang-pie-lld-dwarf5")
    let directory = try TemporaryDirectory()
    try "not elf".write(toFile: directory.file("notes.txt"), atomically: true, encoding: .utf8)
    try copy(other, to: directory.file("another-program"))
    try copy(path, to: directory.file("renamed"))
    let found = try BinaryLocator.locate(
      recordedPath: "/nonexistent/program", buildID: id,
      searchDirectories: ["/nonexistent-directory", directory.path])
    #expect(found == directory.file("renamed"))
  }

  @Test("a search entry may be the file itself")
  func searchEntryIsAFile() throws {
    let (path, id) = try fixture("gcc-pie-dwarf5")
    #expect(
      try BinaryLocator.locate(
        recordedPath: "/nonexistent/program", buildID: id, searchDirectories: [path])
        == path)
  }

  @Test("the .build-id layout of debug directories is searched", arguments: ["", ".debug"])
  func buildIDLayout(suffix: String) throws {
    let (path, id) = try fixture("clang-pie-lld-dwarf5")
    let directory = try TemporaryDirectory()
    let hex = id.description
    let target = directory.file(".build-id/\(hex.prefix(2))/\(hex.dropFirst(2))\(suffix)")
    try copy(path, to: target)
    let found = try BinaryLocator.locate(
      recordedPath: "/nonexistent/program", buildID: id, searchDirectories: [directory.path])
    #expect(found == target)
  }

  @Test("a rebuilt binary at the recorded path is never used silently")
  func mismatch() throws {
    let (path, _) = try fixture("clang-pie-lld-dwarf5")
    let (_, otherID) = try fixture("gcc-pie-dwarf5")
    let recordedID = try #require(try BinaryLocator.buildID(ofFileAt: path))
    #expect(
      throws: SymbolizationError.buildIDMismatch(path: path, expected: otherID, found: recordedID)
    ) {
      try BinaryLocator.locate(recordedPath: path, buildID: otherID, searchDirectories: [])
    }
    do {
      _ = try BinaryLocator.locate(recordedPath: path, buildID: otherID, searchDirectories: [])
    } catch {
      #expect(error.localizedDescription.contains(path))
      #expect(error.localizedDescription.contains(otherID.description))
    }
  }

  @Test("a mismatch at the recorded path is fine when a search directory has the right build")
  func mismatchResolvedBySearch() throws {
    let (path, _) = try fixture("clang-pie-lld-dwarf5")
    let (otherPath, otherID) = try fixture("gcc-pie-dwarf5")
    let directory = try TemporaryDirectory()
    try copy(otherPath, to: directory.file((path as NSString).lastPathComponent))
    let found = try BinaryLocator.locate(
      recordedPath: path, buildID: otherID, searchDirectories: [directory.path])
    #expect(found == directory.file((path as NSString).lastPathComponent))
  }

  @Test("nothing found lists where it looked")
  func notFound() throws {
    let (_, id) = try fixture("gcc-pie-dwarf5")
    let directory = try TemporaryDirectory()
    let expected = SymbolizationError.binaryNotFound(
      path: "/nonexistent/program", buildID: id, searched: [directory.path])
    #expect(throws: expected) {
      try BinaryLocator.locate(
        recordedPath: "/nonexistent/program", buildID: id, searchDirectories: [directory.path])
    }
    #expect(expected.localizedDescription.contains(directory.path))
    #expect(expected.localizedDescription.contains(id.description))
  }

  @Test("without a build-id, a search directory matches by name")
  func noBuildIDMatchesByName() throws {
    let (path, _) = try fixture("gcc-pie-dwarf5")
    let directory = try TemporaryDirectory()
    try copy(path, to: directory.file("program"))
    try copy(path, to: directory.file("decoy"))
    let found = try BinaryLocator.locate(
      recordedPath: "/moved/away/program", buildID: nil, searchDirectories: [directory.path])
    #expect(found == directory.file("program"))
  }

  @Test("a file without a build-id note reads as nil")
  func noBuildIDNote() throws {
    let directory = try TemporaryDirectory()
    let output = directory.file("no-build-id")
    try runChecked(
      Toolchain.gcc,
      [
        "-Wl,--build-id=none", FixtureBinaries.sources + "/main.c",
        FixtureBinaries.sources + "/located.c", FixtureBinaries.sources + "/other.c", "-o", output,
      ])
    #expect(try BinaryLocator.buildID(ofFileAt: output) == nil)
    #expect(try ELFSymbolizer(path: output).buildID == nil)
  }

  @Test("the resolver finds a module's binary in its search paths and opens each file once")
  func resolverOpensOnce() throws {
    let (path, id) = try fixture("gcc-pie-dwarf5")
    let directory = try TemporaryDirectory()
    try copy(path, to: directory.file("moved"))
    final class Count: @unchecked Sendable { var value = 0 }
    let opens = Count()
    let resolver = BinaryResolver(searchPaths: [directory.path]) {
      opens.value += 1
      return try ELFSymbolizer(path: $0)
    }
    let first = try resolver.symbolizer(recordedPath: "/nonexistent/program", buildID: id.bytes)
    let second = try resolver.symbolizer(recordedPath: "/nonexistent/program", buildID: id.bytes)
    #expect(first.path == directory.file("moved"))
    #expect(first === second)
    #expect(opens.value == 1)
    // No recorded build-id: the recorded path is taken as it is.
    #expect(try resolver.locate(recordedPath: path, buildID: []) == path)
  }
}

@Suite("BinaryLocator.isInstrumented")
struct InstrumentedBinaryTests {
  @Test(
    "a program that calls the hooks is instrumented, whether they are its own or a library's; a plain one is not",
    arguments: [
      ("-finstrument-functions", true, "void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; }"),
      ("-finstrument-functions", true, ""),
      ("", false, "void __cyg_profile_func_entered(void) {}"),
    ])
  func instrumented(flag: String, expected: Bool, extra: String) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let source = directory.file("app.c")
    // The runtime's hooks, defined in the program (a static runtime) or left for the loader;
    // a name that only begins like a hook is no hook.
    try """
    \(extra)
    __attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; }
    int work(int x) { return x * 2; }
    int main(int argc, char **argv) { (void)argv; return work(argc); }
    """.write(toFile: source, atomically: true, encoding: .utf8)
    let binary = directory.file("app")
    var arguments = [source, "-o", binary, "-Wl,--unresolved-symbols=ignore-all"]
    if !flag.isEmpty { arguments.insert(flag, at: 0) }
    try runChecked(Toolchain.clang, arguments)
    #expect(try BinaryLocator.isInstrumented(fileAt: binary) == expected)
  }
}

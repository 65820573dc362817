import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

/// Reads the initializer tables of real C++ builds and compares them with the order in which
/// the constructors actually ran: the fixture prints each constructor's name as it runs.
@Suite struct StaticInitializerTests {
  struct Build: Sendable, CustomStringConvertible {
    var compiler: String
    var flags: [String]
    var description: String { ((compiler as NSString).lastPathComponent) + " " + flags.joined(separator: " ") }
  }

  static let builds: [Build] = {
    let clang = Toolchain.llvmBin + "/clang++"
    var builds: [Build] = []
    for compiler in ["g++", clang] {
      builds += [
        Build(compiler: compiler, flags: ["-fPIE", "-pie"]),
        Build(compiler: compiler, flags: ["-no-pie"]),
        Build(compiler: compiler, flags: ["-fPIE", "-pie", "-fuse-ld=lld"]),
        Build(compiler: compiler, flags: ["-fPIE", "-pie", "-fuse-ld=lld", "-Wl,-z,pack-relative-relocs"]),
      ]
    }
    return builds
  }()

  static let source = PackagePaths.fixtures + "/initializers/initializers.cpp"

  /// What a constructor prints, for the fixture's own initializers; nil for the C runtime's.
  static func printedName(_ function: FunctionSymbol?) -> String? {
    guard let name = function?.name else { return nil }
    if name.hasPrefix("_GLOBAL__sub_I_") { return "global_object" }
    return ["early_constructor", "late_constructor"].contains(name) ? name : nil
  }

  @Test(arguments: builds)
  func matchesTheOrderTheyRan(_ build: Build) throws {
    let directory = try TemporaryDirectory("orderfile-initializers")
    defer { directory.remove() }
    let binary = directory.file("initializers")
    try runChecked(ProcessRunner.resolve(build.compiler), ["-O2", "-g"] + build.flags + [Self.source, "-o", binary])
    let ran = try runChecked(binary, []).standardOutput.split(separator: "\n").map(String.init)
    #expect(ran.last == "main")

    let initializers = try ELFSymbolizer(path: binary).staticInitializers()
    #expect(initializers.allSatisfy { $0.function != nil }, "unresolved: \(initializers)")
    #expect(initializers.first?.source == .initFunction)
    #expect(initializers.first?.function?.name == "_init")
    let read = initializers.compactMap { Self.printedName($0.function) }
    #expect(read == Array(ran.dropLast()), "read \(initializers.map { $0.function?.name ?? "?" })")
    #expect(initializers.contains { $0.function?.name == "frame_dummy" })
  }

  @Test func sharedLibraryInitializers() throws {
    let directory = try TemporaryDirectory("orderfile-initializers")
    defer { directory.remove() }
    let library = directory.file("libinitializers.so")
    try runChecked(
      Toolchain.llvmBin + "/clang++",
      ["-O2", "-fPIC", "-shared", "-DLIBRARY", "-fuse-ld=lld", Self.source, "-o", library])
    let names = try ELFSymbolizer(path: library).staticInitializers().compactMap { Self.printedName($0.function) }
    #expect(names == ["early_constructor", "late_constructor", "global_object"])
  }

  @Test func strippedBinaryStillListsAddresses() throws {
    let directory = try TemporaryDirectory("orderfile-initializers")
    defer { directory.remove() }
    let binary = directory.file("initializers")
    try runChecked("g++", ["-O2", "-s", Self.source, "-o", binary])
    let initializers = try ELFSymbolizer(path: binary).staticInitializers()
    #expect(initializers.filter { $0.source == .initArray }.count >= 4)
    #expect(initializers.allSatisfy { $0.function == nil && $0.address != 0 })
  }
}

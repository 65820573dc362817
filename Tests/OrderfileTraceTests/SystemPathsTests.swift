import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileTrace

/// `orderfile_system_paths.h`: the one definition of the system's and the toolchains'
/// library folders, which the in-process recorder and the page probe compile and the tool
/// imports.
@Suite("System paths")
struct SystemPathsTests {
  enum Kind: String { case library, program, other }

  /// Paths and what they are: the decisions the header documents.
  static let table: [(path: String, kind: Kind)] = [
    ("/lib/x86_64-linux-gnu/libc.so.6", .library),
    ("/lib64/ld-linux-x86-64.so.2", .library),
    ("/lib32/libc.so.6", .library),
    ("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", .library),
    ("/usr/lib32/libstdc++.so.6", .library),
    ("/usr/lib64/libz.so.1", .library),
    ("/usr/lib/gcc/x86_64-linux-gnu/12/cc1", .library),
    ("/opt/swift/usr/lib/swift/linux/libswiftCore.so", .library),
    ("/home/user/.local/share/swiftly/toolchains/6.1/usr/lib/swift/linux/libFoundation.so", .library),
    (
      "/home/user/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/lib/libstd-1a2b.so",
      .library
    ),
    ("/bin/sh", .program),
    ("/usr/bin/make", .program),
    ("/usr/sbin/ldconfig", .program),
    ("/usr/libexec/gcc/x86_64-linux-gnu/12/lto-wrapper", .program),
    // What `make install` puts there is the user's own.
    ("/usr/local/lib/libfoo.so.1", .other),
    ("/usr/local/bin/app", .other),
    ("/opt/vendor/lib/libvendor.so", .other),
    ("/home/user/project/build/libapp.so", .other),
    ("/home/user/project/lib/app", .other),
    ("/library/libx.so", .other),
    ("/usr/libx.so", .other),
    ("", .other),
  ]

  static func swiftKind(_ path: String) -> Kind {
    TraceModule.isSystemLibrary(path: path) ? .library : TraceModule.isSystemFile(path: path) ? .program : .other
  }

  @Test("the tool classifies each path of the table as the header documents")
  func swiftClassification() {
    for (path, kind) in Self.table {
      #expect(Self.swiftKind(path) == kind, "\(path)")
    }
  }

  @Test(
    "a C program compiled against the header, as the recorders are, classifies every path as the tool does",
    arguments: ["gcc", "clang"])
  func cAgreesWithSwift(compiler: String) throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    let program = work.file("system_paths-\(compiler)")
    try runChecked(
      compiler == "gcc" ? Toolchain.gcc : Toolchain.clang,
      [
        "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", PackagePaths.traceFormatInclude,
        PackagePaths.fixtures + "/system_paths/system_paths.c", "-o", program,
      ])
    // The lists' own entries and the table, each also without its first character, with a
    // suffix and inside a longer path, so that prefix and substring rules are both probed.
    let lists =
      TraceModule.systemLibraryDirectories + TraceModule.toolchainLibraryFolders
      + TraceModule.systemProgramDirectories
    let paths = (lists + Self.table.map(\.path)).flatMap { [$0, String($0.dropFirst()), $0 + "x.so", "/opt" + $0] }
    let lines = try runChecked(program, paths).standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
    let cKinds = lines.prefix(paths.count).map { line in
      Kind(rawValue: String(line.prefix { $0 != " " }))
    }
    #expect(cKinds.count == paths.count)
    for (path, cKind) in zip(paths, cKinds) {
      #expect(cKind == Self.swiftKind(path), "\(path): C says \(cKind.map(\.rawValue) ?? "nothing")")
    }
  }

  @Test("the page probe watches the program's own library, not a toolchain's runtime: the tool's classification")
  func pageProbeAgrees() throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    // A toolchain lies wherever it was unpacked: here, inside the test's own folder.
    let own = work.file("own")
    let toolchain = work.file("toolchain/usr/lib/swift/linux")
    for folder in [own, toolchain] {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    try "int own_call(void) { return 1; }\n".write(toFile: work.file("own.c"), atomically: true, encoding: .utf8)
    try "int toolchain_call(void) { return 1; }\n".write(
      toFile: work.file("toolchain.c"), atomically: true, encoding: .utf8)
    try "int own_call(void); int toolchain_call(void);\nint main(void) { return own_call() + toolchain_call() - 2; }\n"
      .write(toFile: work.file("main.c"), atomically: true, encoding: .utf8)
    try runChecked(Toolchain.clang, ["-O2", "-fPIC", "-shared", work.file("own.c"), "-o", own + "/libown.so"])
    try runChecked(
      Toolchain.clang, ["-O2", "-fPIC", "-shared", work.file("toolchain.c"), "-o", toolchain + "/libtoolchain.so"])
    let program = work.file("program")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", work.file("main.c"), "-o", program, "-L", own, "-L", toolchain, "-lown", "-ltoolchain",
        "-Wl,-rpath,\(own):\(toolchain)",
      ])
    let watched = try TouchedPages.watchedModules(running: program, in: work)
    let libraries = [own + "/libown.so", toolchain + "/libtoolchain.so"]
    for library in libraries {
      #expect(
        watched.contains(library) == !TraceModule.isSystemLibrary(path: library),
        "\(library): watched \(watched.contains(library)), a system library for the tool \(TraceModule.isSystemLibrary(path: library))"
      )
    }
    #expect(watched.contains(libraries[0]) && !watched.contains(libraries[1]), "watched: \(watched)")
  }

  @Test("no file under Sources but the header spells an entry of its lists")
  func oneDefinition() throws {
    let lists =
      TraceModule.systemLibraryDirectories + TraceModule.toolchainLibraryFolders
      + TraceModule.systemProgramDirectories
    try #require(lists.count >= 10, "the header's lists read from Swift: \(lists)")
    let header = "OrderfileTraceFormat/include/orderfile_system_paths.h"
    let copies = try PackagePaths.sourcesSpelling(lists, besides: header)
    #expect(copies.isEmpty, "the system paths are defined in \(header) only:\n\(copies.joined(separator: "\n"))")
  }
}

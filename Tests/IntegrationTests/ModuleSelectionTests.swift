import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// `record --include-module` and `--exclude-module`: which libraries are armed, by name or path.
@Suite("record: modules included and excluded by name or path")
struct ModuleSelectionTests {
  @Test("an excluded library of the program's own is not recorded; an included toolchain library is")
  func includeAndExclude() throws {
    let work = try TemporaryDirectory("orderfile-modules")
    defer { work.remove() }
    try AtomicFile.write("int plugin_work(int x) { return x * 3; }\n", to: work.file("plugin.c"))
    try AtomicFile.write("int toolkit_work(int x) { return x + 5; }\n", to: work.file("toolkit.c"))
    try AtomicFile.write(
      """
      #include <stdlib.h>
      int plugin_work(int);
      int toolkit_work(int);
      int main(int argc, char **argv) { return plugin_work(toolkit_work(atoi(argc > 1 ? argv[1] : "1"))) == 0; }
      """, to: work.file("main.c"))
    // A library in a toolchain's runtime folder, as libswiftCore.so is: not the user's by default.
    let toolchain = work.file("toolchain/usr/lib/swift/linux")
    try FileManager.default.createDirectory(atPath: toolchain, withIntermediateDirectories: true)
    try runChecked(
      Toolchain.clang, ["-O2", "-g", "-fPIC", "-shared", work.file("plugin.c"), "-o", work.file("libplugin.so")])
    try runChecked(
      Toolchain.clang, ["-O2", "-g", "-fPIC", "-shared", work.file("toolkit.c"), "-o", toolchain + "/libtoolkit.so"])
    let app = work.file("app")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", work.file("main.c"), "-L", work.path, "-lplugin", "-L", toolchain, "-ltoolkit",
        "-Wl,-rpath," + work.path + ":" + toolchain, "-o", app,
      ])

    func modulesWithCalls(_ extra: [String]) throws -> (names: Set<String>, stderr: String) {
      let trace = work.file("launch.trace")
      let result = try orderfile(["record", "-o", trace] + extra + ["--", app])
      #expect(result.status == 0, "\(result.standardError)")
      let read = try TraceReader.read(path: trace)
      let used = Set(read.records.map(\.module))
      return (
        Set(read.modules.filter { used.contains($0.index) }.map { PathName.split($0.path).base }), result.standardError
      )
    }
    let plain = try modulesWithCalls([])
    #expect(plain.names.contains("libplugin.so") && !plain.names.contains("libtoolkit.so"), "\(plain.names)")
    let excluded = try modulesWithCalls(["--exclude-module", "libplugin.so"])
    #expect(!excluded.names.contains("libplugin.so"), "\(excluded.names)")
    #expect(excluded.stderr.contains("not recorded, as --exclude-module asked: libplugin.so"), "\(excluded.stderr)")
    let byFolder = try modulesWithCalls(["--exclude-module", work.path])
    #expect(!byFolder.names.contains("libplugin.so") && byFolder.names.contains("app"), "\(byFolder.names)")
    let included = try modulesWithCalls(["--include-module", toolchain + "/"])
    #expect(included.names.contains("libtoolkit.so"), "\(included.names)")
  }

  @Test(
    "--include-module records a system library by its SONAME, its real file's name, either path or its folder",
    .enabled(if: SystemZlib.folder != nil, SystemZlib.skipReason),
    arguments: ["in-process", "tracer"])
  func systemLibraryBySpelling(recorder: String) throws {
    let folder = try #require(SystemZlib.folder)
    let work = try TemporaryDirectory("orderfile-include-system")
    defer { work.remove() }
    let app = try SystemZlib.program(in: work)
    let real = URL(fileURLWithPath: folder + "/libz.so.1").resolvingSymlinksInPath().path
    // Debian's merged /usr: the loader finds /lib/<triple>/libz.so.1; /usr/lib/<triple>/ is
    // the same folder by another path.
    let otherFolder = folder.hasPrefix("/usr/") ? String(folder.dropFirst(4)) : "/usr" + folder
    var spellings = ["libz.so.1", PathName.split(real).base, folder + "/libz.so.1"]
    if URL(fileURLWithPath: otherFolder + "/libz.so.1").resolvingSymlinksInPath().path == real {
      spellings += [otherFolder + "/libz.so.1", otherFolder + "/"]
    }
    for spelling in spellings {
      let trace = work.file("launch.trace")
      let result = try orderfile([
        "record", "-q", "-o", trace, "--recorder", recorder, "--include-module", spelling, "--until", "adler32",
        "--", app,
      ])
      #expect(result.status == 0, "\(spelling): \(result.standardError)")
      #expect(!result.standardError.contains("named no function"), "\(spelling): \(result.standardError)")
      let read = try TraceReader.read(path: trace)
      let zlib = read.modules.filter { URL(fileURLWithPath: $0.path).resolvingSymlinksInPath().path == real }.map(
        \.index)
      #expect(read.records.contains { zlib.contains($0.module) }, "\(spelling): \(read.modules.map(\.path))")
    }
  }

  @Test(
    "--system-libraries warns once, in one line, of the system libraries that have only dynamic symbols",
    .enabled(if: SystemZlib.folder != nil, SystemZlib.skipReason))
  func systemLibrarySummary() throws {
    let work = try TemporaryDirectory("orderfile-system-summary")
    defer { work.remove() }
    let app = try SystemZlib.program(in: work)
    let result = try orderfile(["record", "-q", "-o", work.file("launch.trace"), "--system-libraries", "--", app])
    #expect(result.status == 0, "\(result.standardError)")
    let lines = result.standardError.split(separator: "\n").filter { $0.contains("dynamic symbols") }
    // libz ships stripped: it is one of them, named in the one line.
    #expect(lines.count == 1, "\(result.standardError)")
    #expect(
      lines.first.map {
        $0.hasPrefix("orderfile: warning: ") && $0.contains("system librar") && $0.contains("libz.so.1")
      }
        == true, "\(result.standardError)")
  }
}

/// The system's zlib (libdw, which the tool needs, depends on it), and a program that calls it.
enum SystemZlib {
  /// The folder of `libz.so.1` as the loader finds it, if it is installed.
  static let folder: String? = ["/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/lib64", "/lib"].first {
    FileManager.default.fileExists(atPath: $0 + "/libz.so.1")
  }

  static let skipReason: Comment = "libz.so.1 is not installed (zlib1g): skipped"

  /// A program linked against `libz.so.1` that calls two of its functions at launch.
  static func program(in work: TemporaryDirectory) throws -> String {
    try AtomicFile.write(
      """
      const char *zlibVersion(void);
      unsigned long adler32(unsigned long, const unsigned char *, unsigned);
      int main(void) { return zlibVersion()[0] == 0 || adler32(1, (const unsigned char *)"abc", 3) == 0; }
      """, to: work.file("zapp.c"))
    let app = work.file("zapp")
    try runChecked(Toolchain.clang, ["-O2", work.file("zapp.c"), "-L", folder ?? "/lib", "-l:libz.so.1", "-o", app])
    return app
  }
}

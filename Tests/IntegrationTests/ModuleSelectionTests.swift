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
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The GUI app the app workflow is checked with (Tests/Fixtures/gtkapp): a GTK3 app that never
/// exits, its code in a shared library of its own, run headless under Xvfb.
@Suite(
  "GUI app: a GTK3 app with its code in a library of its own, under Xvfb",
  .enabled(if: GtkDemo.unavailable == nil, Comment(rawValue: GtkDemo.unavailable ?? "")))
struct AppTests {
  @Test("the app's code is in libgtkdemo.so.0, a link to the real file, with constructors of its own; a plugin")
  func layout() throws {
    let demo = try GtkDemo.shared()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: demo.library) == "libgtkdemo.so.0.0.0")
    let dynamic = try runChecked("readelf", ["-dW", demo.libraryRealFile]).standardOutput
    #expect(dynamic.contains("Library soname: [\(GtkDemo.soname)]"), "\(dynamic)")
    #expect(try runChecked("readelf", ["-dW", demo.executable]).standardOutput.contains("[\(GtkDemo.soname)]"))

    let library = try textSymbolsInAddressOrder(demo.libraryRealFile)
    #expect(library.count >= 300, "a few hundred functions in the library: \(library.count)")
    for name in [GtkDemo.launchEnd, "gtkdemo_run", "gtkdemo_settings_load", "gtkdemo_catalog_register"] {
      #expect(library.contains(name), "\(name) is in the library")
    }
    let executable = try textSymbolsInAddressOrder(demo.executable)
    #expect(executable.contains("main") && !executable.contains(GtkDemo.launchEnd), "\(executable)")
    // .init_array holds the library's two constructors and the C runtime's frame_dummy: a
    // compiler that evaluates a constructor at build time (LLVM does when it can) drops it.
    let sections = try runChecked("readelf", ["-SW", demo.libraryRealFile]).standardOutput
    let initArray = try #require(sections.split(separator: "\n").first { $0.contains(".init_array") })
    let fields = initArray.split(separator: " ")
    let size = try #require(
      fields.firstIndex { $0.hasSuffix(".init_array") }.flatMap { Int(fields[$0 + 4], radix: 16) })
    #expect(size >= 3 * 8, "\(initArray)")
  }

  @Test("a plain launch under Xvfb reaches gtkdemo_launch_done within 10 s, then keeps running until killed")
  func plainLaunch() throws {
    let demo = try GtkDemo.shared()
    let work = try TemporaryDirectory("orderfile-gtkapp")
    defer { work.remove() }
    let display = try VirtualDisplay()
    defer { display.stop() }

    let launch = try demo.launch(on: display, in: work)
    #expect(launch.waitForLaunchEnd(upTo: .seconds(10)), "no launch end within 10 s:\n\(launch.process.output)")
    #expect(launch.appPID == launch.process.child.pid)
    // The plugin was loaded by the launch.
    let maps = (try? FileReading.text(atPath: "/proc/\(launch.process.child.pid)/maps")) ?? ""
    #expect(maps.contains(demo.plugin), "the plugin is not mapped:\n\(launch.process.output)")
    // An app never exits by itself: it is still there a moment after its launch.
    Thread.sleep(forTimeInterval: 0.2)
    #expect(launch.process.exitStatus == nil, "the app exited:\n\(launch.process.output)")
    let ended = launch.stop()
    #expect(ended.signal == SIGTERM, "\(ended)")
    #expect(launch.process.output.contains(GtkDemo.launchEndLine), "\(launch.process.output)")
    #expect(BackgroundProcess.processes(running: demo.executable).isEmpty)
  }

  @Test("ORDER_LIB orders the library's link only: the order leads its text, the executable is unchanged")
  func libraryOrderOnly() throws {
    let demo = try GtkDemo.shared()
    let work = try TemporaryDirectory("orderfile-gtkapp-order")
    defer { work.remove() }
    let order = ["gtkdemo_launch_done", "gtkdemo_catalog_register", "gtkdemo_run"]
    try AtomicFile.write(order.joined(separator: "\n") + "\n", to: work.file("lib.order"))

    let ordered = try demo.relinked(into: work.file("ordered"), orderLibrary: work.file("lib.order"))
    #expect(!ordered.buildMessages.contains("warning"), "\(ordered.buildMessages)")
    let library = try textSymbolsInAddressOrder(ordered.libraryRealFile)
    #expect(Array(library.prefix(order.count)) == order, "\(library.prefix(5))")
    #expect(try textSymbolsInAddressOrder(demo.libraryRealFile).prefix(order.count) != order[...])
    let before = try FileReading.bytes(atPath: demo.executable)
    #expect(try FileReading.bytes(atPath: ordered.executable) == before, "the executable was linked with the order")
  }
}

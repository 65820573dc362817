import Foundation
import OrderfileOrdering
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Writing orderfiles to their destination")
struct OrderfileWriterTests {
  let modules = [
    ModuleOrderfile(modulePath: "/app/bin/app", moduleIndex: 0, text: "main\n"),
    ModuleOrderfile(modulePath: "/app/lib/libui.so", moduleIndex: 1, text: "ui_init\n"),
    ModuleOrderfile(modulePath: "/app/plugins/libui.so", moduleIndex: 3, text: "plugin_init\n"),
  ]

  @Test("a module's orderfile is named after its file; a second module of the same name gets -<index>")
  func fileNames() {
    #expect(
      OrderfileWriter.fileNames(modules.map { ($0.modulePath, $0.moduleIndex) }) == ["app", "libui.so", "libui.so-3"])
    #expect(OrderfileWriter.fileNames([("", 2), ("/x/", 5)]) == ["-2", "x"])
  }

  @Test("a directory gets one file per module, made with its parents")
  func directory() throws {
    let directory = try TemporaryDirectory()
    let orders = directory.file("out/orders")
    let written = try OrderfileWriter(format: .lld, destination: .directory(orders)).write(modules)
    #expect(written.paths == [orders + "/app.order", orders + "/libui.so.order", orders + "/libui.so-3.order"])
    #expect(written.standardOutput == nil)
    #expect(try FileReading.text(atPath: orders + "/libui.so-3.order") == "plugin_init\n")
  }

  @Test("one file or stdout takes exactly one module; several are a usage error naming them")
  func single() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.order")
    let written = try OrderfileWriter(format: .lld, destination: .file(path)).write([modules[0]])
    #expect(written.paths == [path])
    #expect(try FileReading.text(atPath: path) == "main\n")
    #expect(
      try OrderfileWriter(format: .lld, destination: .standardOutput).write([modules[1]]).standardOutput == "ui_init\n")
    #expect(throws: OrderingError.severalModules(names: ["app", "libui.so", "libui.so"])) {
      try OrderfileWriter(format: .lld, destination: .file(directory.file("x.order"))).write(modules)
    }
    #expect(!FileManager.default.fileExists(atPath: directory.file("x.order")))
  }
}

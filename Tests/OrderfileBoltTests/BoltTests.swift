import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@testable import OrderfileBolt

private func function(_ name: String, _ address: UInt64, aliases: [String] = []) -> FunctionSymbol {
  FunctionSymbol(
    name: name, aliases: aliases, address: address, size: 16, binding: .global, sectionName: ".text",
    sectionAlignment: 16)
}

/// A C program built for the test with clang and lld, with or without relocations, its
/// orderfile, and a stand-in llvm-bolt script.
private struct Fixture {
  let directory: TemporaryDirectory
  let binary: String
  let order: String
  let bolt: String

  init(emitRelocations: Bool, bolt script: String = "exit 3") throws {
    directory = try TemporaryDirectory()
    let source = directory.file("app.c")
    try AtomicFile.write(
      "int helper(int x) { return x * 3; }\nint main(int argc, char **argv) { return helper(argc) == 3 ? 0 : 1; }\n",
      to: source)
    binary = directory.file(emitRelocations ? "app-relocs" : "app")
    try runChecked(
      Toolchain.clang,
      ["-O2", "-ffunction-sections", "-fuse-ld=lld", source, "-o", binary]
        + (emitRelocations ? ["-Wl,--emit-relocs"] : []))
    order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    bolt = directory.file("llvm-bolt")
    try AtomicFile.write(Array("#!/bin/sh\n\(script)\n".utf8), to: bolt, mode: 0o755)
  }

  func optimizer(output: String? = nil, command: [String] = []) -> BoltOptimizer {
    BoltOptimizer(
      binary: binary, order: order, output: output ?? directory.file("app.bolt"), boltPath: bolt, command: command)
  }
}

@Suite("BOLT step")
struct BoltTests {
  @Test("the function order keeps the orderfile's functions, drops absent ones and leaves cold parts to BOLT")
  func functionOrder() {
    let order = Orderfile(
      path: "app.order", text: "# launch\nmain\nparse.cold\nhelper\ngone\nlocal_alias\nparse.part.0\n")
    let functions = [
      function("main", 0x1000), function("helper", 0x1010), function("parse.cold", 0x1020),
      function("local", 0x1030, aliases: ["local_alias"]), function("parse.part.0", 0x1040),
    ]
    let converted = BoltFunctionOrder(order: order, functions: functions)
    #expect(converted.names == ["main", "helper", "local_alias", "parse.part.0"])
    #expect(converted.absent == ["gone"])
    #expect(converted.coldParts == ["parse.cold"])
    #expect(converted.text == "main\nhelper\nlocal_alias\nparse.part.0\n")
  }

  @Test("functions the profile saw run follow the orderfile's, once each, without PLT stubs")
  func profiledFollow() {
    var converted = BoltFunctionOrder(
      order: Orderfile(path: "app.order", text: "main\nparse\n"),
      functions: [function("main", 0x1000), function("parse", 0x1010)])
    converted.follow(
      withFunctionsOf: """
        1 __do_global_dtors_aux/1 b 1 __do_global_dtors_aux/1 d 0 1
        1 parse/1 6 1 parse/1 8 0 1
        1 main 22 1 puts@PLT 0 0 1
        1 main 2e 1 frame_dummy/1 0 0 3
        0 [unknown] 0 1 _start 0 0 1
        no_lbr cycles
        """)
    #expect(converted.profiled == ["__do_global_dtors_aux/1", "frame_dummy/1", "_start"])
    #expect(converted.text == "main\nparse\n__do_global_dtors_aux/1\nframe_dummy/1\n_start\n")
  }

  @Test("a gold orderfile's section names become function names")
  func goldOrder() {
    let order = Orderfile(path: "app.order", text: ".text.main\n.text.hot.main\n.text.helper\n")
    let converted = BoltFunctionOrder(order: order, functions: [function("main", 0x1000), function("helper", 0x1010)])
    #expect(converted.names == ["main", "helper"])
  }

  @Test("an lld script's code without a symbol is absent for BOLT, which knows functions by symbol")
  func scriptOrder() {
    let order = Orderfile(
      path: "app.ld",
      text: OrderfileFormat.lldScript.render([function("main", 0x1000)])
        .replacingOccurrences(of: "(.text.main)\n", with: "(.text.main)\n    *a.o(.text..L__unnamed_1)\n"))
    let unnamed = FunctionSymbol(
      name: "a.o(.text..L__unnamed_1)", address: 0x1010, size: 16, binding: .local, sectionName: ".text",
      hasSymbol: false)
    let converted = BoltFunctionOrder(order: order, functions: [function("main", 0x1000), unnamed])
    #expect(converted.names == ["main"])
    #expect(converted.absent == ["a.o(.text..L__unnamed_1)"])
  }

  @Test("BOLT's summary lines give the profile and split figures; warnings are kept once")
  func summary() {
    let log = """
      BOLT-INFO: 8 out of 12 functions in the binary (66.7%) have non-empty execution profile
      BOLT-WARNING: function order file entry not found: gone
      BOLT-INFO: splitting separates 155 hot bytes from 106 cold bytes (59.39% of split functions is hot).
      BOLT-WARNING: function order file entry not found: gone
      """
    let summary = BoltSummary(log: log)
    #expect(summary.profiledFunctions == 8)
    #expect(summary.binaryFunctions == 12)
    #expect(summary.hotBytes == 155)
    #expect(summary.coldBytes == 106)
    #expect(summary.warnings == ["function order file entry not found: gone"])
    #expect(!summary.oldTextFailed)
    let fallback = BoltSummary(
      log:
        "BOLT-WARNING: --use-old-text failed. The original .text too small to fit the new code using 0x1000 alignment. 32692 bytes needed, have 30534 bytes available."
    )
    #expect(fallback.oldTextFailed)
    #expect(BoltSummary(log: "BOLT-INFO: something else").hotBytes == nil)
  }

  @Test("a --bolt that is no executable and a missing llvm-bolt say what to install")
  func missingTool() throws {
    #expect(throws: BoltError.notExecutable(path: "/nonexistent/llvm-bolt")) {
      try BoltTool.locate(explicit: "/nonexistent/llvm-bolt")
    }
    let message = BoltError.notInstalled(searched: BoltTool.candidateNames).errorDescription ?? ""
    #expect(message.contains("install bolt-22"))
    #expect(message.contains("'llvm-bolt-22'"))
    #expect(BoltError.notInstalled(searched: []).exitStatus == .noInput)
  }

  @Test("merge-fdata is looked for beside llvm-bolt, with the same version suffix")
  func mergeFdata() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let bolt = directory.file("llvm-bolt-22")
    let merge = directory.file("merge-fdata-22")
    for path in [bolt, merge] { try AtomicFile.write(Array("#!/bin/sh\n".utf8), to: path, mode: 0o755) }
    #expect(BoltTool(path: bolt).mergeFdata == merge)
    #expect(BoltTool(path: directory.file("llvm-bolt")).mergeFdata == nil)
  }

  @Test("a binary linked without --emit-relocs is refused with the flag to add")
  func noRelocations() throws {
    // The stand-in llvm-bolt fails: the check must come before anything runs.
    let fixture = try Fixture(emitRelocations: false)
    defer { fixture.directory.remove() }
    #expect(throws: BoltError.noRelocations(binary: fixture.binary)) { try fixture.optimizer().run() }
    let error = BoltError.noRelocations(binary: fixture.binary)
    #expect(
      error.errorDescription
        == "\(fixture.binary): no relocations (no .rela.text section): relink with -Wl,--emit-relocs")
    #expect(error.exitStatus == .dataError)
    #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("app.bolt")))
  }

  @Test("the output may not be the binary, and the command must run the binary")
  func usage() throws {
    let fixture = try Fixture(emitRelocations: true)
    defer { fixture.directory.remove() }
    #expect(throws: BoltError.outputIsInput(path: fixture.binary)) {
      try fixture.optimizer(output: fixture.binary).run()
    }
    #expect(throws: BoltError.commandRunsOtherProgram(program: "/bin/true", binary: fixture.binary)) {
      try fixture.optimizer(command: ["/bin/true"]).run()
    }
    try AtomicFile.write("nothing_here\n", to: fixture.order)
    #expect(throws: BoltError.noOrderedFunction(order: fixture.order, binary: fixture.binary)) {
      try fixture.optimizer().run()
    }
  }

  @Test("a failing llvm-bolt becomes one error with its last line, and leaves no output")
  func boltFails() throws {
    let fixture = try Fixture(emitRelocations: true, bolt: "echo 'BOLT-ERROR: cannot instrument' >&2\nexit 3")
    defer { fixture.directory.remove() }
    #expect(throws: BoltError.boltFailed(step: "instrument", status: 3, message: "BOLT-ERROR: cannot instrument")) {
      try fixture.optimizer().run()
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
    #expect(left.sorted() == ["app.c", "app.order", "app-relocs", "llvm-bolt"].sorted())
  }
}

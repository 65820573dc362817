import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("ModuleFile: one module, whatever path names it")
struct ModuleFileTests {
  static let one = BuildID([1, 2, 3, 4])
  static let two = BuildID([5, 6, 7, 8])

  @Test("a build-id in common beats a real file, which beats a file name")
  func firmestMatch() {
    let given = ModuleFile(path: "/opt/app/lib/libcore.so.0", realPath: nil, buildID: Self.one, soname: "libcore.so.0")
    let candidates = [
      ModuleFile(path: "/build/libcore.so.0", realPath: nil, buildID: Self.two, soname: nil),
      ModuleFile(path: "/elsewhere/libcore.so.0.0.0", realPath: nil, buildID: Self.one, soname: nil),
      ModuleFile(path: "/build/libother.so.1", realPath: nil, buildID: Self.two, soname: nil),
    ]
    #expect(given.match(candidates[0]) == .fileName)
    #expect(given.match(candidates[1]) == .buildID)
    #expect(given.match(candidates[2]) == nil)
    #expect(given.firmest(in: candidates) == [1])
    #expect(given.firmest(in: [candidates[2]]).isEmpty)
    let link = ModuleFile(path: "/b/libcore.so", realPath: "/b/libcore.so.0.0.0", buildID: nil, soname: nil)
    let file = ModuleFile(path: "/a/libcore.so.0.0.0", realPath: "/b/libcore.so.0.0.0", buildID: nil, soname: nil)
    #expect(link.match(file) == .realFile)
  }

  @Test("read from disk: a link's real file and the SONAME, so the SONAME link and the real file are one module")
  func readFromDisk() throws {
    let work = try TemporaryDirectory("orderfile-module-file")
    defer { work.remove() }
    try AtomicFile.write("int core(int x) { return x + 1; }\n", to: work.file("core.c"))
    let real = work.file("libcore.so.0.0.0")
    try runChecked(
      Toolchain.clang,
      [
        "-fPIC", "-shared", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-soname,libcore.so.0", work.file("core.c"), "-o",
        real,
      ])
    try FileManager.default.createSymbolicLink(
      atPath: work.file("libcore.so.0"), withDestinationPath: "libcore.so.0.0.0")
    let link = ModuleFile(path: work.file("libcore.so.0"))
    #expect(link.soname == "libcore.so.0")
    #expect(link.realPath == ModuleFile.resolved(real))
    #expect(link.fileNames == ["libcore.so.0", "libcore.so.0.0.0"])
    #expect(link.buildID != nil && link.buildID == ModuleFile(path: real).buildID)
    // A trace that recorded the real file, which has since been rebuilt: its own build-id
    // stands, and the SONAME of the file there still names it.
    let recorded = ModuleFile(recordedPath: real, buildID: [9, 9, 9, 9])
    #expect(recorded.buildID == BuildID([9, 9, 9, 9]) && recorded.soname == "libcore.so.0")
    #expect(ModuleFile(path: "libcore.so.0").match(recorded) == .fileName)
    #expect(link.match(recorded) == .realFile)
    let absent = ModuleFile(path: work.file("gone.so"))
    #expect(absent.realPath == nil && absent.buildID == nil && absent.fileNames == ["gone.so"])
  }

  @Test("another build shares its functions; another program only the startup files' and main")
  func anotherBuild() {
    let startup = ["_start", "_init", "_fini", "frame_dummy", "register_tm_clones", "main"]
    let program = startup + ["parse_options", "load_config", "open_window"]
    #expect(ModuleFile.isAnotherBuild(functions: program, otherFunctions: startup + ["compress_block"]) == false)
    // A release build that inlined one of them, and an instrumented one with the runtime's.
    #expect(ModuleFile.isAnotherBuild(functions: program, otherFunctions: startup + ["parse_options", "load_config"]))
    #expect(ModuleFile.isAnotherBuild(functions: program, otherFunctions: program + ["of_start", "of_record"]))
    // Rust: builds with other settings hash every name differently.
    #expect(
      ModuleFile.isAnotherBuild(
        functions: ["_ZN7rustapp4main17h0123456789abcdefE", "_ZN7rustapp5setup17h1111111111111111E"],
        otherFunctions: ["_ZN7rustapp4main17hfedcba9876543210E", "_ZN7rustapp5setup17h2222222222222222E"]))
    #expect(ModuleFile.isAnotherBuild(functions: startup, otherFunctions: startup), "nothing tells them apart")
    #expect(ModuleFile.isAnotherBuild(functions: program, otherFunctions: startup) == false)
  }
}

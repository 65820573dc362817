import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

/// A library with relocations of every kind: pointers to its own data (relative), to a
/// symbol of another library (symbolic) and calls through the PLT.
private let source = """
  #include <math.h>
  #include <stdio.h>
  static int a = 1, b = 2, c = 3;
  int *table[] = {&a, &b, &c};
  double (*imported)(double) = &cos;
  double ops(double x) { printf("%f\\n", x); return sin(x) + cos(x); }
  """

/// The relocation types `readelf -r` lists for a binary, counted.
private func readelfTypes(_ path: String) throws -> [String: Int] {
  var counts: [String: Int] = [:]
  for line in try runChecked("/usr/bin/readelf", ["-rW", path]).standardOutput.split(separator: "\n") {
    let fields = line.split(separator: " ")
    if fields.count > 2, fields[2].hasPrefix("R_") { counts[String(fields[2]), default: 0] += 1 }
  }
  return counts
}

@Suite("What the loader does for a module, read from its binary")
struct ModuleLoadingTests {
  @Test(
    "SONAME, DT_NEEDED and the relocations by kind agree with readelf; RELR and -z now are read too",
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf"),
      "readelf is not installed (apt-get install binutils): skipped"))
  func relocations() throws {
    let directory = try TemporaryDirectory("orderfile-module-loading")
    let file = directory.file("t.c")
    try source.write(toFile: file, atomically: true, encoding: .utf8)
    func build(_ name: String, _ flags: [String]) throws -> ModuleLoading {
      let output = directory.file(name)
      try runChecked(
        Toolchain.clang,
        ["-O2", "-fPIC", "-shared", "-fuse-ld=lld", "-Wl,-soname,libt.so.3", file, "-o", output, "-lm"] + flags)
      return try ELFSymbolizer(path: output).moduleLoading()
    }
    let lazy = try build("lazy.so", [])
    let types = try readelfTypes(directory.file("lazy.so"))
    #expect(lazy.soname == "libt.so.3")
    #expect(lazy.needed.contains("libm.so.6") && lazy.needed.contains("libc.so.6"), "\(lazy.needed)")
    #expect(lazy.relocations.relative == types["R_X86_64_RELATIVE"], "\(types)")
    #expect(lazy.relocations.procedureLinkage == types["R_X86_64_JUMP_SLOT"], "\(types)")
    let symbolic = types.filter { $0.key != "R_X86_64_RELATIVE" && $0.key != "R_X86_64_JUMP_SLOT" }.values
    #expect(lazy.relocations.symbolic == symbolic.reduce(0, +), "\(types)")
    // The three pointers into the table at least, and printf, sin and cos through the PLT.
    #expect(lazy.relocations.relative >= 3 && lazy.relocations.procedureLinkage >= 3)
    #expect(!lazy.relocations.bindNow)
    #expect(lazy.relocations.atLoad == lazy.relocations.relative + lazy.relocations.symbolic)

    let now = try build("now.so", ["-Wl,-z,now"])
    #expect(now.relocations.bindNow)
    #expect(now.relocations.atLoad == lazy.relocations.atLoad + lazy.relocations.procedureLinkage)

    // RELR packs the relative relocations into bitmaps: the same words, counted alike.
    let packed = try build("relr.so", ["-Wl,-z,pack-relative-relocs"])
    #expect((try readelfTypes(directory.file("relr.so")))["R_X86_64_RELATIVE"] == nil)
    #expect(packed.relocations == lazy.relocations)
  }
}

import Foundation
import OrderfileCommands
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("verify names the loader options a relink lacks")
struct VerifyLoaderOptionsTests {
  static let readelf = ProcessRunner.resolve("llvm-readelf")

  @Test(
    "a relink without RELR and with lld's default hash tables lacks both options; one with them lacks none",
    .enabled(if: readelf.hasPrefix("/"), "needs llvm-readelf (Debian: llvm) to check the dynamic section"))
  func relinks() throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    let sysroot = try FakeSysroot.glibc(in: work, name: "root", versions: FakeSysroot.glibc236)
    // Pointers in writable data: a relative relocation each in a PIE.
    let source = work.file("app.c")
    try """
    static int a, b, c;
    int *table[] = {&a, &b, &c, &a, &b, &c};
    int first(void) { return *table[0]; }
    int main(void) { return first(); }

    """.write(toFile: source, atomically: true, encoding: .utf8)
    let object = work.file("app.o")
    try runChecked(Toolchain.clang, ["-O2", "-fPIE", "-ffunction-sections", "-c", source, "-o", object])
    let order = work.file("app.order")
    try "main\nfirst\n".write(toFile: order, atomically: true, encoding: .utf8)
    func relink(_ name: String, _ extra: [String]) throws -> String {
      let output = work.file(name)
      try runChecked(
        Toolchain.clang,
        ["-pie", "-fuse-ld=lld", "-Wl,--symbol-ordering-file=" + order] + extra
          + [object, "-o", output])
      return output
    }
    // lld writes both tables unless told; some drivers (Debian's clang) tell it gnu.
    let plain = try relink("plain", ["-Wl,--hash-style=both"])
    let packed = try relink("packed", ["-Wl,-z,pack-relative-relocs", "-Wl,--hash-style=gnu"])

    func dynamicTags(_ binary: String) throws -> String { try runChecked(Self.readelf, ["-d", binary]).standardOutput }
    let plainTags = try dynamicTags(plain)
    let packedTags = try dynamicTags(packed)
    #expect(!plainTags.contains("(RELR)") && plainTags.contains("(HASH)"), "\(plainTags)")
    #expect(packedTags.contains("(RELR)") && !packedTags.contains("(HASH)"), "\(packedTags)")

    // The fixture's six pointers and the C runtime's own (init and fini arrays, __dso_handle).
    let relative =
      try runChecked(Self.readelf, ["-r", plain]).standardOutput.components(separatedBy: "R_X86_64_RELATIVE")
      .count - 1
    #expect(relative >= 6)

    let plainReport = try VerifyRequest(binary: plain, order: order, sysroot: sysroot).run()
    #expect(plainReport.status == .success, "the order took: loader options do not fail verify")
    let text = plainReport.standardOutput
    #expect(
      text.contains("loader tables: no RELR (\(relative) relative relocations in RELA); hash tables: GNU and System V"),
      "\(text)")
    #expect(text.contains("loader option missing: relr: add -Wl,-z,pack-relative-relocs"), "\(text)")
    #expect(text.contains("loader option missing: gnu-hash: add -Wl,--hash-style=gnu"), "\(text)")

    let packedText = try VerifyRequest(binary: packed, order: order, sysroot: sysroot).run().standardOutput
    #expect(
      packedText.contains(
        "loader tables: RELR (\(relative) relative relocations packed, 0 left in RELA); hash tables: GNU"),
      "\(packedText)")
    #expect(!packedText.contains("loader option missing"), "\(packedText)")

    // A target whose glibc cannot read RELR is not told to pack.
    let old = try FakeSysroot.glibc(in: work, name: "old", versions: FakeSysroot.glibc235)
    let oldText = try VerifyRequest(binary: plain, order: order, sysroot: old).run().standardOutput
    #expect(!oldText.contains("missing: relr") && oldText.contains("missing: gnu-hash"), "\(oldText)")

    let json = try VerifyRequest(binary: plain, order: order, reportFormat: .json, sysroot: sysroot).run()
    let decoded = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
    let missing = decoded?["missingLoaderOptions"] as? [[String: Any]]
    #expect(
      missing?.compactMap { $0["flags"] as? [String] } == [["-Wl,-z,pack-relative-relocs"], ["-Wl,--hash-style=gnu"]])
  }
}

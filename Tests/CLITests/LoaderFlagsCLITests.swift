import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `orderfile flags --release`: the loader options, each only where the target supports it.
@Suite("flags --release: loader options")
struct LoaderFlagsCLITests {
  @Test("RELR for a target with glibc 2.36, none for glibc 2.35 or Android API 26, each with its reason")
  func relrWhereSupported() throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    let order = work.file("app.order")
    try "main\n".write(toFile: order, atomically: true, encoding: .utf8)
    let new = try FakeSysroot.glibc(in: work, name: "new", versions: FakeSysroot.glibc236)
    let old = try FakeSysroot.glibc(in: work, name: "old", versions: FakeSysroot.glibc235)
    let environment = Toolchain.environment  // ld.lld on PATH, as the release build links with it

    let supported = try orderfile(
      ["flags", "--release", order, "--ldflags", "--sysroot", new], environment: environment)
    #expect(supported.status == 0, "\(supported.standardError)")
    #expect(
      supported.standardOutput
        == "-fuse-ld=lld -Wl,--build-id -Wl,-z,pack-relative-relocs -Wl,--hash-style=gnu -Wl,--symbol-ordering-file=\(order)\n"
    )

    let older = try orderfile(["flags", "--release", order, "--sysroot", old], environment: environment)
    #expect(older.status == 0, "\(older.standardError)")
    #expect(!older.standardOutput.contains("pack-relative-relocs"), "\(older.standardOutput)")
    #expect(
      older.standardOutput.contains(
        "#   relr: not added: \(old)/lib/x86_64-linux-gnu/libc.so.6 is glibc 2.35, whose loader does not read DT_RELR"),
      "\(older.standardOutput)")

    let android = try orderfile(
      ["flags", "--release", order, "--target", "aarch64-linux-android26"], environment: environment)
    #expect(android.standardOutput.contains("#   relr: not added: API 26: bionic reads RELR from API 28"))
    #expect(!android.standardOutput.contains("pack-dyn-relocs"))

    // Swift and Rust pass the same options the way their drivers hand options to the linker.
    let swift = try orderfile(
      ["flags", "--language", "swift", "--release", order, "--sysroot", new], environment: environment)
    #expect(swift.standardOutput.contains("-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --hash-style=gnu"))
    let rust = try orderfile(
      ["flags", "--language", "rust", "--release", order, "--sysroot", old], environment: environment)
    #expect(rust.standardOutput.contains("-C link-arg=-Wl,--hash-style=gnu"), "\(rust.standardOutput)")
    #expect(!rust.standardOutput.contains("pack-relative-relocs"), "\(rust.standardOutput)")

    let notRelease = try orderfile(["flags", "--sysroot", new])
    #expect(notRelease.status == 64)
    #expect(notRelease.standardError.contains("--sysroot decides the ordered release build's loader options"))
  }

  @Test("an lld script given without --format links as a script, not as a symbol orderfile")
  func scriptByContent() throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    let script = work.file("app.ld")
    try "SECTIONS {\n  .text.launch : {\n    *main.o(.text.main)\n  }\n} INSERT BEFORE .text;\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    let printed = try orderfile(["flags", "--release", script, "--ldflags"], environment: Toolchain.environment)
    #expect(printed.status == 0, "\(printed.standardError)")
    #expect(printed.standardOutput.hasSuffix(" -Wl,--script=\(script)\n"), "\(printed.standardOutput)")
    #expect(!printed.standardOutput.contains("--symbol-ordering-file"), "\(printed.standardOutput)")
  }
}

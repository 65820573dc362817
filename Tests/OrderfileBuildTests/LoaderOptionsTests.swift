import Foundation
import OrderfileBuild
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Loader options: each recommended only where the linker and the target's loader support it")
struct LoaderOptionsTests {
  static let lld21 = LinkerVersion(kind: .lld, version: [21, 0, 0])

  @Test("RELR for a target whose glibc defines GLIBC_ABI_DT_RELR; none for glibc 2.35, with the reason")
  func glibcVersions() throws {
    let work = try TemporaryDirectory()
    defer { work.remove() }
    let new = try FakeSysroot.glibc(in: work, name: "new", versions: FakeSysroot.glibc236)
    let old = try FakeSysroot.glibc(in: work, name: "old", versions: FakeSysroot.glibc235)
    let target = CrossTarget(architecture: .x86_64)

    let newLoader = TargetLoader.of(target: target, sysroot: new)
    #expect(
      newLoader == .glibc(path: new + "/lib/x86_64-linux-gnu/libc.so.6", version: [2, 36], definesRELRVersion: true))
    let recommended = LoaderOptions(linker: Self.lld21, loader: newLoader)
    #expect(recommended.flags == ["-Wl,-z,pack-relative-relocs", "-Wl,--hash-style=gnu"])

    let oldLoader = TargetLoader.of(target: target, sysroot: old)
    #expect(
      oldLoader == .glibc(path: old + "/lib/x86_64-linux-gnu/libc.so.6", version: [2, 35], definesRELRVersion: false))
    let refused = LoaderOptions(linker: Self.lld21, loader: oldLoader)
    #expect(refused.flags == ["-Wl,--hash-style=gnu"])
    let relr = try #require(refused.advice.first { $0.option == .relr })
    #expect(!relr.recommended)
    #expect(relr.reason.contains("glibc 2.35") && relr.reason.contains("does not read DT_RELR"), "\(relr.reason)")

    // A root without libc.so.6 tells nothing: nothing is recommended.
    let empty = LoaderOptions(linker: Self.lld21, loader: TargetLoader.of(target: target, sysroot: work.path))
    #expect(empty.flags.isEmpty)
    #expect(empty.advice.allSatisfy { $0.reason.contains("no libc.so.6 under \(work.path)") }, "\(empty.advice)")
  }

  @Test("RELR needs lld 15 or GNU ld 2.38; gold never packs; versions read from the linkers' own --version")
  func linkers() throws {
    let loader = TargetLoader.glibc(path: "/lib/libc.so.6", version: [2, 36], definesRELRVersion: true)
    func relr(_ linker: LinkerVersion?) -> Bool {
      LoaderOptions(linker: linker, loader: loader).advice.first { $0.option == .relr }?.recommended == true
    }
    #expect(relr(LinkerVersion(versionOutput: "LLD 21.0.0 (https://github.com/swiftlang/llvm-project.git 1167)")))
    #expect(!relr(LinkerVersion(versionOutput: "Debian LLD 14.0.6 (compatible with GNU linkers)")))
    #expect(relr(LinkerVersion(versionOutput: "GNU ld (GNU Binutils for Debian) 2.40")))
    #expect(!relr(LinkerVersion(versionOutput: "GNU ld (GNU Binutils for Ubuntu) 2.37")))
    #expect(!relr(LinkerVersion(versionOutput: "GNU gold (GNU Binutils for Debian 2.40) 1.16")))
    #expect(!relr(nil), "no linker found: not assumed")
    #expect(LoaderOptions(linker: nil, loader: loader, anyLinker: true).flags.contains("-Wl,-z,pack-relative-relocs"))

    // The linkers on this machine, as `flags` runs them.
    let lld = try #require(LinkerVersion.of(program: Toolchain.lld))
    #expect(lld.kind == .lld && lld.version.count >= 2, "\(lld)")
    if ProcessRunner.resolve("ld.gold").hasPrefix("/") {
      #expect(LinkerVersion.of(program: "ld.gold")?.kind == .gold)
    }
    if ProcessRunner.resolve("ld.bfd").hasPrefix("/") {
      #expect(LinkerVersion.of(program: "ld.bfd")?.kind == .gnuLD)
    }
  }

  @Test("Android: RELR from API 28 under its own tags, from API 30 plain; GNU hash from API 23")
  func android() throws {
    func options(_ triple: String) throws -> LoaderOptions {
      LoaderOptions(linker: Self.lld21, loader: TargetLoader.of(target: try CrossTarget(triple: triple)))
    }
    #expect(try options("aarch64-linux-android34").flags == ["-Wl,--pack-dyn-relocs=relr", "-Wl,--hash-style=gnu"])
    #expect(try options("aarch64-linux-android30").flags == ["-Wl,--pack-dyn-relocs=relr", "-Wl,--hash-style=gnu"])
    #expect(
      try options("aarch64-linux-android28").flags
        == ["-Wl,--pack-dyn-relocs=relr", "-Wl,--use-android-relr-tags", "-Wl,--hash-style=gnu"])
    let older = try options("aarch64-linux-android26")
    #expect(older.flags == ["-Wl,--hash-style=gnu"])
    #expect(older.advice.first { $0.option == .relr }?.reason == "API 26: bionic reads RELR from API 28")
    #expect(try options("aarch64-linux-android21").flags.isEmpty)
  }
}

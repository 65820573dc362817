import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileRecording

@Suite("record --emulator: the command, its sysroot, the program's variables")
struct EmulatorTests {
  @Test("the words of --emulator: blanks split, quotes keep them; nothing or an open quote is no command")
  func parsing() {
    #expect(
      Emulator(parsing: "  qemu-aarch64-static -L /usr/aarch64-linux-gnu ")?.command == [
        "qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu",
      ])
    #expect(
      Emulator(parsing: "qemu-aarch64 -L '/opt/my root' -cpu max")?.command == [
        "qemu-aarch64", "-L", "/opt/my root", "-cpu", "max",
      ])
    #expect(Emulator(parsing: "qemu-aarch64 -E A=\"\"")?.command == ["qemu-aarch64", "-E", "A="])
    #expect(Emulator(parsing: "   ") == nil)
    #expect(Emulator(parsing: "qemu-aarch64 -L '/opt") == nil)
  }

  @Test("the sysroot is qemu's -L, else QEMU_LD_PREFIX; a path the program opens is found there first")
  func sysroot() throws {
    let root = try TemporaryDirectory("orderfile-emulator-root")
    defer { root.remove() }
    try FileManager.default.createDirectory(atPath: root.file("lib"), withIntermediateDirectories: true)
    try AtomicFile.write([0], to: root.file("lib/libc.so.6"))
    let qemu = Emulator(command: ["qemu-aarch64-static", "-cpu", "max", "-L", root.path])
    #expect(qemu.sysroot(environment: [:]) == root.path)
    #expect(Emulator(command: ["qemu-aarch64", "-L" + root.path]).sysroot(environment: [:]) == root.path)
    #expect(Emulator(command: ["qemu-aarch64"]).sysroot(environment: ["QEMU_LD_PREFIX": "/r"]) == "/r")
    #expect(Emulator(command: ["qemu-aarch64"]).sysroot(environment: [:]) == nil)
    #expect(qemu.hostPath(ofGuestPath: "/lib/libc.so.6", environment: [:]) == root.file("lib/libc.so.6"))
    // Not in the sysroot: the host's own path, as qemu-user falls back to it.
    #expect(qemu.hostPath(ofGuestPath: "/tmp/app/libplugin.so", environment: [:]) == "/tmp/app/libplugin.so")
  }

  @Test("the loader's variables reach qemu's program through -E, never qemu's own loader")
  func invocation() {
    let qemu = Emulator(command: ["qemu-aarch64", "-L", "/sysroot"])
    let (arguments, environment) = qemu.invocation(
      program: "/tmp/app", arguments: ["7"],
      environment: ["LD_PRELOAD": "/lib/arm64/libOrderfileInProcess.so", "ORDERFILE_TRAP_PLAN": "/tmp/plan"])
    #expect(
      arguments == ["-L", "/sysroot", "-E", "LD_PRELOAD=/lib/arm64/libOrderfileInProcess.so", "/tmp/app", "7"])
    #expect(environment == ["ORDERFILE_TRAP_PLAN": "/tmp/plan"])
    // Another emulator passes its environment on.
    let other = Emulator(command: ["box64"]).invocation(program: "/tmp/app", arguments: [], environment: ["LD_X": "1"])
    #expect(other.arguments == ["/tmp/app"] && other.environment == ["LD_X": "1"])
  }

  @Test("an ldd listing names the resolved libraries, not the loader or the vdso")
  func lddListing() {
    let listing = """
      \tlinux-vdso.so.1 (0x00007ffd)
      \tlibplugin.so => /tmp/app/libplugin.so (0x0000005502850000)
      \tlibc.so.6 => /lib/libc.so.6 (0x0000005502890000)
      \t/lib/ld-linux-aarch64.so.1 (0x0000005502832000)
      """
    #expect(LinkedLibraries.ldd(listing: listing) == ["/tmp/app/libplugin.so", "/lib/libc.so.6"])
  }
}

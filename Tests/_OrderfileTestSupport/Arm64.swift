import Foundation
import OrderfileSupport

/// The arm64 cross toolchain and the emulator that runs its programs on this x86-64 machine:
/// Debian's gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu and libc6-dev-arm64-cross (the
/// sysroot in /usr/aarch64-linux-gnu, which swift's clang also finds), and qemu-user-static.
/// `Scripts/setup-deps` installs them; tests that need them are enabled with `Arm64.available`.
public enum Arm64 {
  public static let triple = "aarch64-linux-gnu"
  public static let sysroot = "/usr/aarch64-linux-gnu"
  public static var gcc: String { ProcessRunner.resolve(triple + "-gcc") }
  public static var gxx: String { ProcessRunner.resolve(triple + "-g++") }
  public static var qemu: String { ProcessRunner.resolve("qemu-aarch64-static") }
  /// llvm-nm beside swift's clang: it reads arm64 binaries as well as x86-64 ones.
  public static var nm: String { Toolchain.llvmBin + "/llvm-nm" }

  /// What is missing for the arm64 tests, or nil when everything is here.
  public static let missing: String? = {
    var absent: [String] = []
    for (tool, package) in [
      (triple + "-gcc", "gcc-aarch64-linux-gnu"), (triple + "-g++", "g++-aarch64-linux-gnu"),
      ("qemu-aarch64-static", "qemu-user-static"),
    ] where !ProcessRunner.resolve(tool).hasPrefix("/") {
      absent.append(package)
    }
    if !FileManager.default.fileExists(atPath: sysroot + "/include/stdio.h") { absent.append("libc6-dev-arm64-cross") }
    return absent.isEmpty ? nil : absent.joined(separator: ", ")
  }()

  public static var available: Bool { missing == nil }
  /// The reason shown when the arm64 tests are skipped.
  public static var skipReason: String {
    "needs the arm64 cross toolchain and qemu-user (\(missing ?? "")): run Scripts/setup-deps"
  }

  /// A cross compiler: `clang`, `clang++` (swift's, with --target and lld), `gcc` or `g++`.
  public static func compiler(_ name: String) -> (executable: String, flags: [String]) {
    switch name {
    case "clang": return (Toolchain.clang, ["--target=" + triple, "-fuse-ld=lld"])
    case "clang++": return (Toolchain.clang + "++", ["--target=" + triple, "-fuse-ld=lld"])
    // gcc's cross build looks for aarch64-linux-gnu-ld.lld, which no package installs: -B
    // points it at swift's ld.lld (as `orderfile flags --target` prints).
    case "g++": return (gxx, ["-B", Toolchain.llvmBin])
    default: return (gcc, ["-B", Toolchain.llvmBin])
    }
  }

  /// Runs an arm64 program under qemu-user, with the arm64 loader and libraries from the sysroot.
  public static func run(
    _ program: String, _ arguments: [String] = [], environment: [String: String] = [:]
  ) throws -> ProcessResult {
    try runChecked(qemu, ["-L", sysroot, program] + arguments, environment: environment)
  }

  /// Runs an arm64 program under qemu-user with the page probe of `runtime` (cross-built)
  /// preloaded into the guest by hand, writing its output to `output`: the run, and the
  /// distinct 4 KiB pages of the executable's code the launch executed.
  public static func probedPages(_ program: String, runtime: String, output: String) throws -> (
    run: ProcessResult, pages: Int
  ) {
    let run = try Self.run(
      program,
      environment: ["LD_PRELOAD": runtime + "/libOrderfilePageProbe.so", "ORDERFILE_PAGE_PROBE_OUTPUT": output])
    let lines = try FileReading.text(atPath: output).split(separator: "\n")
    guard lines.first == "pagesize 1000" else {
      throw TestSupportError("qemu-user's guest should have 4 KiB pages: \(lines.first ?? "no output")")
    }
    return (run, lines.filter { $0.hasPrefix("page 0 ") }.count)
  }

  /// Writes the ELF header of an arm64 shared library with no segments and no sections (and
  /// nothing else) to `path`, executable: a file libelf opens, whose machine can be read.
  public static func writeHeaderOnlyELF(to path: String) throws {
    var header = [UInt8](repeating: 0, count: 64)
    // ELF, 64-bit, little-endian, version 1.
    header.replaceSubrange(0..<7, with: [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1])
    header[16] = 3  // e_type: ET_DYN
    header[18] = 183  // e_machine: EM_AARCH64
    header[20] = 1  // e_version
    header[52] = 64  // e_ehsize
    header[54] = 56  // e_phentsize
    header[58] = 64  // e_shentsize
    try AtomicFile.write(header, to: path, mode: 0o755)
  }

  private static let runtimes = Locked<[String: String]>([:])

  /// The directory where `Scripts/build-runtime --target aarch64-linux-gnu` put the runtime,
  /// cross-built with `compiler` (`clang` or `gcc`), once per test process.
  public static func runtimeDirectory(compiler: String) throws -> String {
    try runtimes.withLock { built in
      if let directory = built[compiler] { return directory }
      let directory = try RuntimeBuilder.keptDirectory("/tmp/orderfile-runtime-arm64.XXXXXX")
      try runChecked(
        PackagePaths.root + "/Scripts/build-runtime", ["--target", triple, directory],
        environment: ["CC": compiler == "clang" ? Toolchain.clang : "gcc"])
      built[compiler] = directory
      return directory
    }
  }
}

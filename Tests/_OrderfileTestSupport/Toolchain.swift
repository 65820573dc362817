import Foundation
import OrderfileSupport

/// Paths to the compilers, linker and tools the tests drive for real.
public enum Toolchain {
  /// The directory holding swift's clang and ld.lld.
  public static let llvmBin: String = {
    let swiftc = ProcessRunner.resolve("swiftc")
    let candidate = ((swiftc as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
    if FileManager.default.isExecutableFile(atPath: candidate + "/clang") { return candidate }
    return "/opt/swift/usr/bin"
  }()

  public static var clang: String { llvmBin + "/clang" }
  public static var lld: String { llvmBin + "/ld.lld" }
  public static var gcc: String { ProcessRunner.resolve("gcc") }
  public static var nm: String {
    let gnu = ProcessRunner.resolve("nm")
    return gnu.hasPrefix("/") ? gnu : llvmBin + "/llvm-nm"
  }

  /// Environment for compilers so that `-fuse-ld=lld` finds swift's ld.lld.
  public static var environment: [String: String] {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return ["PATH": llvmBin + ":" + path]
  }
}

/// Runs a tool and fails the test setup with its output when it fails.
@discardableResult
public func runChecked(
  _ executable: String, _ arguments: [String], environment: [String: String] = [:],
  currentDirectory: String? = nil
) throws -> ProcessResult {
  var env = Toolchain.environment
  for (key, value) in environment { env[key] = value }
  let result = try ProcessRunner.run(
    executable, arguments, environment: env, currentDirectory: currentDirectory)
  guard result.succeeded else {
    throw TestSupportError(
      "\(executable) \(arguments.joined(separator: " ")) exited \(result.status):\n"
        + result.standardError + result.standardOutput)
  }
  return result
}

/// Runs a build tool (cmake, make, meson, ninja) as `runChecked` does, with no signal
/// blocked: a test thread's blocked SIGCHLD is inherited through the spawn, and the tool
/// then never sees its own children exit.
@discardableResult
public func runUnblocked(
  _ program: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil
) throws -> ProcessResult {
  try runChecked(
    "python3",
    [
      "-c",
      "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])",
      program,
    ] + arguments, environment: environment, currentDirectory: currentDirectory)
}

/// A fixture program from Tests/Fixtures/breakpoints, compiled as a release build would be.
public func buildBreakpointFixture(
  _ sources: [String], in work: TemporaryDirectory, flags: [String] = [], output: String
) throws -> String {
  let fixtures = PackagePaths.fixtures + "/breakpoints/"
  let binary = work.file(output)
  try runChecked(Toolchain.clang, ["-O2", "-g"] + flags + sources.map { fixtures + $0 } + ["-o", binary])
  return binary
}

/// Tests/Fixtures/unnamed/unnamed.c compiled into `unnamed.o` in `work`, one section per
/// function, with the symbol of `hidden` stripped, as Swift never gives its `.text..L`
/// functions one: only a link map names it in the linked binary.
public func unnamedFixtureObject(in work: TemporaryDirectory) throws -> String {
  let object = work.file("unnamed.o")
  try runChecked(
    Toolchain.clang,
    ["-O1", "-ffunction-sections", "-c", PackagePaths.fixtures + "/unnamed/unnamed.c", "-o", object],
    environment: Toolchain.environment)
  try runChecked(Toolchain.llvmBin + "/llvm-objcopy", ["--strip-symbol=hidden", object])
  return object
}

/// The profile clang's `-fsplit-machine-functions` splits Tests/Fixtures/coldparts/launch.c
/// with: from a run on this machine that skips the unlikely branches (TRAIN set), so they
/// become cold parts, which the launch then takes. The IR, and so the profile, is the same
/// for an arm64 build. Returns the merged `.profdata` in `work`.
public func coldPartsProfile(in work: TemporaryDirectory) throws -> String {
  let source = PackagePaths.fixtures + "/coldparts/launch.c"
  try runChecked(
    Toolchain.clang, ["-O2", "-fprofile-generate=" + work.file("raw"), source, "-o", work.file("profiled")],
    environment: Toolchain.environment)
  try runChecked(work.file("profiled"), [], environment: ["TRAIN": "1"])
  let raw = try FileManager.default.contentsOfDirectory(atPath: work.file("raw")).map { work.file("raw/" + $0) }
  try runChecked(Toolchain.llvmBin + "/llvm-profdata", ["merge", "-o", work.file("launch.profdata")] + raw)
  return work.file("launch.profdata")
}

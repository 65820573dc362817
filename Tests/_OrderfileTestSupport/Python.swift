import Foundation
import OrderfileSupport

/// python3 with the modules a test needs.
///
/// Tests never install packages: Scripts/setup-deps (which Scripts/test runs) installs what
/// they import, and a test whose module is missing fails saying so.
public enum Python {
  /// Fails unless `python3` can import `module`, which `package` from PyPI provides.
  public static func require(module: String, package: String) throws {
    guard try canImport(module) else {
      throw TestSupportError(
        "python3 cannot import \(module): run Scripts/setup-deps, or 'python3 -m pip install \(package)'")
    }
  }

  public static func canImport(_ module: String) throws -> Bool {
    try ProcessRunner.run("python3", ["-c", "import \(module)"]).succeeded
  }

  /// Runs a python3 script with `input` on its stdin (as a file) and returns its stdout.
  public static func run(_ script: String, input: String) throws -> String {
    let directory = try TemporaryDirectory("orderfile-python")
    let inputPath = directory.file("input")
    try AtomicFile.write(input, to: inputPath)
    let result = try ProcessRunner.run("python3", ["-c", script, inputPath])
    guard result.succeeded else {
      throw TestSupportError("python3 failed (\(result.status)): \(result.standardError)")
    }
    return result.standardOutput
  }
}

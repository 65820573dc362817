import Foundation
import OrderfileSupport
import _OrderfileTestSupport

/// python3 with the modules a test needs, installed with pip when missing.
public enum Python {
  private static let installed = Locked<Set<String>>([])

  /// Makes sure `python3` can import `module`, installing `package` from PyPI if it cannot.
  public static func require(module: String, package: String) throws {
    try installed.withLock { done in
      if done.contains(module) { return }
      if try !canImport(module) {
        // Debian's python3 refuses system-wide pip installs unless told to; a pyenv one does not.
        let attempts = [
          ["-m", "pip", "install", "--quiet", "--user", package],
          ["-m", "pip", "install", "--quiet", "--user", "--break-system-packages", package],
          ["-m", "pip", "install", "--quiet", "--break-system-packages", package],
        ]
        for arguments in attempts {
          if try ProcessRunner.run("python3", arguments).succeeded, try canImport(module) { break }
        }
        guard try canImport(module) else {
          throw TestSupportError("python3 cannot import \(module) and 'pip install \(package)' did not help")
        }
      }
      done.insert(module)
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

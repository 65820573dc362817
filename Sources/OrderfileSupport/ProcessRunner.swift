import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
  /// The exit status, or 128 + the signal number when a signal ended it (as shells report it).
  public var status: Int32
  /// The signal that ended the process, if one did.
  public var signal: Int32?
  public var standardOutput: String
  public var standardError: String

  public var succeeded: Bool { status == 0 && signal == nil }
}

/// Runs programs and waits for them.
public enum ProcessRunner {
  /// Runs `executable` with `arguments` and returns its exit status and output.
  ///
  /// - Parameters:
  ///   - environment: variables added to (or replacing those of) this process's environment.
  ///   - captureOutput: when false the child writes straight to this process's stdout and stderr.
  public static func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    currentDirectory: String? = nil,
    captureOutput: Bool = true
  ) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: resolve(executable))
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    if let currentDirectory {
      process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory)
    }
    let outPipe = Pipe()
    let errPipe = Pipe()
    if captureOutput {
      process.standardOutput = outPipe
      process.standardError = errPipe
    }
    do {
      try process.run()
    } catch {
      throw SupportError.launchFailed(program: executable, message: error.localizedDescription)
    }
    // Drain both pipes while the child runs, so a chatty child cannot block on a full pipe.
    var outData = Data()
    let errData = DataBox()
    if captureOutput {
      let group = DispatchGroup()
      group.enter()
      DispatchQueue.global().async {
        errData.data = errPipe.fileHandleForReading.readDataToEndOfFile()
        group.leave()
      }
      outData = outPipe.fileHandleForReading.readDataToEndOfFile()
      group.wait()
    }
    process.waitUntilExit()
    let signalled = process.terminationReason == .uncaughtSignal
    return ProcessResult(
      status: signalled ? 128 + process.terminationStatus : process.terminationStatus,
      signal: signalled ? process.terminationStatus : nil,
      standardOutput: String(decoding: outData, as: UTF8.self),
      standardError: String(decoding: errData.data, as: UTF8.self)
    )
  }

  /// The absolute path of `program`, searching `PATH` when it has no slash.
  public static func resolve(_ program: String) -> String {
    if program.contains("/") { return program }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return program
  }
}

/// Holds the bytes one reader thread collects; the group's wait orders the access.
private final class DataBox: @unchecked Sendable {
  var data = Data()
}

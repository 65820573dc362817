import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A program a test starts and leaves running (a display server, an app that never exits),
/// its output in files; stopped by `stop()` or when released.
public final class BackgroundProcess: @unchecked Sendable {
  public let child: ChildProcess
  public let standardOutput: String
  public let standardError: String
  private let ended = Locked<(status: Int32, signal: Int32?)?>(nil)

  /// Starts `executable` with `environment` over this process's own; its standard output and
  /// error go to `<name>.stdout` and `<name>.stderr` in `directory`.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], outputIn directory: String,
    name: String? = nil
  ) throws {
    let label = name ?? PathName.split(executable).base
    standardOutput = directory + "/" + label + ".stdout"
    standardError = directory + "/" + label + ".stderr"
    let out = open(standardOutput, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let err = open(standardError, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer {
      if out >= 0 { close(out) }
      if err >= 0 { close(err) }
    }
    guard out >= 0, err >= 0 else { throw TestSupportError("cannot create \(standardOutput) or \(standardError)") }
    let path = ProcessRunner.resolve(executable)
    child = try ChildProcess.spawn(
      path, arguments: [path] + arguments, environment: ChildProcess.environment(adding: environment),
      program: executable, standardOutput: out, standardError: err)
  }

  deinit { stop() }

  /// How the program ended (exit status, or 128 + signal, and the signal), or nil while it runs.
  public var exitStatus: (status: Int32, signal: Int32?)? {
    ended.withLock { ended in
      if ended == nil {
        var status: Int32 = 0
        if waitpid(child.pid, &status, WNOHANG) == child.pid { ended = ChildProcess.decode(waitStatus: status) }
      }
      return ended
    }
  }

  /// What the program wrote so far, both streams, for failure messages.
  public var output: String {
    ((try? FileReading.text(atPath: standardOutput)) ?? "") + ((try? FileReading.text(atPath: standardError)) ?? "")
  }

  /// Waits until `condition` holds, polling; false after `timeout` or when the program has
  /// ended without it holding.
  public func wait(upTo timeout: Duration, until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition() { return true }
      if exitStatus != nil { return condition() }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
  }

  /// Ends the program: SIGTERM, then SIGKILL when it is still there after `grace`. Returns how
  /// it ended.
  @discardableResult
  public func stop(grace: Duration = .seconds(2)) -> (status: Int32, signal: Int32?) {
    if let ended = exitStatus { return ended }
    kill(child.pid, SIGTERM)
    if !wait(upTo: grace, until: { exitStatus != nil }) {
      kill(child.pid, SIGKILL)
    }
    return ended.withLock { ended in
      if ended == nil { ended = child.wait() }
      return ended ?? (127, nil)
    }
  }

  /// Whether `pid` is a process that has not ended (a zombie has), from `/proc`.
  public static func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? FileReading.text(atPath: "/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else {
      return false
    }
    return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
  }

  /// The pids a program wrote to `path`, one a line (Tests/Fixtures/breakpoints/app_idle.c
  /// writes its helper's, its daemon's and its own).
  public static func pids(writtenTo path: String) throws -> [pid_t] {
    try FileReading.text(atPath: path).split(separator: "\n").compactMap { pid_t($0) }
  }

  /// The processes whose executable is `path` (after symlinks), from `/proc`: what a test
  /// checks to see that no copy of a program outlived what started it.
  public static func processes(running path: String) -> [pid_t] {
    let target = (path as NSString).resolvingSymlinksInPath
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> pid_t? in
      guard let pid = pid_t(entry),
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe")
      else { return nil }
      return executable == target ? pid : nil
    }
  }
}

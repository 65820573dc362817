import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What happens to a program still running when its launch is over (the `--until` function
/// ran, `--time-limit` passed, or the page probe's count ended): only the launch is
/// measured, and a server or an app never exits by itself.
public enum AfterLaunch: Sendable, Equatable {
  /// End it and every process it started: SIGTERM first, SIGKILL to whatever is left
  /// `graceMilliseconds` later.
  case end(graceMilliseconds: Int)
  /// Leave it running and wait for it to exit by itself (`record --wait-for-exit`).
  case waitForExit

  /// SIGTERM, then SIGKILL two seconds later: long enough for a program that handles
  /// SIGTERM to close its windows and files, short enough for a CI job.
  public static let defaultGraceMilliseconds = 2000
  public static let end = AfterLaunch.end(graceMilliseconds: defaultGraceMilliseconds)
}

/// How a program the tool waited for ended.
public struct ProgramExit: Sendable, Equatable {
  /// Its exit status, or 128 + the signal that ended it (as shells report it).
  public var status: Int32
  /// The signal that ended it, if one did.
  public var signal: Int32?
  /// The tool ended it because its launch was over (`AfterLaunch.end`).
  public var endedAfterLaunch: Bool

  public init(status: Int32, signal: Int32?, endedAfterLaunch: Bool) {
    self.status = status
    self.signal = signal
    self.endedAfterLaunch = endedAfterLaunch
  }
}

/// Waits for a program the tool started and, once its launch is over, ends it with every
/// process it started, as `AfterLaunch` says. One implementation for `record` (both
/// recorders), the page probe, `diff --measure`, `regenerate` and `bolt`.
public enum ProgramEnding {
  /// How often a launch that may end is checked: often enough that the program does little
  /// after its window, rarely enough to cost it nothing measurable (one `waitpid` and a
  /// few bytes read per check).
  static let pollMicroseconds: useconds_t = 5_000

  /// Waits for the child `pid`. While it runs, `launchOver` is asked every few
  /// milliseconds (never, with `.waitForExit` or when it is nil); once it says yes, the
  /// program and its descendants are ended.
  public static func wait(
    for pid: pid_t, afterLaunch: AfterLaunch, launchOver: (() -> Bool)?
  ) -> ProgramExit {
    guard case .end(let grace) = afterLaunch, let launchOver else {
      let (status, signal) = ChildProcess(pid: pid).wait()
      return ProgramExit(status: status, signal: signal, endedAfterLaunch: false)
    }
    var status: Int32 = 0
    while true {
      let got = waitpid(pid, &status, WNOHANG)
      if got == pid {
        let (code, signal) = ChildProcess.decode(waitStatus: status)
        return ProgramExit(status: code, signal: signal, endedAfterLaunch: false)
      }
      if got < 0 && errno != EINTR { return ProgramExit(status: 127, signal: nil, endedAfterLaunch: false) }
      if launchOver() { return end(pid, graceMilliseconds: grace) }
      usleep(pollMicroseconds)
    }
  }

  /// Makes this process the new parent of every orphan among its descendants (Linux's
  /// child subreaper), so that a daemon the program starts (forked twice, in a session of
  /// its own) stays in the family `end` ends. For the tool's own process only, which starts
  /// no other programs while it waits for one: `end` then ends every process that this one
  /// is an ancestor of. Returns whether the kernel took it.
  @discardableResult
  public static func adoptOrphans() -> Bool {
    typealias Control = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    let prSetChildSubreaper: Int32 = 36
    guard let prctl = libcFunction("prctl", as: Control.self), prctl(prSetChildSubreaper, 1, 0, 0, 0) == 0 else {
      return false
    }
    adopting.withLock { $0 = true }
    return true
  }

  private static let adopting = Mutex(false)

  /// Ends the child `pid` and its descendants: all stopped first (`freeze`), then sent
  /// SIGTERM and let go on, then SIGKILL to those still there after `graceMilliseconds`;
  /// reaps `pid`, and the orphans this process adopted (`adoptOrphans`).
  public static func end(_ pid: pid_t, graceMilliseconds: Int) -> ProgramExit {
    var family = freeze(pid)
    // Stopped, none of them can start another between the list and the signal; SIGTERM
    // waits for SIGCONT in a stopped process.
    for member in [pid] + family { kill(member, SIGTERM) }
    for member in [pid] + family { kill(member, SIGCONT) }
    let deadline = MonotonicClock.nanoseconds() + UInt64(max(graceMilliseconds, 0)) * 1_000_000
    var status: Int32 = 0
    var reaped = false
    while MonotonicClock.nanoseconds() < deadline {
      if !reaped {
        let got = waitpid(pid, &status, WNOHANG)
        reaped = got == pid || (got < 0 && errno != EINTR)
      }
      // Orphans this process adopted are its children now: reaped, or they stay zombies.
      for member in family { waitpid(member, nil, WNOHANG) }
      // Its children may still be on their way out; they have the rest of the grace.
      family = family.filter(isRunning)
      if reaped && family.isEmpty { break }
      usleep(pollMicroseconds)
    }
    if !reaped { family += freeze(pid).filter { !family.contains($0) } }
    for member in (reaped ? [] : [pid]) + family { kill(member, SIGKILL) }
    if !reaped {
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    // Killed, the adopted ones are gone in a moment; a process stuck in the kernel is not
    // waited for longer than that.
    let reapedBy = MonotonicClock.nanoseconds() + 200_000_000
    var left = family.filter { waitpid($0, nil, WNOHANG) == 0 }
    while !left.isEmpty && MonotonicClock.nanoseconds() < reapedBy {
      left = left.filter { waitpid($0, nil, WNOHANG) == 0 }
      if !left.isEmpty { usleep(1_000) }
    }
    let (code, signal) = ChildProcess.decode(waitStatus: status)
    return ProgramExit(status: code, signal: signal, endedAfterLaunch: true)
  }

  /// Stops the program and every process it started (SIGSTOP), listing them again until no
  /// new one appears, so that none can fork between the list and the signal that ends it:
  /// a program ended while it starts a helper would otherwise leave that helper running.
  /// Returns the descendants, stopped (the adopted orphans too, when this process adopts them).
  private static func freeze(_ pid: pid_t) -> [pid_t] {
    kill(pid, SIGSTOP)
    awaitStop([pid])
    var stopped: Set<pid_t> = []
    for _ in 0..<64 {
      let members =
        adopting.withLock { $0 } ? descendants(of: getpid()).filter { $0 != pid } : descendants(of: pid)
      let new = members.filter { !stopped.contains($0) }
      if new.isEmpty { break }
      for member in new { kill(member, SIGSTOP) }
      awaitStop(new)
      stopped.formUnion(new)
    }
    return stopped.sorted()
  }

  /// Waits (50 ms at most) until each of `pids` has stopped or ended: a signal is taken
  /// when the process next leaves the kernel, and a fork it is inside of completes first.
  private static func awaitStop(_ pids: [pid_t]) {
    let deadline = MonotonicClock.nanoseconds() + 50_000_000
    var left = pids
    while !left.isEmpty && MonotonicClock.nanoseconds() < deadline {
      left = left.filter { pid in
        guard let state = statFields(of: pid)?.first else { return false }
        return state != "T" && state != "t" && state != "Z" && state != "X"
      }
      if !left.isEmpty { usleep(200) }
    }
  }

  /// Whether `pid` is a process that has not ended: a zombie has (an orphan's new parent
  /// may be slow to reap it, or never do so in a container whose first process does not).
  static func isRunning(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 && statFields(of: pid)?.first != "Z"
  }

  /// Every live process whose chain of parents leads to `root`, read from `/proc`.
  public static func descendants(of root: pid_t) -> [pid_t] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    var children: [pid_t: [pid_t]] = [:]
    for name in names {
      guard let pid = pid_t(name), let parent = parentPID(of: pid) else { continue }
      children[parent, default: []].append(pid)
    }
    var found: [pid_t] = []
    var queue = children[root] ?? []
    while let next = queue.popLast() {
      found.append(next)
      queue += children[next] ?? []
    }
    return found.sorted()
  }

  /// The parent pid field of `/proc/<pid>/stat`.
  static func parentPID(of pid: pid_t) -> pid_t? {
    guard let fields = statFields(of: pid), fields.count > 1 else { return nil }
    return pid_t(fields[1])
  }

  /// The fields of `/proc/<pid>/stat` after the command name (which may hold blanks and
  /// parentheses: the last ')' ends it), from the state on.
  private static func statFields(of pid: pid_t) -> [String]? {
    guard let bytes = try? FileReading.bytes(atPath: "/proc/\(pid)/stat"),
      let close = bytes.lastIndex(of: UInt8(ascii: ")"))
    else { return nil }
    return bytes[(close + 1)...].split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program once cold and counts what its launch read of each of its files, by section.
///
/// Method (`ColdLaunchMethod`):
/// 1. Each file is made cold: written back and dropped from the page cache
///    (`PageCache.evict`). Pages a running process maps cannot be dropped; they are read
///    back and left out of every count (`ColdModule.residentBefore`).
/// 2. The program runs to its end: its exit, or `timeLimitMilliseconds` after the start,
///    when it is ended with every process it started (`AfterLaunch.end`). With perf it runs
///    under `perf record -e major-faults -d`, and `perf trace -i` then prints every major
///    fault with its file and offset (`PerfMajorFaults`).
/// 3. The pages of each file in the cache now and not before are the pages the launch read
///    (`mincore` on a fresh mapping): majors and the read-ahead around them, and what the
///    loader `read()` (the ELF headers). A page counts for the section holding most of it;
///    a major fault for the section holding its byte. With perf the files are made cold
///    again and the program run a second time under perf, since perf reads their symbol
///    tables when it prints (the pages read come from the first launch).
///
/// Pages read depend on the device's read-ahead (`StorageDevice`): on a disk reading ahead
/// 8 MiB a small binary is read whole at its first fault; on a loop device with 16 KiB
/// read-ahead the counts are close to a phone's. Nothing else may read the files meanwhile.
public struct ColdLaunchReferee: Sendable {
  /// Which method to count with.
  public enum MethodChoice: String, Sendable, CaseIterable {
    /// perf where it is installed and permitted, else the page cache.
    case automatic = "auto"
    case pageCache = "page-cache"
    case perf
  }

  public var method: MethodChoice
  /// The perf program (`perf` on `PATH`).
  public var perfProgram: String

  public init(method: MethodChoice = .automatic, perfProgram: String = "perf") {
    self.method = method
    self.perfProgram = perfProgram
  }

  /// Runs `program` once cold and counts what it read of its executable and of `files`
  /// (its own shared libraries, say: the files whose layout is in question).
  ///
  /// The program's stdout goes to `standardOutput` (our stderr by default).
  public func measure(
    program: String, arguments: [String], files: [String] = [], timeLimitMilliseconds: Int? = nil,
    standardOutput: Int32 = 2
  ) throws -> ColdLaunch {
    let executable = ProcessRunner.resolve(program)
    var paths: [String] = []
    for path in [executable] + files
    where !paths.contains(where: { FileIdentity.same($0, path) }) {
      paths.append(path)
    }
    let maps = try paths.map { try FileSectionMap(path: $0) }
    let method = try chosenMethod()
    let pageSize = PageCache.pageSize
    let run = Launch(
      executable: executable, program: program, arguments: arguments, paths: paths,
      timeLimitMilliseconds: timeLimitMilliseconds, standardOutput: standardOutput)
    // perf reads the files' symbol tables while it runs, to name the faulting functions: the
    // pages read come from a launch of their own, which nothing else reads the files during.
    let (exit, before, after) = try run.underPageCache()
    var majors: [String: [UInt64]] = [:]
    var withoutFile: Int?
    if method == .perf {
      let parsed = try run.underPerf(ProcessRunner.resolve(perfProgram), name: perfProgram)
      withoutFile = parsed.withoutFile
      for (path, offsets) in parsed.offsets {
        guard let index = paths.firstIndex(where: { FileIdentity.same($0, path) }) else {
          continue
        }
        majors[paths[index], default: []] += offsets
      }
    }
    var modules: [ColdModule] = []
    for (index, path) in paths.enumerated() {
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0
      modules.append(
        ColdModule(
          path: path, device: StorageDevice.of(path: path), filePages: Int((size + pageSize - 1) / pageSize),
          residentBefore: before[index].count, map: maps[index], pagesRead: after[index].subtracting(before[index]),
          pageSize: pageSize, majorFaultOffsets: method == .perf ? majors[path] ?? [] : nil))
    }
    return ColdLaunch(
      command: [program] + arguments, method: method, end: exit.endedAfterLaunch ? .timeLimit : .exit,
      exitStatus: exit.status, endedByTool: exit.endedAfterLaunch, pageSize: pageSize, modules: modules,
      majorFaultsWithoutFile: withoutFile)
  }

  /// One program's cold launches.
  private struct Launch {
    var executable: String
    var program: String
    var arguments: [String]
    var paths: [String]
    var timeLimitMilliseconds: Int?
    var standardOutput: Int32

    /// Drops the files from the cache; returns the pages that stayed.
    func evict() throws -> [Set<UInt64>] {
      try paths.map { path in
        try PageCache.evict(path: path)
        return try PageCache.residentPages(path: path)
      }
    }

    var deadline: UInt64? { timeLimitMilliseconds.map { MonotonicClock.nanoseconds() + UInt64($0) * 1_000_000 } }

    /// Runs it cold: how it ended, each file's cached pages before and after.
    func underPageCache() throws -> (ProgramExit, [Set<UInt64>], [Set<UInt64>]) {
      let before = try evict()
      let deadline = self.deadline
      let child = try ChildProcess.spawn(
        executable, arguments: [program] + arguments, environment: ChildProcess.environment(adding: [:]),
        program: program, standardOutput: standardOutput)
      let exit = ProgramEnding.wait(
        for: child.pid, afterLaunch: .end, launchOver: deadline.map { end in { MonotonicClock.nanoseconds() > end } })
      return (exit, before, try paths.map { try PageCache.residentPages(path: $0) })
    }

    /// Runs it cold under `perf record`, then reads the recording with `perf trace -F maj`:
    /// its major faults. `perf trace` run live reads the files' symbol tables while the
    /// program runs, whenever it first names a fault in them, and a page that read brings in
    /// is no fault of the program's: the names are looked up only once the launch is over.
    func underPerf(_ perf: String, name: String) throws -> MajorFaultTrace {
      let work = try ScratchDirectory.temporary(prefix: "orderfile-cold")
      defer { work.remove() }
      let recording = work.file("majors.data")
      let output = work.file("majors.txt")
      _ = try evict()
      let deadline = self.deadline
      let child = try ChildProcess.spawn(
        perf, arguments: [name] + PerfMajorFaults.record(into: recording) + ["--", executable] + arguments,
        environment: ChildProcess.environment(adding: [:]), program: name, standardOutput: standardOutput)
      let exit = ColdLaunchReferee.waitUnderPerf(child.pid, deadline: deadline)
      let read = try ProcessRunner.run(perf, PerfMajorFaults.read(recording, into: output))
      guard read.succeeded, let text = try? String(contentsOfFile: output, encoding: .utf8) else {
        let first = read.standardError.split(separator: "\n").first.map(String.init) ?? ""
        throw LayoutError.perfFailed(
          program: program, reason: "perf recorded nothing readable (exit status \(exit.status)) \(first)")
      }
      return MajorFaultTrace(text)
    }
  }

  /// The method `method` asks for, where it can be used.
  public func chosenMethod() throws -> ColdLaunchMethod {
    switch method {
    case .pageCache: return .pageCache
    case .perf:
      if let reason = perfUnavailable() { throw LayoutError.perfFailed(program: perfProgram, reason: reason) }
      return .perf
    case .automatic: return perfUnavailable() == nil ? .perf : .pageCache
    }
  }

  /// Why perf cannot count major faults here (not installed, not permitted); nil when it can.
  public func perfUnavailable() -> String? {
    let perf = ProcessRunner.resolve(perfProgram)
    guard access(perf, X_OK) == 0 else { return "not installed (Debian: apt-get install linux-perf)" }
    guard let work = try? ScratchDirectory.temporary(prefix: "orderfile-perf") else { return "no temporary directory" }
    defer { work.remove() }
    let recording = work.file("true.data")
    guard let recorded = try? ProcessRunner.run(perf, PerfMajorFaults.record(into: recording) + ["--", "/bin/true"]),
      let read = try? ProcessRunner.run(perf, PerfMajorFaults.read(recording, into: work.file("true.txt")))
    else {
      return "it could not be started"
    }
    for result in [recorded, read] where !result.succeeded {
      let first = result.standardError.split(separator: "\n").first.map(String.init) ?? "exit status \(result.status)"
      return "perf fails here: \(first) (it needs root or a low kernel.perf_event_paranoid)"
    }
    return nil
  }

  /// Waits for perf, which exits once the program has; at the deadline the program and what
  /// it started (perf's descendants) are sent SIGTERM, and SIGKILL after the grace period,
  /// while perf itself is left to write out what it saw.
  static func waitUnderPerf(_ perf: pid_t, deadline: UInt64?) -> ProgramExit {
    guard let deadline else { return ProgramEnding.wait(for: perf, afterLaunch: .waitForExit, launchOver: nil) }
    var status: Int32 = 0
    var ended = false
    var killAt: UInt64?
    while true {
      let got = waitpid(perf, &status, WNOHANG)
      if got == perf || (got < 0 && errno != EINTR) { break }
      let now = MonotonicClock.nanoseconds()
      if !ended && now > deadline {
        ended = true
        for pid in ProgramEnding.descendants(of: perf) { kill(pid, SIGTERM) }
        killAt = now + UInt64(AfterLaunch.defaultGraceMilliseconds) * 1_000_000
      }
      if let at = killAt, now > at {
        for pid in ProgramEnding.descendants(of: perf) { kill(pid, SIGKILL) }
        killAt = nil
      }
      usleep(5_000)
    }
    let (code, signal) = ChildProcess.decode(waitStatus: status)
    return ProgramExit(status: code, signal: signal, endedAfterLaunch: ended)
  }
}

/// The two perf commands that count a launch's major faults: one records the faults with
/// their addresses and the launch's mappings, the other prints them, each with the file and
/// offset it fell in, once the launch is over.
public enum PerfMajorFaults {
  /// `perf record`'s arguments (the program follows `--`): every major fault, its address.
  public static func record(into recording: String) -> [String] {
    ["record", "-e", "major-faults", "-c", "1", "-d", "--no-buildid", "-q", "-o", recording]
  }

  /// `perf trace`'s arguments to print the recording's faults, one line each.
  public static func read(_ recording: String, into output: String) -> [String] {
    ["trace", "-i", recording, "--no-syscalls", "-F", "maj", "-o", output]
  }
}

/// The lines of `perf trace --no-syscalls -F maj`, one per major fault:
/// `0.000 ( 0.000 ms): lua/1114 majfault [luaV_execute+0x12] => /path/lua@0x1bb14 (d.)`.
/// A fault inside the kernel names an address, not a file: `=> 0x5569580a95c0 (?k)`.
public struct MajorFaultTrace: Sendable, Equatable {
  /// File offsets of the faults in each file, as perf names the file.
  public var offsets: [String: [UInt64]]
  /// Faults that name no file.
  public var withoutFile: Int

  public init(_ text: String) {
    offsets = [:]
    withoutFile = 0
    for line in text.split(separator: "\n") where line.contains(" majfault ") {
      guard let arrow = line.range(of: " => ") else { continue }
      var target = line[arrow.upperBound...]
      if let mark = target.range(of: " (", options: .backwards) { target = target[..<mark.lowerBound] }
      guard let at = target.range(of: "@0x", options: .backwards),
        let offset = UInt64(target[at.upperBound...], radix: 16)
      else {
        withoutFile += 1
        continue
      }
      offsets[String(target[..<at.lowerBound]), default: []].append(offset)
    }
  }
}

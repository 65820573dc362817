import Foundation
import OrderfileSupport

/// The second launch `record --timing-launch` makes, and how a report takes its times.
///
/// Why: a recording's times have the recorder's own work taken out (arming, each trap's
/// handler and kernel round trip, a cold trap's caches), but not what that work leaves behind:
/// code that runs from pages of its own instead of the ones its parent left in the caches,
/// caches the arming replaced. On clang compiling a file, whose `-cc1` child arms 85 MB of code
/// and makes 10,000 first calls, that left main → exit 1-4 ms off (Docs/Performance.md,
/// "Phases of large programs"). The timing launch runs the same command again with traps on
/// only the functions that mark its phases (each process's first call and `main`): a launch
/// as close to the uninstrumented one as the recorder can make, whose phases a report uses.
///
/// How: the timing launch's traces sit beside the recording's, as `<trace>.timing` and
/// `<trace>.timing.<pid>`. Each function both launches called is an anchor: a time of the
/// recording and the time of the same call in the timing launch. A report moves every time
/// of the recording onto the timing launch's by the anchors around it, in proportion between
/// them (`TimingWarp`): phases then last what they lasted in the timing launch, and first
/// calls keep their order and their place inside their phase.
public enum TimingLaunch {
  /// The name part that sets a timing launch's traces apart from the recording's.
  public static let suffix = "timing"

  /// Where the timing launch of the recording at `trace` is written.
  public static func path(for trace: String) -> String { trace + "." + suffix }

  /// Whether the name parts after a trace's own name are those of another process's or image's
  /// trace of the same recording: pids and `exec<n>`.
  public static func isNumbered<Parts: Collection>(_ parts: Parts) -> Bool where Parts.Element == Substring {
    parts.allSatisfy { part in
      let digits = part.hasPrefix("exec") ? part.dropFirst(4) : part
      return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
  }

  /// The recording a trace belongs to and its place in it: the top trace and, for the trace of
  /// another process or image (`<trace>.<pid>`, `<trace>.<pid>.exec<n>`), that file's suffix.
  static func family(of path: String) -> (top: String, member: String?) {
    // A recording named like a member (`-o app.1`) is a top when its timing launch is beside it.
    if FileManager.default.fileExists(atPath: self.path(for: path)) { return (path, nil) }
    let parts = PathName.base(of: path).split(separator: ".", omittingEmptySubsequences: false)
    // The longest prefix after which every part is a pid or an exec image's number.
    for count in 1..<max(parts.count, 1) {
      let rest = parts[count...]
      guard isNumbered(rest), rest.first.map({ !$0.hasPrefix("exec") }) == true else { continue }
      let member = rest.joined(separator: ".")
      let top = String(path.dropLast(member.count + 1))
      if TraceReader.startsWithMagic(path: top) { return (top, member) }
    }
    return (path, nil)
  }

  /// The timing launch's trace that times the same process as the trace at `path`, or nil
  /// when the recording has no timing launch or no trace of it matches. Another process is
  /// matched by its program, whether it was a fork child, and the order the processes of that
  /// kind started in; none when the two launches had not as many of that kind.
  public static func counterpart(of path: String) -> String? {
    let (top, member) = family(of: path)
    let timing = self.path(for: top)
    guard FileManager.default.fileExists(atPath: timing) else { return nil }
    guard member != nil else { return timing }
    // In the order they started: a child's start is known to a clock tick, so processes of one
    // tick go by pid, which the kernel hands out in turn.
    func others(of top: String) -> [(kind: String, start: UInt64, pid: UInt32, path: String)] {
      let (directory, base) = PathName.split(top)
      // Spelled as `top` is: a trace named ./t.trace has members ./t.trace.<pid>.
      let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
        $0.hasPrefix(base + ".")
      }.map { top + $0.dropFirst(base.count) }
      return files.filter {
        let member = family(of: $0)
        return member.top == top && member.member != nil
      }.compactMap { file in
        guard let trace = try? TraceReader.read(path: file),
          let program = trace.modules.first(where: \.isMainExecutable)?.path
        else { return nil }
        return (
          program + (trace.header.isForked ? " (fork)" : ""), trace.header.processStartNanoseconds,
          trace.header.pid, file
        )
      }.sorted { ($0.start, $0.pid, $0.path) < ($1.start, $1.pid, $1.path) }
    }
    let recorded = others(of: top)
    guard let own = recorded.first(where: { $0.path == path }) else { return nil }
    let mine = recorded.filter { $0.kind == own.kind }
    let timed = others(of: timing).filter { $0.kind == own.kind }
    guard mine.count == timed.count, let rank = mine.firstIndex(where: { $0.path == path }) else { return nil }
    return timed[rank].path
  }
}

extension TimingLaunch {
  /// Whether `timing` can be the timing launch of `recorded`: the same program (path and
  /// build-id), started after the recording and within a minute of its end (its recorder's time
  /// added back: the end is on the program's clock). A timing launch left beside a trace copied
  /// over the recording, or from another day, is not.
  public static func belongs(_ timing: Trace, to recorded: Trace) -> Bool {
    func program(_ trace: Trace) -> [String]? {
      trace.modules.first(where: \.isMainExecutable).map { [$0.path, $0.buildIDHex] }
    }
    let started = recorded.header.processStartNanoseconds
    let ended =
      (recorded.header.endNanoseconds ?? recorded.records.map(\.timeNanoseconds).max() ?? started)
      + (recorded.header.recorderTime?.totalNanoseconds ?? 0)
    let minute: UInt64 = 60_000_000_000
    return program(timing) == program(recorded) && timing.header.processStartNanoseconds >= started
      && timing.header.processStartNanoseconds <= ended + minute
  }
}

/// Moves a recording's times onto its timing launch's (see `TimingLaunch`).
public struct TimingWarp: Sendable {
  /// (time in the recording, time in the timing launch), both from their process's start,
  /// ascending in both.
  public private(set) var anchors: [(recorded: UInt64, timed: UInt64)]
  /// The functions both launches called among the anchors.
  public private(set) var calls = 0

  /// The anchors of `recorded` and `timing`: process start, the first hook, every function both
  /// called (by module file and address, its first call in each), the launch window's end and
  /// the trace's end, the first hook and the ends as a report takes them. An anchor that would
  /// run backwards against those before it is left out.
  public init(recorded: Trace, timing: Trace) {
    func relative(_ trace: Trace, _ time: UInt64) -> UInt64 {
      time > trace.header.processStartNanoseconds ? time - trace.header.processStartNanoseconds : 0
    }
    // The timing launch's calls by the recording's module index and address: a recording holds
    // up to hundreds of thousands of first calls, the timing launch a few.
    let indexOf = Dictionary(
      recorded.modules.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
    var timed: [Int: [UInt64: UInt64]] = [:]
    for record in timing.records where record.module < timing.modules.count {
      guard let module = indexOf[timing.modules[record.module].path] else { continue }
      let time = relative(timing, record.timeNanoseconds)
      timed[module, default: [:]][record.address] = min(timed[module]?[record.address] ?? .max, time)
    }
    var pairs: [(recorded: UInt64, timed: UInt64, isCall: Bool)] = [(0, 0, false)]
    for record in recorded.records {
      if let time = timed[record.module]?[record.address] {
        pairs.append((relative(recorded, record.timeNanoseconds), time, true))
      }
    }
    pairs.append(
      (relative(recorded, recorded.firstHookNanoseconds), relative(timing, timing.firstHookNanoseconds), false))
    if let mine = recorded.header.windowEndNanoseconds, let theirs = timing.header.windowEndNanoseconds,
      recorded.header.windowReason == timing.header.windowReason, recorded.header.windowReason != .exit
    {
      pairs.append((relative(recorded, mine), relative(timing, theirs), false))
    }
    if recorded.header.endNanoseconds != nil, timing.header.endNanoseconds != nil {
      pairs.append(
        (relative(recorded, recorded.reportedEndNanoseconds), relative(timing, timing.reportedEndNanoseconds), false))
    }
    // A function's call first among anchors at one time: it is the one counted.
    pairs.sort { ($0.recorded, $0.timed, $0.isCall ? 0 : 1) < ($1.recorded, $1.timed, $1.isCall ? 0 : 1) }
    anchors = []
    for pair in pairs where anchors.last.map({ pair.recorded > $0.recorded && pair.timed >= $0.timed }) ?? true {
      anchors.append((pair.recorded, pair.timed))
      calls += pair.isCall ? 1 : 0
    }
  }

  /// `time`, from process start in the recording, moved onto the timing launch: in
  /// proportion between the anchors around it, after the last by as much as the last moved.
  public func map(_ time: UInt64) -> UInt64 {
    guard let last = anchors.last else { return time }
    guard time < last.recorded else { return last.timed + (time - last.recorded) }
    let next = anchors.firstIndex { $0.recorded > time } ?? anchors.count - 1
    let (low, high) = (anchors[max(next - 1, 0)], anchors[next])
    let span = Double(high.recorded - low.recorded)
    let share = span > 0 ? Double(time - low.recorded) / span : 0
    return low.timed + UInt64((Double(high.timed - low.timed) * share).rounded())
  }

  /// `trace` with every time moved (`map`). Its header keeps the recording's recorder time:
  /// what that recording cost, which the moved times no longer hold.
  public func apply(to trace: Trace) -> Trace {
    let origin = trace.header.processStartNanoseconds
    func moved(_ time: UInt64) -> UInt64 { origin + map(time > origin ? time - origin : 0) }
    var out = trace
    out.header.traceStartNanoseconds = moved(trace.header.traceStartNanoseconds)
    out.header.startupEndNanoseconds = trace.header.startupEndNanoseconds.map(moved)
    out.header.windowEndNanoseconds = trace.header.windowEndNanoseconds.map(moved)
    out.header.endNanoseconds = trace.header.endNanoseconds.map(moved)
    for i in out.records.indices { out.records[i].timeNanoseconds = moved(out.records[i].timeNanoseconds) }
    for i in out.marks.indices { out.marks[i].timeNanoseconds = moved(out.marks[i].timeNanoseconds) }
    for i in out.dataTouches.indices { out.dataTouches[i].timeNanoseconds = moved(out.dataTouches[i].timeNanoseconds) }
    for t in out.threads.indices {
      for e in out.threads[t].events.indices {
        out.threads[t].events[e].timeNanoseconds = moved(out.threads[t].events[e].timeNanoseconds)
      }
    }
    return out
  }
}

import Foundation
import OrderfileSupport
import OrderfileTrace

/// Writes the launch in Chrome's trace-event format, which Perfetto and chrome://tracing open.
///
/// Each thread is a track; the launch phases are complete events ("X") on a track of their
/// own; marks are instant events ("i"); first calls are instant events on their thread;
/// in full mode every call is a begin/end pair ("B"/"E"), properly nested per thread.
/// Timestamps are microseconds from process start.
public struct ChromeTraceExporter: Renderer {
  /// The trace the profile was built from: its threads' calls in full mode.
  public var trace: Trace
  /// Names for the trace's addresses.
  public var symbols: SymbolTable

  public init(trace: Trace, symbols: SymbolTable) {
    self.trace = trace
    self.symbols = symbols
  }

  /// The track (tid) that holds the phases; no kernel thread has id 0.
  static let phaseTrack: UInt32 = 0

  public func render(_ profile: StartupProfile) throws -> String {
    let pid = Int(profile.pid)
    let origin = trace.header.processStartNanoseconds
    func micros(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1000 }
    func relative(_ time: UInt64) -> UInt64 { time > origin ? time - origin : 0 }

    var events: [[String: Any]] = []
    events.append(["ph": "M", "pid": pid, "tid": 0, "name": "process_name", "args": ["name": "launch of pid \(pid)"]])
    events.append([
      "ph": "M", "pid": pid, "tid": Int(Self.phaseTrack), "name": "thread_name", "args": ["name": "launch phases"],
    ])
    var threadIDs = Set(profile.threads.map(\.thread))
    threadIDs.formUnion(trace.threads.map(\.threadID))
    for thread in threadIDs.sorted() {
      let label = thread == profile.pid ? "main thread \(thread)" : "thread \(thread)"
      events.append(["ph": "M", "pid": pid, "tid": Int(thread), "name": "thread_name", "args": ["name": label]])
    }
    if let preMain = profile.preMain {
      // A track of its own: its parts do not nest in the phases (the loader runs past the
      // first hook when a recorder outside the process set it).
      let track = (1...UInt32.max).first { !threadIDs.contains($0) } ?? 1
      events.append(["ph": "M", "pid": pid, "tid": Int(track), "name": "thread_name", "args": ["name": "before main"]])
      for part in preMain.parts {
        guard let start = part.startNanoseconds else { continue }
        events.append([
          "ph": "X", "pid": pid, "tid": Int(track), "name": part.name,
          "cat": part.isOverhead ? "overhead" : "before main",
          "ts": micros(start), "dur": micros(part.durationNanoseconds),
          "args": ["firstCalls": part.firstCalls ?? 0],
        ])
      }
      for run in preMain.modules {
        events.append([
          "ph": "i", "s": "t", "pid": pid, "tid": Int(track), "name": "initializers of \(run.module)",
          "cat": "initializers", "ts": micros(run.startNanoseconds),
          "args": ["initializers": run.initializers, "functions": Array(run.functions.prefix(50))],
        ])
      }
    }
    for phase in profile.launchPhases {
      events.append([
        "ph": "X", "pid": pid, "tid": Int(Self.phaseTrack), "name": phase.name, "cat": "phase",
        "ts": micros(phase.startNanoseconds), "dur": micros(phase.durationNanoseconds),
        "args": ["firstCalls": phase.firstCalls, "newPages": phase.newPages],
      ])
    }
    // What followed the launch is one instant at its end, so that the viewer's time axis is
    // the launch's and not the idle time after it.
    let launchEnd = profile.launchEndNanoseconds
    if let after = profile.afterLaunch {
      events.append([
        "ph": "i", "s": "g", "pid": pid, "tid": Int(Self.phaseTrack), "name": after.foldedSummary,
        "cat": "after the launch", "ts": micros(after.startNanoseconds),
        "args": [
          "durationNanoseconds": after.durationNanoseconds, "firstCalls": after.firstCalls, "newPages": after.newPages,
        ],
      ])
    }
    for boundary in profile.boundaries
    where (boundary.kind == .mark || boundary.kind == .main) && boundary.timeNanoseconds <= launchEnd {
      events.append([
        "ph": "i", "s": "g", "pid": pid, "tid": Int(boundary.thread ?? profile.pid), "name": boundary.name,
        "cat": "mark", "ts": micros(boundary.timeNanoseconds),
      ])
    }
    for call in profile.firstCalls
    where !(profile.phases.indices.contains(call.phase) && profile.phases[call.phase].isAfterLaunch) {
      events.append([
        "ph": "i", "s": "t", "pid": pid, "tid": Int(call.thread), "name": call.name, "cat": "first call",
        "ts": micros(call.timeNanoseconds),
      ])
    }
    let end = CallTree.endTime(of: trace)
    for thread in trace.threads {
      for call in CallTree.calls(of: thread, closingAt: end) {
        let name =
          call.module.map { symbols.name(module: $0, address: call.address, in: trace) }
          ?? "0x" + String(call.address, radix: 16)
        // Begin and end go out in nesting order after a stable sort by timestamp.
        events.append([
          "ph": "B", "pid": pid, "tid": Int(thread.threadID), "name": name, "cat": "call",
          "ts": micros(relative(call.start)), "_order": events.count,
        ])
        events.append([
          "ph": "E", "pid": pid, "tid": Int(thread.threadID), "name": name, "cat": "call",
          "ts": micros(relative(call.end)), "_depth": call.depth,
        ])
      }
    }
    let sorted = sortForViewers(events)
    let document: [String: Any] = ["traceEvents": sorted, "displayTimeUnit": "ms"]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  /// Orders events by timestamp; at equal times, ends before begins, deeper ends first,
  /// so each thread's begin/end pairs nest. Internal ordering keys are removed.
  func sortForViewers(_ events: [[String: Any]]) -> [[String: Any]] {
    func key(_ event: [String: Any], _ index: Int) -> (Double, Int, Int, Int) {
      let ts = event["ts"] as? Double ?? -1
      let phase = event["ph"] as? String
      let rank = phase == "M" ? 0 : phase == "E" ? 1 : 2
      let depth = -(event["_depth"] as? Int ?? 0)
      return (ts, rank, depth, index)
    }
    return events.enumerated().sorted { key($0.element, $0.offset) < key($1.element, $1.offset) }.map {
      var event = $0.element
      event["_order"] = nil
      event["_depth"] = nil
      return event
    }
  }
}

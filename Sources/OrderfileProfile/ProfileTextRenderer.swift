import Foundation
import OrderfileSupport

/// Formats nanoseconds as milliseconds with three decimals.
func milliseconds(_ nanoseconds: UInt64) -> String {
  String(format: "%.3f ms", Double(nanoseconds) / 1e6)
}

/// The profile as text tables for a terminal.
public struct ProfileTextRenderer: Renderer {
  /// The first functions named for each phase.
  public var functionsPerPhase: Int

  public init(functionsPerPhase: Int = 5) {
    self.functionsPerPhase = functionsPerPhase
  }

  public func render(_ profile: StartupProfile) -> String {
    var lines: [String] = []
    lines.append(
      "launch of pid \(profile.pid) (\(profile.trace)); times from process start, \(Self.startDescription(profile))"
    )
    if let note = profile.emulatedTimesNote { lines.append(note) }
    if let overhead = profile.recorderOverhead { lines.append(overhead.summary) }
    lines.append("")
    lines.append("phases")
    var rows = [["phase", "start", "duration", "first calls", "new pages"]]
    for phase in profile.launchPhases {
      rows.append([
        phase.name, milliseconds(phase.startNanoseconds), milliseconds(phase.durationNanoseconds),
        String(phase.firstCalls), String(phase.newPages),
      ])
    }
    lines += TextFormatting.table(rows, indent: "  ")
    if let after = profile.afterLaunch { lines.append("  " + after.foldedSummary) }
    for phase in profile.phases where !phase.functions.isEmpty && functionsPerPhase > 0 {
      let shown = phase.functions.prefix(functionsPerPhase).joined(separator: ", ")
      let more = phase.functions.count > functionsPerPhase ? ", … (\(phase.functions.count) in all)" : ""
      lines.append("  \(phase.name): \(shown)\(more)")
    }
    if let preMain = profile.preMain {
      lines.append("")
      lines += renderPreMain(preMain)
    }
    if let rows = profile.mainToLaunchEndRows {
      lines.append("")
      lines.append(profile.mainToLaunchEndTitle)
      lines += TextFormatting.table(rows, indent: "  ")
    }
    lines.append("")
    lines.append("threads")
    rows = [["thread", "first calls", "first", "last"]]
    for thread in profile.threads {
      rows.append([
        thread.isMainThread ? "\(thread.thread) (main)" : String(thread.thread), String(thread.firstCalls),
        milliseconds(thread.firstCallNanoseconds), milliseconds(thread.lastCallNanoseconds),
      ])
    }
    lines += TextFormatting.table(rows, indent: "  ")
    lines.append("")
    lines.append("modules")
    rows = [["module", "first calls", "pages"]]
    for module in profile.modules {
      rows.append([
        module.path + (module.symbolized ? "" : " (not symbolized)"), String(module.firstCalls), String(module.pages),
      ])
    }
    lines += TextFormatting.table(rows, indent: "  ")
    if let slowest = profile.slowestFirstCalls {
      lines.append("")
      lines.append("slowest first calls (full mode, callees included)")
      rows = [["function", "thread", "start", "inclusive"]]
      for call in slowest {
        rows.append([
          call.name, String(call.thread), milliseconds(call.startNanoseconds), milliseconds(call.inclusiveNanoseconds),
        ])
      }
      lines += TextFormatting.table(rows, indent: "  ")
      if let dropped = profile.droppedEvents, dropped > 0 {
        lines.append(
          "warning: \(dropped) events were dropped because thread buffers were full (raise ORDERFILE_EVENTS)")
      }
    }
    for module in profile.unsymbolizedModules { lines.append("note: not symbolized: \(module)") }
    return lines.joined(separator: "\n") + "\n"
  }

  /// "exact, from the recorder's spawn time", or how precisely an estimate is known.
  static func startDescription(_ profile: StartupProfile) -> String {
    switch profile.processStartSource {
    case .spawn: "\(profile.processStartSource.label)"
    case .procStat:
      "known to \(milliseconds(profile.processStartResolutionNanoseconds)) (\(profile.processStartSource.label))"
    case .traceStart: profile.processStartSource.label
    }
  }

  func renderPreMain(_ preMain: StartupProfile.PreMain) -> [String] {
    var lines = [
      "before main: \(milliseconds(preMain.mainNanoseconds))"
        + (preMain.runtimeStartupNanoseconds == nil
          ? "" : ", the program's own \(milliseconds(preMain.programNanoseconds))")
    ]
    // First calls are counted in initializers only: without any, the column would be empty.
    let counted = preMain.parts.contains { $0.firstCalls != nil }
    var rows = [["part", "start", "duration"] + (counted ? ["first calls"] : [])]
    for part in preMain.parts {
      rows.append(
        [part.name, part.startNanoseconds.map(milliseconds) ?? "-", milliseconds(part.durationNanoseconds)]
          + (counted ? [part.firstCalls.map(String.init) ?? "-"] : []))
    }
    lines += TextFormatting.table(rows, indent: "  ")
    for run in preMain.modules where !run.functions.isEmpty && functionsPerPhase > 0 {
      let shown = run.functions.prefix(functionsPerPhase).joined(separator: ", ")
      let more = run.functions.count > functionsPerPhase ? ", … (\(run.functions.count) in all)" : ""
      lines.append("  \(run.module): \(shown)\(more)")
    }
    if !preMain.libraries.isEmpty {
      lines.append("")
      lines.append("before main by module, in load order")
      lines += TextFormatting.table(preMain.libraryRows, indent: "  ")
      lines += StartupProfile.PreMain.libraryNotes.map { "  " + $0 }
    }
    return lines
  }
}

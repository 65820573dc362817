import Foundation
import OrderfileSupport

/// What every recorder says the same way, whichever recorded.
extension Recording {
  /// The notes on modules the planner left unarmed, for either recorder.
  static func moduleNotes(skipped: [String], excluded: [String]) -> [String] {
    var notes: [String] = []
    if !skipped.isEmpty {
      notes.append("\(skipped.count) system libraries not recorded (--system-libraries records them)")
    }
    if !excluded.isEmpty {
      notes.append(
        "not recorded, as --exclude-module asked: \(TextFormatting.list(excluded.map { PathName.split($0).base }))")
    }
    return notes
  }

  /// What `record` says when a termination signal sent to it stopped the recording.
  static func stopMessage(signal: Int32, endedByIt: Bool, status: Int32) -> String {
    "recording stopped by \(signalName(signal)): the program was let go and sent it, then "
      + (endedByIt ? "ended by it" : "ended with status \(status)") + "; the traces hold what ran until then"
  }

  static func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGTERM: return "SIGTERM"
    case SIGHUP: return "SIGHUP"
    case SIGINT: return "SIGINT"
    default: return "signal \(signal)"
    }
  }

  /// The warning for a `--until` name that matched no function of the modules recorded,
  /// found only once the program ran (a library it loaded itself, a program a script started).
  static func untilMatchedNothing(_ name: String) -> String {
    "--until '\(name)' named no function of the recorded modules; the window ended at exit"
  }
}

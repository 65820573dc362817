import Foundation
import OrderfileRegeneration

/// Progress on stderr: one plain line per step; on a terminal, the recording runs count up
/// in place on the line below.
public final class ProgressDisplay {
  public let interactive: Bool
  private var counting = false

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    interactive = isatty(2) == 1 && environment["TERM"] != "dumb"
  }

  public func show(_ progress: RegenerationProgress) {
    switch progress {
    case .step(let number, let total, let text):
      write("orderfile: [\(number)/\(total)] \(text)\n")
    case .run(let scenario, let run, let runs):
      guard interactive else { return }
      write("\r\u{1B}[K  \(scenario): run \(run) of \(runs)")
      counting = true
    case .finished:
      guard interactive, counting else { return }
      write("\r\u{1B}[K")
      counting = false
    }
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}

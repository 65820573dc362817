import Foundation

/// Checks a trace-event JSON document as chrome://tracing and Perfetto read it.
public enum ChromeTraceValidator {
  public struct Invalid: Error, CustomStringConvertible { public var description: String }

  public static func validate(_ json: String) throws {
    guard let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
      let events = document["traceEvents"] as? [[String: Any]]
    else { throw Invalid(description: "no traceEvents array") }
    var stacks: [Int: [String]] = [:]
    var lastTimestamp = -Double.infinity
    for (index, event) in events.enumerated() {
      guard let phase = event["ph"] as? String, event["pid"] is Int, event["tid"] is Int, event["name"] is String else {
        throw Invalid(description: "event \(index) lacks ph, pid, tid or name: \(event)")
      }
      if phase == "M" { continue }
      guard let ts = event["ts"] as? Double else { throw Invalid(description: "event \(index) has no ts") }
      guard ts >= lastTimestamp else { throw Invalid(description: "event \(index) goes back in time") }
      lastTimestamp = ts
      let tid = event["tid"] as! Int
      let name = event["name"] as! String
      switch phase {
      case "B": stacks[tid, default: []].append(name)
      case "E":
        guard stacks[tid]?.popLast() == name else {
          throw Invalid(description: "event \(index): E for \(name) does not match the open B on thread \(tid)")
        }
      case "X": guard event["dur"] is Double else { throw Invalid(description: "event \(index): X without dur") }
      case "i":
        guard ["g", "p", "t"].contains(event["s"] as? String ?? "t") else { throw Invalid(description: "bad scope") }
      default: throw Invalid(description: "event \(index): unexpected phase \(phase)")
      }
    }
    for (tid, stack) in stacks where !stack.isEmpty {
      throw Invalid(description: "thread \(tid) leaves \(stack) open")
    }
  }
}

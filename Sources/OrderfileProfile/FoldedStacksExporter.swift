import OrderfileSupport
import OrderfileTrace

/// Writes full-mode calls as folded stacks for flamegraph.pl: `outer;inner;leaf COUNT`,
/// where COUNT is the stack's self time in nanoseconds.
///
/// A frame's inclusive time is the sum of its line and every line that extends it, so
/// the flame graph's widths are the calls' inclusive times.
public struct FoldedStacksExporter: Renderer {
  /// Names for the trace's addresses.
  public var symbols: SymbolTable
  /// Prefix each stack with its thread ("thread 1234").
  public var perThread: Bool

  public init(symbols: SymbolTable, perThread: Bool = false) {
    self.symbols = symbols
    self.perThread = perThread
  }

  /// Self time in nanoseconds of every distinct stack, before rendering.
  public func selfTimes(_ trace: Trace) -> [String: UInt64] {
    let end = CallTree.endTime(of: trace)
    var totals: [String: UInt64] = [:]
    for thread in trace.threads {
      let calls = CallTree.calls(of: thread, closingAt: end)
      // Self time = inclusive time minus the inclusive time of direct children.
      var childTime = [UInt64](repeating: 0, count: calls.count)
      var open: [Int] = []
      for (index, call) in calls.enumerated() {
        while let last = open.last, calls[last].depth >= call.depth { open.removeLast() }
        if let parent = open.last { childTime[parent] += call.end - call.start }
        open.append(index)
      }
      for (index, call) in calls.enumerated() {
        let names = call.stack.map { frame in
          frame.module.map { symbols.name(module: $0, address: frame.address, in: trace) }
            ?? "0x" + String(frame.address, radix: 16)
        }
        var key = names.map { $0.replacingOccurrences(of: ";", with: ":") }.joined(separator: ";")
        if perThread { key = "thread \(thread.threadID);" + key }
        let inclusive = call.end - call.start
        totals[key, default: 0] += inclusive > childTime[index] ? inclusive - childTime[index] : 0
      }
    }
    return totals
  }

  public func render(_ trace: Trace) -> String {
    selfTimes(trace).sorted { $0.key < $1.key }.map { stack, nanoseconds in
      "\(stack) \(nanoseconds)"
    }.joined(separator: "\n") + "\n"
  }
}

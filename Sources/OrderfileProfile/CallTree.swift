import OrderfileTrace

/// Rebuilds calls from full-mode enter and exit events.
///
/// Each thread's events are replayed against a stack: an exit closes the innermost open
/// call of the same function. An exit with no matching open call (the function was
/// entered before recording began) is ignored; calls still open when the events end
/// (the launch window closed inside them) are closed at the end time.
public enum CallTree {
  /// One call: when it started and ended, and the calls open around it, outermost first.
  public struct Call: Sendable, Equatable {
    public var module: Int?
    public var address: UInt64
    public var start: UInt64
    public var end: UInt64
    /// Depth in the thread's stack, 0 for the outermost.
    public var depth: Int
    /// The functions open around it, outermost first, ending with this one.
    public var stack: [FunctionID]
  }

  public struct FunctionID: Hashable, Sendable {
    public var module: Int?
    public var address: UInt64
  }

  /// When the last thread's events end: the window end, or the last event.
  public static func endTime(of trace: Trace) -> UInt64 {
    let lastEvent = trace.threads.compactMap { $0.events.last?.timeNanoseconds }.max() ?? 0
    return max(trace.header.windowEndNanoseconds ?? 0, lastEvent)
  }

  /// All calls of a thread, in the order they started.
  public static func calls(of thread: ThreadEvents, closingAt end: UInt64) -> [Call] {
    var open: [(id: FunctionID, start: UInt64, index: Int)] = []
    var calls: [Call] = []
    for event in thread.events {
      let id = FunctionID(module: event.module, address: event.address)
      switch event.kind {
      case .enter:
        let stack = open.map(\.id) + [id]
        calls.append(
          Call(
            module: event.module, address: event.address, start: event.timeNanoseconds, end: event.timeNanoseconds,
            depth: open.count, stack: stack))
        open.append((id, event.timeNanoseconds, calls.count - 1))
      case .exit:
        guard let position = open.lastIndex(where: { $0.id == id }) else { continue }
        // Calls above it that never exited (longjmp, exceptions) end here too.
        for frame in open[position...] { calls[frame.index].end = event.timeNanoseconds }
        open.removeSubrange(position...)
      }
    }
    for frame in open { calls[frame.index].end = max(end, calls[frame.index].start) }
    return calls
  }
}

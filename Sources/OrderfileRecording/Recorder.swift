/// A way to run a program once and collect the trace of its launch.
///
/// `RuntimeRecorder` runs a program built with the runtime (`orderfile flags
/// --instrument`). Another way of recording conforms to this protocol and writes the same
/// trace format (Docs/TraceFormat.md), so everything after the recording (generate,
/// merge, report) stays the same.
public protocol Recorder {
  /// Runs `program` with `arguments` to its end and collects its trace.
  ///
  /// - Returns: where the traces went and how the program ended; a program that fails
  ///   still returns a recording, since its launch was recorded.
  /// - Throws: when the program could not be started or left no trace.
  func record(program: String, arguments: [String]) throws -> Recording
}

/// What one recording run left behind.
public struct Recording: Sendable {
  /// The program's exit status (128 + signal when a signal ended it).
  public var status: Int32
  /// Where the program's own trace was written.
  public var tracePath: String
  /// Traces of processes the program forked, moved beside the main one as `<trace>.<pid>`.
  public var childTraces: [String]

  public init(status: Int32, tracePath: String, childTraces: [String]) {
    self.status = status
    self.tracePath = tracePath
    self.childTraces = childTraces
  }
}

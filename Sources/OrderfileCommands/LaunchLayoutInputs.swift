/// The trace and the binary whose launch pages `estimate` and `diff` count, and how the
/// binary is paired with a module of the trace.
public struct LaunchLayoutInputs: Sendable, Equatable {
  /// The launch trace.
  public var trace: String
  /// The binary whose layout is counted.
  public var binary: String
  /// The trace module `binary` is (path or file name); nil to match it by build-id or file
  /// name, else the main executable when the binary holds most of its launch functions.
  public var traceModule: String?
  /// Binaries and directories where the binary the trace recorded is found, if it moved.
  public var searchPaths: [String]

  public init(trace: String, binary: String, traceModule: String? = nil, searchPaths: [String] = []) {
    self.trace = trace
    self.binary = binary
    self.traceModule = traceModule
    self.searchPaths = searchPaths
  }
}

/// The compilers whose instrumentation the runtime understands.
public enum InstrumentingCompiler: String, CaseIterable, Sendable, Codable {
  case clang
  case gcc

  /// The flag that inserts the entry hooks.
  ///
  /// clang instruments after inlining, so functions inlined away in the
  /// release build are not recorded and the list matches what the linker
  /// will see. gcc has no such mode: it instruments before inlining and keeps
  /// out-of-line copies of inlined functions.
  public var instrumentFlag: String {
    switch self {
    case .clang: return "-finstrument-functions-after-inlining"
    case .gcc: return "-finstrument-functions"
    }
  }
}

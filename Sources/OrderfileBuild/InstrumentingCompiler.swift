import OrderfileSupport

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

  /// The compiler that `CXX` and `CC` name, as build systems pick it: gcc when either is
  /// gcc (clang accepts gcc's flag, not the other way round), clang when one is clang, nil
  /// when neither is set or says.
  public static func detected(in environment: [String: String]) -> InstrumentingCompiler? {
    let named = ["CXX", "CC"].compactMap { environment[$0] }.compactMap { value -> InstrumentingCompiler? in
      // The first word is the compiler ("ccache g++" names g++ second).
      let words = value.split(separator: " ").map { PathName.base(of: String($0)) }
      guard let compiler = words.first(where: { $0 != "ccache" && !$0.isEmpty }) else { return nil }
      if compiler.contains("clang") { return .clang }
      if compiler.contains("gcc") || compiler.contains("g++") || compiler == "cc" || compiler == "c++" { return .gcc }
      return nil
    }
    if named.contains(.gcc) { return .gcc }
    return named.first
  }
}

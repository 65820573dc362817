import OrderfileSymbolization

/// How `--until` names a function, for every command that takes it (`record`, `estimate --measure`).
public enum UntilFunction {
  /// Whether `wanted` names `function`: its linkage name, or its demangled name with or
  /// without parameters and outer qualifiers (see `ModulePlanner.name(of:matches:)`).
  public static func matches(_ function: FunctionSymbol, _ wanted: String) -> Bool {
    ModulePlanner.name(of: function, matches: wanted)
  }
}

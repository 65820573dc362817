import OrderfileSymbolization

/// How `--until` names a function, for every command that takes it (`record`, `estimate --measure`).
public enum UntilFunction {
  /// Whether `wanted` names `function`: its linkage name, or its demangled name with or
  /// without parameters and outer qualifiers (see `ModulePlanner.name(of:matches:)`).
  public static func matches(_ function: FunctionSymbol, _ wanted: String) -> Bool {
    ModulePlanner.name(of: function, matches: wanted)
  }

  /// The entries of the functions of the binary at `path` that `names` call for (where the
  /// page probe ends its count), and the names that matched none of them.
  public static func entries(_ names: [String], binary path: String) throws -> (
    addresses: [UInt64], unmatched: [String]
  ) {
    guard !names.isEmpty else { return ([], []) }
    let functions = FunctionNames(try ELFSymbolizer.withSymbols(path: path).functions)
    var addresses: [UInt64] = []
    var unmatched: [String] = []
    for name in names {
      let found = functions.addresses(matching: StopName(name))
      if found.isEmpty { unmatched.append(name) }
      addresses += found
    }
    return (addresses, unmatched)
  }
}

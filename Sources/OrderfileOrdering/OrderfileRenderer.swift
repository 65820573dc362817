import OrderfileSymbolization

/// Writes a launch order as the text a linker reads.
///
/// The output has no comments or headers, since lld and gold would read them
/// as names, and each line appears once: two local functions that share a
/// name are one line, which the linker applies to both.
public enum OrderfileRenderer {
  public static func render(_ functions: [OrderedFunction], as format: OrderfileFormat) -> String {
    var seen = Set<String>()
    var text = ""
    for function in functions {
      let line = entry(for: function.symbol, format: format)
      if seen.insert(line).inserted {
        text += line
        text += "\n"
      }
    }
    return text
  }

  /// The line that names `symbol` for `format`.
  public static func entry(for symbol: FunctionSymbol, format: OrderfileFormat) -> String {
    switch format {
    case .lld:
      return symbol.name
    case .gold:
      // With -ffunction-sections the compiler names the section after the
      // function, sometimes with a prefix (gcc puts main in .text.startup.main
      // and cold code in .text.unlikely.*). When the recorded binary shows such
      // a section, use its exact name; otherwise the conventional one.
      let suffix = "." + symbol.name
      if symbol.sectionName.hasPrefix(".text."), symbol.sectionName.hasSuffix(suffix) {
        return symbol.sectionName
      }
      return ".text" + suffix
    case .ld64:
      return "_" + symbol.name
    }
  }
}

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
      for line in entries(for: function.symbol, format: format) where seen.insert(line).inserted {
        text += line
        text += "\n"
      }
    }
    return text
  }

  /// The lines that name `symbol` for `format`: one, except for gold.
  public static func entries(for symbol: FunctionSymbol, format: OrderfileFormat) -> [String] {
    switch format {
    case .lld:
      return [symbol.name]
    case .gold:
      // With -ffunction-sections the compiler names the section after the function,
      // sometimes with a prefix: gcc puts main and static constructors in
      // .text.startup.<name> and functions marked hot in .text.hot.<name>. A linked
      // binary no longer shows which, so the entry names each place the function's code
      // can be; gold places whichever exists and ignores the rest. .text.unlikely.<name>
      // is left out: it is the cold part gcc splits off, which lld's symbol order leaves
      // out too. When the recorded binary still shows the input section, its name is used.
      let suffix = "." + symbol.name
      if symbol.sectionName.hasPrefix(".text."), symbol.sectionName.hasSuffix(suffix) {
        return [symbol.sectionName]
      }
      return [".text" + suffix, ".text.hot" + suffix, ".text.startup" + suffix]
    case .ld64:
      return ["_" + symbol.name]
    }
  }
}

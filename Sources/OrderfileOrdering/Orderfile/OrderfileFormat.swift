import OrderfileSymbolization

/// The orderfile dialects the tool writes and reads, one per linker family: how a
/// function becomes lines of the file, how a line names a function again, and the flags
/// that hand the file to the linker.
public enum OrderfileFormat: String, CaseIterable, Sendable, Codable {
  /// lld and mold `--symbol-ordering-file`: one symbol name a line.
  case lld
  /// gold `--section-ordering-file`: one input section name a line (`.text.<name>`).
  case gold
  /// Apple ld64 `-order_file`: one Mach-O symbol name a line (C names gain a leading underscore).
  case ld64

  // MARK: Writing

  /// The orderfile text for `symbols` in launch order.
  ///
  /// The output has no comments or headers, since lld and gold would read them as names,
  /// and each line appears once: two local functions that share a name are one line, which
  /// the linker applies to both.
  public func render(_ symbols: [FunctionSymbol]) -> String {
    var seen = Set<String>()
    var text = ""
    for symbol in symbols {
      for line in lines(for: symbol) where seen.insert(line).inserted {
        text += line
        text += "\n"
      }
    }
    return text
  }

  /// The number of lines `render` writes for `symbols`.
  public func lineCount(_ symbols: [FunctionSymbol]) -> Int {
    var seen = Set<String>()
    return symbols.reduce(0) { count, symbol in count + lines(for: symbol).filter { seen.insert($0).inserted }.count }
  }

  /// The lines that name `symbol`: one, except for gold.
  public func lines(for symbol: FunctionSymbol) -> [String] {
    switch self {
    case .lld:
      return [symbol.name]
    case .gold:
      // A linked binary no longer shows which section the compiler put the function in,
      // so the entry names each place launch code can be; gold places whichever exists
      // and ignores the rest. When the binary still shows the input section, its name is
      // used.
      if let kind = TextSection(sectionName: symbol.sectionName), kind.name == symbol.name {
        return [symbol.sectionName]
      }
      return TextSection.launchKinds.map { $0.prefix + symbol.name }
    case .ld64:
      return ["_" + symbol.name]
    }
  }

  // MARK: Reading

  /// The format a file's lines look like: gold when every line is a `.text` section name,
  /// otherwise lld. An ld64 file looks like an lld file; the verifier tells them apart by
  /// matching names against the binary.
  public static func detect(lines: [String]) -> OrderfileFormat {
    !lines.isEmpty && lines.allSatisfy { TextSection(sectionName: $0) != nil } ? .gold : .lld
  }

  /// The function a line of this format names: the line itself, the name inside a section
  /// name, or the name without its Mach-O underscore.
  public func functionName(inLine line: String) -> String {
    switch self {
    case .lld: return line
    case .gold: return TextSection(sectionName: line)?.name ?? line
    case .ld64: return line.hasPrefix("_") ? String(line.dropFirst()) : line
    }
  }

  // MARK: Linking

  /// The linker option that consumes the file, as given to the compiler driver.
  public func linkerFlag(path: String) -> String {
    switch self {
    case .lld: return "-Wl,--symbol-ordering-file=\(path)"
    case .gold: return "-Wl,--section-ordering-file=\(path)"
    case .ld64: return "-Wl,-order_file,\(path)"
    }
  }

  /// Compile flags the release build needs for the order to take effect.
  public var compileFlags: [String] {
    switch self {
    case .lld, .gold: return ["-ffunction-sections"]
    case .ld64: return []
    }
  }

  /// The linker selection flag for the compiler driver.
  public var linkerSelection: String? {
    switch self {
    case .lld: return "-fuse-ld=lld"
    case .gold: return "-fuse-ld=gold"
    case .ld64: return nil
    }
  }

  /// The usual file name suffix.
  public var fileExtension: String {
    switch self {
    case .lld: return "order"
    case .gold: return "sections"
    case .ld64: return "ld64.order"
    }
  }
}

/// A function's input section under -ffunction-sections: `.text.<name>`, or with a prefix
/// for the kind of code. The one list of prefixes the gold format writes and reads.
public struct TextSection: Equatable, Sendable {
  /// The kinds of section, by prefix.
  public enum Kind: String, CaseIterable, Sendable {
    /// gcc puts main and static constructors here.
    case startup = ".text.startup."
    /// Functions marked hot.
    case hot = ".text.hot."
    /// The cold part gcc splits off.
    case unlikely = ".text.unlikely."
    /// Code that runs only at exit.
    case exit = ".text.exit."
    /// Every other function.
    case plain = ".text."

    public var prefix: String { rawValue }
  }

  /// The sections a launch function can be in, as the gold format lists them.
  /// `.text.unlikely.` is left out: it is the cold part gcc splits off, which lld's symbol
  /// order leaves out too.
  public static let launchKinds: [Kind] = [.plain, .hot, .startup]

  public var kind: Kind
  /// The function's name.
  public var name: String

  /// Parses a section name; nil when it is not `.text.` followed by a name. The longest
  /// prefix wins, so `.text.hot.main` is `main` in a hot section (and a function named
  /// `hot.main` cannot be told from it: section names are ambiguous there, for gold too).
  public init?(sectionName: String) {
    // Kind.allCases lists the plain prefix last, after every longer one.
    guard let kind = Kind.allCases.first(where: { sectionName.hasPrefix($0.prefix) }) else { return nil }
    self.kind = kind
    self.name = String(sectionName.dropFirst(kind.prefix.count))
  }
}

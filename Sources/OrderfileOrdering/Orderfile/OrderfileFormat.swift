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
  /// An lld linker-script fragment (`-Wl,--script=FILE`): one input section a line, by
  /// object file and section name, in an output section placed before `.text`. It places
  /// code without a symbol too (Swift's `.text..L__unnamed_N` sections), which no symbol
  /// orderfile can name; it needs the link map of the recorded binary.
  case lldScript = "lld-script"

  /// Whether the format names input sections, and so can place code without a symbol.
  public var placesCodeWithoutSymbol: Bool { self == .lldScript }

  /// The output section the `lld-script` format fills, placed before `.text`.
  public static let launchSectionName = ".text.launch"

  /// The output section behind `.text` that holds the function placed last: the code with
  /// the highest address of any that `.eh_frame_hdr` lists (`.init`, `.fini` and `.plt`, after
  /// it, have no frame description).
  public static let lastSectionName = ".text.unwound"

  // MARK: Writing

  /// The orderfile text for `symbols` in launch order.
  ///
  /// The output has no comments or headers, since lld and gold would read them as names,
  /// and each line appears once: two local functions that share a name are one line, which
  /// the linker applies to both.
  ///
  /// The launch's data follows: named data objects by name after the functions (lld's
  /// symbol order places data as it places code), and in an lld script every input section
  /// of it, named or not, first in its own output section.
  ///
  /// `last`, in an lld script, goes after every other function, in an output section of its
  /// own behind `.text` (see `ModuleOrder.unwoundMain`); `moves` are an lld script's too.
  public func render(
    _ symbols: [FunctionSymbol], data: [LaunchDataPiece] = [], last: FunctionSymbol? = nil,
    moves: ScriptMoves = ScriptMoves()
  ) -> String {
    let lastLines = self == .lldScript ? last.map(lines(for:)) ?? [] : []
    var seen = Set<String>(lastLines)
    var launch: [String] = []
    for symbol in symbols {
      for line in lines(for: symbol) where seen.insert(line).inserted { launch.append(line) }
    }
    guard self == .lldScript else {
      for line in data.flatMap(lines(for:)) where seen.insert(line).inserted { launch.append(line) }
      return launch.map { $0 + "\n" }.joined()
    }
    // INSERT keeps lld's default layout for everything else: the fragment adds one output
    // section in front of .text, with the launch code in this order, after the data blocks.
    return Self.dataBlocks(data.map { self.lines(for: $0) }, data.map(\.outputSection))
      + Self.outputSection(Self.launchSectionName, launch, insert: "BEFORE .text")
      + (lastLines.isEmpty ? "" : Self.outputSection(Self.lastSectionName, lastLines, insert: "AFTER .text"))
      + moves.scriptBlocks(lines: Self.scriptLine(for:))
  }

  /// An lld script fragment: one output section of `lines`, inserted `insert` (`BEFORE .text`).
  static func outputSection(_ name: String, _ lines: [String], insert: String) -> String {
    "SECTIONS {\n  \(name) : {\n" + lines.map { "    " + $0 + "\n" }.joined() + "  }\n} INSERT \(insert);\n"
  }

  /// The lines that name a piece of launch data: its symbol in a symbol orderfile, its input
  /// section in an lld script; none where the format cannot name it.
  public func lines(for piece: LaunchDataPiece) -> [String] {
    switch self {
    case .lld: return piece.name.map { [$0] } ?? []
    case .lldScript:
      return piece.scriptInput.map { [Self.scriptLine(for: $0)] } ?? []
    case .gold, .ld64: return []
    }
  }

  /// The lld script line that names `input`: in any object whose path ends in its object's.
  static func scriptLine(for input: InputSection) -> String {
    "*" + scriptPattern(input.object) + "(" + scriptPattern(input.section) + ")"
  }

  /// An lld script's blocks for the launch's data: each output section it lies in, named
  /// again with the launch's input sections first; lld adds the rest of the section's
  /// inputs after them, as orphans of the same name.
  static func dataBlocks(_ lines: [[String]], _ sections: [DataSection]) -> String {
    var order: [DataSection] = []
    var bySection: [DataSection: [String]] = [:]
    var seen = Set<String>()
    for (pieceLines, section) in zip(lines, sections) {
      for line in pieceLines where seen.insert(line).inserted {
        if bySection[section] == nil { order.append(section) }
        bySection[section, default: []].append(line)
      }
    }
    return order.map { section in
      // Each goes back where lld puts it: .rodata before .eh_frame_hdr (moved elsewhere, it
      // would leave the file's first pages, which the loader's reads bring in), RELRO before
      // .dynamic so that it stays one run.
      let anchor = section == .relocatedReadOnly ? "BEFORE .dynamic" : "BEFORE .eh_frame_hdr"
      return outputSection(section.name, bySection[section, default: []], insert: anchor)
    }.joined()
  }

  /// The number of lines `render` writes for `symbols`.
  public func lineCount(_ symbols: [FunctionSymbol]) -> Int {
    var seen = Set<String>()
    return symbols.reduce(0) { count, symbol in count + lines(for: symbol).filter { seen.insert($0).inserted }.count }
  }

  /// The lines that name `symbol`: one, except for gold; none for code without a symbol
  /// in a format that names symbols.
  public func lines(for symbol: FunctionSymbol) -> [String] {
    if !symbol.hasSymbol && !placesCodeWithoutSymbol { return [] }
    switch self {
    case .lldScript:
      // Without a link map, a function with a symbol is found by the section name
      // -ffunction-sections gives it, in whichever object holds it.
      let input = symbol.inputSection ?? InputSection(object: "", section: ".text." + symbol.name)
      // An object's whole .text (compiled without -ffunction-sections) is not one function's.
      if input.section == ".text" { return [] }
      return [Self.scriptLine(for: input)]
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

  /// The format a file's lines look like: an lld script when it opens with `SECTIONS`, gold
  /// when every line is a `.text` section name, otherwise lld. An ld64 file looks like an
  /// lld file; the verifier tells them apart by matching names against the binary.
  public static func detect(lines: [String]) -> OrderfileFormat {
    if lines.first?.hasPrefix("SECTIONS") == true { return .lldScript }
    return !lines.isEmpty && lines.allSatisfy { TextSection(sectionName: $0) != nil } ? .gold : .lld
  }

  /// Whether a line of this format names a function; an lld script's other lines are its
  /// frame (`SECTIONS {`, `} INSERT BEFORE .text;`).
  public func isEntry(line: String) -> Bool {
    self != .lldScript || line.hasPrefix("*")
  }

  /// The entries of an lld script's output sections of code (`.text.launch`, `.text.unwound`):
  /// its other output sections hold the launch's data (see `dataBlocks`).
  static func functionLines(ofScript lines: [String]) -> [String] {
    var inCode = true
    return lines.filter { line in
      if line.hasSuffix("{") && line != "SECTIONS {" {
        inCode = line.hasPrefix(".text")
        return false
      }
      return inCode && OrderfileFormat.lldScript.isEntry(line: line)
    }
  }

  /// The function a line of this format names: the line itself, the name inside a section
  /// name, or the name without its Mach-O underscore. An lld script's line names a
  /// function with a symbol by the symbol (its section is `.text.<symbol>`), and code without
  /// one as `object(section)`, the name the link map gives it.
  public func functionName(inLine line: String) -> String {
    switch self {
    case .lldScript:
      let pattern = String(line.drop(while: { $0 == "*" }))
      guard let input = InputSection(description: pattern) else { return pattern }
      if !input.section.hasPrefix(".text..L"), let section = TextSection(sectionName: input.section) {
        return section.name
      }
      return pattern
    case .lld: return line
    case .gold: return TextSection(sectionName: line)?.name ?? line
    case .ld64: return line.hasPrefix("_") ? String(line.dropFirst()) : line
    }
  }

  // MARK: Linking

  /// The linker option that consumes the file, as given to the compiler driver.
  public func linkerFlag(path: String) -> String {
    switch self {
    case .lldScript: return "-Wl,--script=\(path)"
    case .lld: return "-Wl,--symbol-ordering-file=\(path)"
    case .gold: return "-Wl,--section-ordering-file=\(path)"
    case .ld64: return "-Wl,-order_file,\(path)"
    }
  }

  /// Compile flags the release build needs for the order to take effect: one section per
  /// function, and per data object, which the launch's data is placed by.
  public var compileFlags: [String] {
    switch self {
    case .lld, .lldScript: return ["-ffunction-sections", "-fdata-sections"]
    case .gold: return ["-ffunction-sections"]
    case .ld64: return []
    }
  }

  /// A name as an lld script pattern matches it literally: characters outside lld's
  /// unquoted words, and glob characters, become `?` (any one character).
  static func scriptPattern(_ name: String) -> String {
    String(
      name.map { character -> Character in
        character.isASCII && (character.isLetter || character.isNumber || "_.$/\\~=+-!^:@%".contains(character))
          ? character : "?"
      })
  }

  /// The linker selection flag for the compiler driver.
  public var linkerSelection: String? {
    switch self {
    case .lld, .lldScript: return "-fuse-ld=lld"
    case .gold: return "-fuse-ld=gold"
    case .ld64: return nil
    }
  }

  /// The usual file name suffix.
  public var fileExtension: String {
    switch self {
    case .lld: return "order"
    case .lldScript: return "ld"
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

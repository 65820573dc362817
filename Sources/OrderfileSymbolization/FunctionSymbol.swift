/// The binding of a symbol (`STB_*`); `STB_GNU_UNIQUE` counts as global.
public enum SymbolBinding: String, Sendable, Hashable, Codable {
  case local, global, weak
}

/// One function of a binary: every function symbol that starts at one address, folded together.
public struct FunctionSymbol: Hashable, Sendable {
  /// The linkage (mangled) name exactly as in the symbol table: the primary of the folded symbols.
  ///
  /// The primary is chosen deterministically: a symbol with a size before one without, then
  /// global before weak before local, then the shorter name, then the name that sorts first.
  public var name: String
  /// The other function names at the same address, sorted, without duplicates or `name`.
  public var aliases: [String]
  /// The ELF virtual address (`st_value`), as in the file: never a load address.
  public var address: UInt64
  /// The size in bytes (`st_size`); 0 for symbols that carry none.
  public var size: UInt64
  public var binding: SymbolBinding
  /// The name of the section holding the symbol, as this file's section headers call it.
  ///
  /// After an ordinary link this is the output section (`.text`); input section names such as
  /// `.text.foo` from `-ffunction-sections` survive only when the linker keeps them apart
  /// (for example GNU ld's `--unique=.text.*`). Empty when the symbol has no section.
  public var sectionName: String
  /// `sh_addralign` of that section, 1 when the section is unknown or declares no alignment.
  public var sectionAlignment: UInt64
  /// False for code the symbol table does not name, found by its call-frame information
  /// (see `FrameDescriptions`): `name` is then made up, from the link map's input section
  /// (`App.build/main.swift.o(.text..L__unnamed_3)`) or else from the nearest symbol before
  /// it (`$s3App4mainyyF+0x40`), and no symbol ordering file can name it.
  public var hasSymbol: Bool
  /// The input section the function came from, when a link map of the binary was read.
  public var inputSection: InputSection?

  public init(
    name: String, aliases: [String] = [], address: UInt64, size: UInt64,
    binding: SymbolBinding, sectionName: String, sectionAlignment: UInt64 = 1, hasSymbol: Bool = true,
    inputSection: InputSection? = nil
  ) {
    self.hasSymbol = hasSymbol
    self.inputSection = inputSection
    self.name = name
    self.aliases = aliases
    self.address = address
    self.size = size
    self.binding = binding
    self.sectionName = sectionName
    self.sectionAlignment = sectionAlignment
  }

  /// The primary name followed by the aliases.
  public var allNames: [String] { [name] + aliases }

  /// Whether its name or an alias is one of `names`; unlike `allNames`, without an array.
  public func isNamed(anyOf names: Set<String>) -> Bool {
    names.contains(name) || aliases.contains(where: names.contains)
  }

  /// Whether `address` falls inside this function: within `[address, address + size)`,
  /// or exactly at `address` when the symbol has no size.
  public func contains(_ address: UInt64) -> Bool {
    if size == 0 { return address == self.address }
    return address >= self.address && address - self.address < size
  }
}

/// A source position from the DWARF line table.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file as the line table names it (with its directory entry), made absolute with the
  /// unit's compilation directory when it is still relative.
  public var file: String
  /// The 1-based line number.
  public var line: Int

  public init(file: String, line: Int) {
    self.file = file
    self.line = line
  }

  /// `file:line`.
  public var description: String { "\(file):\(line)" }
}

/// Which table a binary's function symbols were read from.
public enum SymbolSource: Hashable, Sendable {
  /// The file's own `.symtab`: every function, local ones included.
  case symbolTable
  /// The `.symtab` of a separate debug file found by build-id or `.gnu_debuglink`.
  case debugFile(String)
  /// Only `.dynsym`: the exported functions, none of the local ones.
  case dynamicSymbols
  /// No function symbols at all (a stripped executable).
  case none
}

extension Array where Element == FunctionSymbol {
  /// For each of `names`, the positions of the functions that carry it as their name or an
  /// alias, in address order, among those `include` accepts; a name no function carries is
  /// left out.
  ///
  /// One pass over the functions with a lookup in a table of `names` alone: a large binary's
  /// quarter of a million names are never all hashed into a table of their own.
  public func positions(
    named names: some Sequence<String>, where include: (Int) -> Bool = { _ in true }
  ) -> [String: [Int]] {
    var found: [String: [Int]] = [:]
    for name in names { found[name] = [] }
    guard !found.isEmpty else { return [:] }
    // Each name is read in place: copying a whole function would retain all its strings.
    // The sieve turns away nearly every name before the table hashes it.
    let sieve = NameSieve(found.keys)
    for index in indices where include(index) {
      if sieve.mayContain(self[index].name) { found[self[index].name]?.append(index) }
      for alias in self[index].aliases where sieve.mayContain(alias) { found[alias]?.append(index) }
    }
    return found.filter { !$0.value.isEmpty }
  }
}

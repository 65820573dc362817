import CLibdw

/// Reads the function symbols of a libdwfl module, once, for `FunctionIndex`.
///
/// libdwfl picks the table: `.symtab` of the file or of its separate debug file, else
/// `.dynsym` (plus `.gnu_debugdata` when present). Only `dwfl_module_getsym_info` is used,
/// never the per-address `dwfl_module_addrinfo`, which scans every symbol on every call.
enum SymbolTableReader {
  /// The symbols a reader keeps, by kind: one rule for libdwfl's reader and the mapped one.
  struct Kept {
    var functions: [RawFunctionSymbol] = []
    var untyped: [RawFunctionSymbol] = []
    var objects: [RawFunctionSymbol] = []

    /// Whether a symbol of this `STT_` type is kept at all.
    static func keeps(type: Int32) -> Bool {
      type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE || type == STT_OBJECT
    }

    /// Files `symbol`, of a type `keeps` accepts: a data object only with a size.
    mutating func add(_ symbol: RawFunctionSymbol, type: Int32) {
      switch type {
      case STT_NOTYPE: untyped.append(symbol)
      case STT_OBJECT: if symbol.size > 0 { objects.append(symbol) }
      default: functions.append(symbol)
      }
    }

    var all: (functions: [RawFunctionSymbol], untyped: [RawFunctionSymbol], objects: [RawFunctionSymbol]) {
      (functions, untyped, objects)
    }
  }

  /// Every defined `STT_FUNC` and `STT_GNU_IFUNC` symbol, with ELF virtual addresses.
  ///
  /// - Parameter bias: the main file's bias from `dwfl_module_getelf`, subtracted from the
  ///   module addresses libdwfl reports.
  static func functionSymbols(of module: OpaquePointer, bias: UInt64) -> [RawFunctionSymbol] {
    symbols(of: module, bias: bias).functions
  }

  /// The function symbols, and the untyped (`STT_NOTYPE`) ones beside them: clang's machine
  /// function splitter names the cold parts it makes (`foo.cold`) with untyped symbols, which
  /// are functions only where call-frame information starts one. Then the data objects
  /// (`STT_OBJECT` with a size), for placing the launch's data.
  static func symbols(of module: OpaquePointer, bias: UInt64) -> (
    functions: [RawFunctionSymbol], untyped: [RawFunctionSymbol], objects: [RawFunctionSymbol]
  ) {
    let count = dwfl_module_getsymtab(module)
    guard count > 0 else { return ([], [], []) }
    var sections = SectionCache()
    var kept = Kept()
    for index in 0..<count {
      var symbol = GElf_Sym()
      var address: GElf_Addr = 0
      var sectionIndex: GElf_Word = 0
      var elf: OpaquePointer?
      var symbolBias: Dwarf_Addr = 0
      guard
        let namePointer = dwfl_module_getsym_info(
          module, index, &symbol, &address, &sectionIndex, &elf, &symbolBias)
      else { continue }
      let type = Int32(symbol.st_info & 0xf)  // GELF_ST_TYPE
      guard Kept.keeps(type: type) else { continue }
      guard symbol.st_shndx != UInt16(SHN_UNDEF) else { continue }
      let name = String(cString: namePointer)
      guard !name.isEmpty else { continue }
      // An index in the reserved range is a real one only when it came through SHN_XINDEX.
      let hasSection =
        symbol.st_shndx < UInt16(SHN_LORESERVE) || symbol.st_shndx == UInt16(SHN_XINDEX)
      let section = hasSection ? sections.section(sectionIndex, in: elf) : nil
      let raw = RawFunctionSymbol(
        name: name, address: address &- bias, size: symbol.st_size,
        binding: binding(symbol.st_info >> 4),  // GELF_ST_BIND
        sectionName: section?.name ?? "", sectionAlignment: section?.alignment ?? 1)
      kept.add(raw, type: type)
    }
    return kept.all
  }

  static func binding(_ value: UInt8) -> SymbolBinding {
    switch Int32(value) {
    case STB_LOCAL: return .local
    case STB_WEAK: return .weak
    default: return .global  // STB_GLOBAL, STB_GNU_UNIQUE
    }
  }
}

/// Names and alignments of section headers, read once per (file, index).
private struct SectionCache {
  struct Key: Hashable {
    var elf: OpaquePointer
    var index: GElf_Word
  }
  struct Section {
    var name: String
    var alignment: UInt64
  }
  private var sections = [Key: Section?]()
  /// The last answer: symbol tables list most symbols of one section together.
  private var last: (key: Key, section: Section?)?

  mutating func section(_ index: GElf_Word, in elf: OpaquePointer?) -> Section? {
    guard let elf else { return nil }
    let key = Key(elf: elf, index: index)
    if let last, last.key == key { return last.section }
    let section: Section?
    if let cached = sections[key] {
      section = cached
    } else {
      section = Self.read(index, in: elf)
      sections[key] = .some(section)
    }
    last = (key, section)
    return section
  }

  private static func read(_ index: GElf_Word, in elf: OpaquePointer) -> Section? {
    guard let scn = elf_getscn(elf, Int(index)) else { return nil }
    var header = GElf_Shdr()
    guard gelf_getshdr(scn, &header) != nil else { return nil }
    var stringTable = 0
    var name = ""
    if elf_getshdrstrndx(elf, &stringTable) == 0,
      let pointer = elf_strptr(elf, stringTable, Int(header.sh_name))
    {
      name = String(cString: pointer)
    }
    return Section(name: name, alignment: max(header.sh_addralign, 1))
  }
}

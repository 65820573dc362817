import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// The function symbols of a file's own `.symtab`, read straight from libelf's mapping of it.
///
/// libdwfl answers one symbol a call and looks up each one's section on the way, which made
/// reading a 250k-symbol table the largest part of opening a big binary. Here the table is
/// walked as the array of `Elf64_Sym` records it is, each section's name is made once, and a
/// `String` is made only for the names of the symbols kept.
///
/// Only 64-bit little-endian files, whose records are already in this machine's layout, and
/// tables that need no extended section indexes (`SHN_XINDEX`); for anything else `read`
/// returns nil and the caller uses libdwfl.
enum MappedSymbolTable {
  /// The size of an `Elf64_Sym` record.
  private static let recordSize = 24

  /// One defined, named symbol of a kind `SymbolTableReader.Kept` keeps, as the table holds it.
  struct Record {
    /// `STT_*`.
    var type: Int32
    var binding: SymbolBinding
    /// `st_name`: where the name starts in the string table.
    var nameOffset: Int
    var address: UInt64
    var size: UInt64
    /// `st_shndx`; nil for a reserved index (`SHN_ABS`, `SHN_COMMON`).
    var sectionIndex: Int?
  }

  /// The file's string table for `.symtab`, in libelf's mapping (valid while the file is
  /// open), and its sections' names and alignments.
  struct Strings {
    let bytes: UnsafeBufferPointer<UInt8>
    let sections: [Int: (name: String, alignment: UInt64)]

    func section(of record: Record) -> (name: String, alignment: UInt64)? {
      record.sectionIndex.flatMap { sections[$0] }
    }

    /// The NUL-terminated name at `offset`, without its NUL.
    func name(at offset: Int) -> UnsafeBufferPointer<UInt8> {
      guard let base = bytes.baseAddress, offset < bytes.count else { return UnsafeBufferPointer(start: nil, count: 0) }
      let length = strnlen(UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self), bytes.count - offset)
      return UnsafeBufferPointer(start: base + offset, count: length)
    }

    func string(at offset: Int) -> String { String(decoding: name(at: offset), as: UTF8.self) }
  }

  /// The function, untyped and sized data-object symbols of `file`'s `.symtab`, as
  /// `SymbolTableReader.symbols` gives them for the file itself (its addresses are the ELF
  /// virtual addresses); nil when the file has no `.symtab` or one this reader leaves to libdwfl.
  static func read(_ file: ELFFile) -> (
    functions: [RawFunctionSymbol], untyped: [RawFunctionSymbol], objects: [RawFunctionSymbol]
  )? {
    var kept = SymbolTableReader.Kept()
    let strings = walk(file) { record, strings in
      let section = strings.section(of: record)
      let symbol = RawFunctionSymbol(
        name: strings.string(at: record.nameOffset), address: record.address, size: record.size,
        binding: record.binding, sectionName: section?.name ?? "", sectionAlignment: section?.alignment ?? 1)
      kept.add(symbol, type: record.type)
    }
    return strings == nil ? nil : kept.all
  }

  /// Calls `body` with every symbol of `file`'s `.symtab` that `SymbolTableReader.Kept.keeps`,
  /// defined and named, in table order; returns the string table, or nil (perhaps after some
  /// calls) when the file has no `.symtab` or one this reader leaves to libdwfl.
  static func walk(_ file: ELFFile, _ body: (Record, Strings) -> Void) -> Strings? {
    var header = GElf_Ehdr()
    guard gelf_getehdr(file.elf, &header) != nil, header.e_ident.4 == UInt8(ELFCLASS64),
      header.e_ident.5 == UInt8(ELFDATA2LSB), ELFMachine(rawValue: header.e_machine) != nil
    else { return nil }
    var sections: [Int: (name: String, alignment: UInt64)] = [:]
    var table: (header: GElf_Shdr, section: OpaquePointer)?
    file.forEachSection { sectionHeader, section, name in
      sections[elf_ndxscn(section)] = (name, max(sectionHeader.sh_addralign, 1))
      if table == nil && sectionHeader.sh_type == UInt32(SHT_SYMTAB) { table = (sectionHeader, section) }
    }
    guard let table, table.header.sh_entsize == UInt64(recordSize),
      let symbolData = elf_rawdata(table.section, nil), let symbolBytes = symbolData.pointee.d_buf,
      let stringSection = elf_getscn(file.elf, Int(table.header.sh_link)),
      let stringData = elf_rawdata(stringSection, nil), let stringBytes = stringData.pointee.d_buf
    else { return nil }
    let records = UnsafeRawBufferPointer(start: symbolBytes, count: Int(symbolData.pointee.d_size))
    populate(records)
    populate(UnsafeRawBufferPointer(start: stringBytes, count: Int(stringData.pointee.d_size)))
    let strings = Strings(
      bytes: UnsafeRawBufferPointer(start: stringBytes, count: Int(stringData.pointee.d_size))
        .bindMemory(to: UInt8.self), sections: sections)
    for offset in stride(from: 0, through: records.count - recordSize, by: recordSize) {
      let info = records[offset + 4]
      let type = Int32(info & 0xf)  // ELF64_ST_TYPE
      guard SymbolTableReader.Kept.keeps(type: type) else { continue }
      let sectionIndex = records.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
      guard sectionIndex != UInt16(SHN_UNDEF) else { continue }
      if sectionIndex == UInt16(SHN_XINDEX) { return nil }
      let nameOffset = Int(records.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      guard nameOffset < strings.bytes.count, strings.bytes[nameOffset] != 0 else { continue }
      let record = Record(
        type: type, binding: SymbolTableReader.binding(info >> 4),  // ELF64_ST_BIND
        nameOffset: nameOffset,
        address: records.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
        size: records.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self),
        sectionIndex: sectionIndex < UInt16(SHN_LORESERVE) ? Int(sectionIndex) : nil)
      body(record, strings)
    }
    return strings
  }

  /// Maps the pages of `bytes`, part of libelf's mapping of the file, in one call: the walk
  /// reads every record and the first byte of every name, which otherwise faults the tables
  /// in a few pages at a time. `MADV_POPULATE_READ` (22) is Linux 5.14's; an older kernel
  /// refuses it and the pages fault in as before.
  private static func populate(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = Int(bitPattern: base) & ~(page - 1)
    _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(bitPattern: base) + bytes.count - start, 22)
  }
}

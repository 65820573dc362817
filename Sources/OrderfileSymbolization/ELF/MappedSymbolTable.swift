import CLibdw

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

  /// The function, untyped and sized data-object symbols of `file`'s `.symtab`, as
  /// `SymbolTableReader.symbols` gives them for the file itself (its addresses are the ELF
  /// virtual addresses); nil when the file has no `.symtab` or one this reader leaves to libdwfl.
  static func read(_ file: ELFFile) -> (
    functions: [RawFunctionSymbol], untyped: [RawFunctionSymbol], objects: [RawFunctionSymbol]
  )? {
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
    let strings = UnsafeRawBufferPointer(start: stringBytes, count: Int(stringData.pointee.d_size))
      .bindMemory(to: UInt8.self)
    var kept = SymbolTableReader.Kept()
    kept.functions.reserveCapacity(records.count / recordSize / 2)
    for offset in stride(from: 0, through: records.count - recordSize, by: recordSize) {
      let info = records[offset + 4]
      let type = Int32(info & 0xf)  // ELF64_ST_TYPE
      guard SymbolTableReader.Kept.keeps(type: type) else { continue }
      let sectionIndex = records.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
      guard sectionIndex != UInt16(SHN_UNDEF) else { continue }
      if sectionIndex == UInt16(SHN_XINDEX) { return nil }
      let nameOffset = Int(records.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      guard nameOffset < strings.count, strings[nameOffset] != 0 else { continue }
      var nameEnd = nameOffset
      while nameEnd < strings.count && strings[nameEnd] != 0 { nameEnd += 1 }
      let section = sectionIndex < UInt16(SHN_LORESERVE) ? sections[Int(sectionIndex)] : nil
      let symbol = RawFunctionSymbol(
        name: String(decoding: UnsafeBufferPointer(rebasing: strings[nameOffset..<nameEnd]), as: UTF8.self),
        address: records.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
        size: records.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self),
        binding: SymbolTableReader.binding(info >> 4),  // ELF64_ST_BIND
        sectionName: section?.name ?? "", sectionAlignment: section?.alignment ?? 1)
      kept.add(symbol, type: type)
    }
    return kept.all
  }
}

import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

extension ELFFile {
  /// The addresses in the binary's initializer tables, in the order glibc runs them.
  ///
  /// In a position-independent binary the table slots hold nothing useful on disk: the
  /// dynamic relocations fill them at load time. A slot's value is therefore taken from its
  /// dynamic relocation when it has one (RELA keeps the address in the addend), and from the
  /// slot itself otherwise (non-PIE links, and RELR, whose addends live in the slots). Slots
  /// that stay 0 or -1 (the `.ctors` sentinels) and relocations against undefined symbols are
  /// left out.
  func initializerAddresses() -> [(StaticInitializer.Source, UInt64)] {
    var elfHeader = GElf_Ehdr()
    guard gelf_getehdr(elf, &elfHeader) != nil else { return [] }
    // Only the tables' own slots: a large C++ program relocates hundreds of thousands of
    // others, which a table of every relocation held for nothing.
    var tables: [Range<UInt64>] = []
    forEachSection { header, _, name in
      if Self.initializerSource(type: header.sh_type, name: name) != nil {
        tables.append(header.sh_addr..<header.sh_addr &+ header.sh_size)
      }
    }
    let relocated = dynamicRelocationTargets(machine: Int32(elfHeader.e_machine), in: tables)
    let pointerSize: UInt64 = elfHeader.e_ident.4 == UInt8(ELFCLASS64) ? 8 : 4
    let littleEndian = elfHeader.e_ident.5 == UInt8(ELFDATA2LSB)

    var found: [(StaticInitializer.Source, UInt64)] = []
    if let initFunction = dynamicEntry(Int64(DT_INIT)), initFunction != 0 {
      found.append((.initFunction, initFunction))
    }
    forEachSection { header, section, name in
      guard let source = Self.initializerSource(type: header.sh_type, name: name),
        let data = elf_getdata(section, nil), let bytes = data.pointee.d_buf
      else { return }
      let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(data.pointee.d_size))
      var slots: [UInt64] = []
      var offset: UInt64 = 0
      while offset + pointerSize <= UInt64(buffer.count) {
        let slot = header.sh_addr &+ offset
        if let target = relocated[slot] {
          if let target { slots.append(target) }
        } else {
          slots.append(Self.word(in: buffer, at: Int(offset), size: pointerSize, littleEndian: littleEndian))
        }
        offset += pointerSize
      }
      let allOnes: UInt64 = pointerSize == 8 ? .max : UInt64(UInt32.max)
      slots.removeAll { $0 == 0 || $0 == allOnes }
      // `.ctors` runs from its end backwards.
      if source == .ctors { slots.reverse() }
      found += slots.map { (source, $0) }
    }
    // Stable: the tables keep their own order within a source.
    return found.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
      .map(\.element)
  }

  /// Which initializer table a section is, if it is one.
  private static func initializerSource(type: UInt32, name: String) -> StaticInitializer.Source? {
    switch (type, name) {
    case (UInt32(SHT_PREINIT_ARRAY), _): return .preinitArray
    case (UInt32(SHT_INIT_ARRAY), _): return .initArray
    case (UInt32(SHT_PROGBITS), ".ctors"): return .ctors
    default: return nil
    }
  }

  /// Every slot in `tables` that an allocated (dynamic) RELA section relocates, with the
  /// address it receives; nil for an address that depends on another module's symbol.
  ///
  /// Only `SHF_ALLOC` sections count: `--emit-relocs` keeps the static relocations in
  /// non-allocated sections, and those describe the link, not the load.
  private func dynamicRelocationTargets(machine: Int32, in tables: [Range<UInt64>]) -> [UInt64: UInt64?] {
    guard !tables.isEmpty else { return [:] }
    let relative: UInt32
    let absolute: UInt32
    switch machine {
    case EM_X86_64: (relative, absolute) = (UInt32(R_X86_64_RELATIVE), UInt32(R_X86_64_64))
    case EM_AARCH64: (relative, absolute) = (UInt32(R_AARCH64_RELATIVE), UInt32(R_AARCH64_ABS64))
    default: return [:]
    }
    var targets: [UInt64: UInt64?] = [:]
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_RELA), header.sh_flags & UInt64(SHF_ALLOC) != 0,
        header.sh_entsize > 0, let data = elf_getdata(section, nil)
      else { return }
      let symbols = elf_getscn(elf, Int(header.sh_link)).flatMap { elf_getdata($0, nil) }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var relocation = GElf_Rela()
        guard gelf_getrela(data, index, &relocation) != nil,
          tables.contains(where: { $0.contains(relocation.r_offset) })
        else { continue }
        let type = UInt32(truncatingIfNeeded: relocation.r_info & 0xffff_ffff)
        let addend = UInt64(bitPattern: relocation.r_addend)
        if type == relative {
          targets[relocation.r_offset] = addend
        } else if type == absolute {
          var symbol = GElf_Sym()
          let symbolIndex = Int32(truncatingIfNeeded: relocation.r_info >> 32)
          if let symbols, gelf_getsym(symbols, symbolIndex, &symbol) != nil,
            symbol.st_shndx != UInt16(SHN_UNDEF)
          {
            targets[relocation.r_offset] = symbol.st_value &+ addend
          } else {
            targets[relocation.r_offset] = .some(nil)
          }
        }
      }
    }
    return targets
  }

  /// The value of the first entry with this tag in the dynamic section.
  func dynamicEntry(_ tag: Int64) -> UInt64? {
    firstDynamicEntry(tag).map { entry, _ in entry.d_un.d_ptr }
  }

  /// The first entry with this tag in the dynamic section, with the index of the string
  /// table its strings are in; nil when there is none before `DT_NULL`.
  func firstDynamicEntry(_ tag: Int64) -> (entry: GElf_Dyn, strings: Int)? {
    var found: (GElf_Dyn, Int)?
    forEachSection { header, section, _ in
      guard found == nil, header.sh_type == UInt32(SHT_DYNAMIC), header.sh_entsize > 0,
        let data = elf_getdata(section, nil)
      else { return }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var entry = GElf_Dyn()
        guard gelf_getdyn(data, index, &entry) != nil else { break }
        if entry.d_tag == Int64(DT_NULL) { break }
        if entry.d_tag == tag {
          found = (entry, Int(header.sh_link))
          break
        }
      }
    }
    return found
  }

  private static func word(in buffer: UnsafeRawBufferPointer, at offset: Int, size: UInt64, littleEndian: Bool)
    -> UInt64
  {
    var value: UInt64 = 0
    for index in 0..<Int(size) {
      let byte = UInt64(buffer[littleEndian ? offset + Int(size) - 1 - index : offset + index])
      value = value << 8 | byte
    }
    return value
  }
}

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
    let relocated = dynamicRelocationTargets(machine: Int32(elfHeader.e_machine))
    let pointerSize: UInt64 = elfHeader.e_ident.4 == UInt8(ELFCLASS64) ? 8 : 4
    let littleEndian = elfHeader.e_ident.5 == UInt8(ELFDATA2LSB)

    var found: [(StaticInitializer.Source, UInt64)] = []
    if let initFunction = dynamicEntry(Int64(DT_INIT)), initFunction != 0 {
      found.append((.initFunction, initFunction))
    }
    forEachSection { header, section, name in
      let source: StaticInitializer.Source
      switch (header.sh_type, name) {
      case (UInt32(SHT_PREINIT_ARRAY), _): source = .preinitArray
      case (UInt32(SHT_INIT_ARRAY), _): source = .initArray
      case (UInt32(SHT_PROGBITS), ".ctors"): source = .ctors
      default: return
      }
      guard let data = elf_getdata(section, nil), let bytes = data.pointee.d_buf else { return }
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

  /// Every slot that an allocated (dynamic) RELA section relocates, with the address it
  /// receives; nil for an address that depends on another module's symbol.
  ///
  /// Only `SHF_ALLOC` sections count: `--emit-relocs` keeps the static relocations in
  /// non-allocated sections, and those describe the link, not the load.
  private func dynamicRelocationTargets(machine: Int32) -> [UInt64: UInt64?] {
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
        guard gelf_getrela(data, index, &relocation) != nil else { continue }
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
    var value: UInt64?
    forEachSection { header, section, _ in
      guard value == nil, header.sh_type == UInt32(SHT_DYNAMIC), header.sh_entsize > 0,
        let data = elf_getdata(section, nil)
      else { return }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var entry = GElf_Dyn()
        guard gelf_getdyn(data, index, &entry) != nil else { break }
        if entry.d_tag == Int64(DT_NULL) { break }
        if entry.d_tag == tag {
          value = entry.d_un.d_ptr
          break
        }
      }
    }
    return value
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

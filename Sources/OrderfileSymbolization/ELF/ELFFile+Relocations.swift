import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

extension ELFFile {
  /// The dynamic relocations of the allocated `SHT_RELA`, `SHT_REL` and `SHT_RELR` sections,
  /// counted by kind. `--emit-relocs` keeps the static relocations in sections that are not
  /// allocated: those describe the link, not the load, and are left out.
  func dynamicRelocationCounts() -> ModuleLoading.Relocations {
    var elfHeader = GElf_Ehdr()
    let machine = gelf_getehdr(elf, &elfHeader) != nil ? Int32(elfHeader.e_machine) : 0
    let (relativeType, jumpSlotType): (UInt32, UInt32) =
      switch machine {
      case EM_AARCH64: (UInt32(R_AARCH64_RELATIVE), UInt32(R_AARCH64_JUMP_SLOT))
      case EM_386: (UInt32(R_386_RELATIVE), UInt32(R_386_JMP_SLOT))
      default: (UInt32(R_X86_64_RELATIVE), UInt32(R_X86_64_JUMP_SLOT))
      }
    let is64 = elfHeader.e_ident.4 == UInt8(ELFCLASS64)
    var counts = ModuleLoading.Relocations(relative: 0, symbolic: 0, procedureLinkage: 0, bindNow: false)
    func count(type: UInt32) {
      if type == relativeType {
        counts.relative += 1
      } else if type == jumpSlotType {
        counts.procedureLinkage += 1
      } else {
        counts.symbolic += 1
      }
    }
    forEachSection { header, section, _ in
      guard header.sh_flags & UInt64(SHF_ALLOC) != 0, header.sh_entsize > 0, let data = elf_getdata(section, nil)
      else { return }
      let entries = Int32(clamping: header.sh_size / header.sh_entsize)
      switch header.sh_type {
      case UInt32(SHT_RELA):
        for index in 0..<entries {
          var relocation = GElf_Rela()
          guard gelf_getrela(data, index, &relocation) != nil else { continue }
          count(type: Self.relocationType(relocation.r_info, is64: is64))
        }
      case UInt32(SHT_REL):
        for index in 0..<entries {
          var relocation = GElf_Rel()
          guard gelf_getrel(data, index, &relocation) != nil else { continue }
          count(type: Self.relocationType(relocation.r_info, is64: is64))
        }
      case UInt32(SHT_RELR):
        counts.relative += Self.relrCount(data, entrySize: Int(header.sh_entsize))
      default:
        return
      }
    }
    counts.bindNow = bindsNow()
    return counts
  }

  /// The string a dynamic entry (`DT_SONAME`) points to in the dynamic string table.
  func dynamicString(_ tag: Int64) -> String? {
    guard let (entry, strings) = firstDynamicEntry(tag), let text = elf_strptr(elf, strings, Int(entry.d_un.d_val))
    else { return nil }
    return String(cString: text)
  }

  private static func relocationType(_ info: UInt64, is64: Bool) -> UInt32 {
    is64 ? UInt32(truncatingIfNeeded: info & 0xffff_ffff) : UInt32(truncatingIfNeeded: info & 0xff)
  }

  /// Relocated words of a RELR section: an even entry is an address (one word), an odd
  /// one a bitmap of the words after the last address, its lowest bit the tag.
  static func relrCount(_ data: UnsafeMutablePointer<Elf_Data>, entrySize: Int) -> Int {
    guard let bytes = data.pointee.d_buf, entrySize == 8 || entrySize == 4 else { return 0 }
    let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(data.pointee.d_size))
    var total = 0
    var offset = 0
    while offset + entrySize <= buffer.count {
      let entry: UInt64 =
        entrySize == 8
        ? UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        : UInt64(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      total += entry & 1 == 0 ? 1 : entry.nonzeroBitCount - 1
      offset += entrySize
    }
    return total
  }
}

import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// The tables of a linked module that the dynamic loader reads before the module's code
/// runs, as far as link options decide their size: how its relative relocations are
/// stored, and which symbol hash tables it carries.
///
/// On a cold launch each page of these tables is a read from storage: relative relocations
/// stored one per 24-byte RELA entry (instead of a RELR bitmap) also make the loader write
/// every relocated page of `.data` and `.data.rel.ro` in table order.
public struct LoaderTables: Codable, Sendable, Equatable {
  /// `DT_RELR` (or Android's `DT_ANDROID_RELR`): relative relocations packed as bitmaps.
  public var packedRelative: Bool
  /// Relative relocations the loader still reads one entry each from RELA or REL.
  public var relativeInRELA: Int
  /// Relative relocations packed in RELR.
  public var relativeInRELR: Int
  /// `DT_HASH`: the System V hash table, which a loader reading `DT_GNU_HASH` never uses.
  public var sysvHash: Bool
  /// `DT_GNU_HASH`.
  public var gnuHash: Bool
  /// The program interpreter (`PT_INTERP`), which names the loader: glibc's
  /// `/lib64/ld-linux-x86-64.so.2`, Android's `/system/bin/linker64`; nil for a library.
  public var interpreter: String?

  public init(
    packedRelative: Bool, relativeInRELA: Int, relativeInRELR: Int, sysvHash: Bool, gnuHash: Bool,
    interpreter: String?
  ) {
    self.packedRelative = packedRelative
    self.relativeInRELA = relativeInRELA
    self.relativeInRELR = relativeInRELR
    self.sysvHash = sysvHash
    self.gnuHash = gnuHash
    self.interpreter = interpreter
  }

  /// Reads the tables of the module at `path`.
  ///
  /// - Throws: `SymbolizationError` when it is no readable ELF executable or library.
  public static func read(path: String) throws -> LoaderTables {
    let file = try ELFFile(path: path)
    let counts = file.dynamicRelocationCounts()
    let packed = file.packedRelativeRelocationCount()
    // DT_RELR is 36 (glibc 2.36's elf.h); bionic's DT_ANDROID_RELR is 0x6fffe000.
    let packedTag = file.dynamicEntry(36) != nil || file.dynamicEntry(0x6fff_e000) != nil
    return LoaderTables(
      packedRelative: packedTag, relativeInRELA: counts.relative - packed, relativeInRELR: packed,
      sysvHash: file.dynamicEntry(Int64(DT_HASH)) != nil, gnuHash: file.dynamicEntry(Int64(DT_GNU_HASH)) != nil,
      interpreter: file.programInterpreter().path)
  }
}

/// The symbol versions a shared library defines (`SHT_GNU_verdef`): glibc's `libc.so.6`
/// defines `GLIBC_2.2.5` … `GLIBC_2.36` and, from 2.36, `GLIBC_ABI_DT_RELR`, the version
/// a linker makes a module with `DT_RELR` depend on so that older loaders refuse it.
public enum VersionDefinitions {
  /// The version names the library at `path` defines, in its order; empty when it has none.
  ///
  /// - Throws: `SymbolizationError` when it is no readable ELF executable or library.
  public static func names(ofFileAt path: String) throws -> [String] {
    try ELFFile(path: path).versionDefinitionNames()
  }
}

extension ELFFile {
  /// Relative relocations in the allocated `SHT_RELR` sections.
  func packedRelativeRelocationCount() -> Int {
    var total = 0
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_RELR), header.sh_flags & UInt64(SHF_ALLOC) != 0,
        let data = elf_getdata(section, nil)
      else { return }
      total += Self.relrCount(data, entrySize: Int(header.sh_entsize))
    }
    return total
  }

  /// The names of the `SHT_GNU_verdef` section's definitions.
  func versionDefinitionNames() -> [String] {
    var names: [String] = []
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_GNU_verdef), let data = elf_getdata(section, nil) else { return }
      var offset: Int32 = 0
      // sh_info is the number of definitions; each names itself in its first auxiliary entry.
      for _ in 0..<Int(header.sh_info) {
        var definition = GElf_Verdef()
        guard gelf_getverdef(data, offset, &definition) != nil else { break }
        var auxiliary = GElf_Verdaux()
        if gelf_getverdaux(data, offset + Int32(definition.vd_aux), &auxiliary) != nil,
          let name = elf_strptr(elf, Int(header.sh_link), Int(auxiliary.vda_name))
        {
          names.append(String(cString: name))
        }
        guard definition.vd_next > 0 else { break }
        offset += Int32(definition.vd_next)
      }
    }
    return names
  }
}

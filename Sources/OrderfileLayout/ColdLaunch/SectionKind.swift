import OrderfileSymbolization

/// What a section of a module's file holds, as far as a launch reading it is concerned: the
/// one classification every cold-launch count by section uses.
///
/// Decided by the section's type and flags first, its name only where those do not tell
/// (unwind tables and language metadata are plain `SHT_PROGBITS`):
///
/// | kind | sections |
/// | --- | --- |
/// | code | every `SHF_EXECINSTR` section: `.text`, `.init`, `.fini`, `.plt`, `.plt.sec`, `.plt.got` |
/// | relocations | `SHT_RELA`, `SHT_REL`, `SHT_RELR` (and Android's packed forms): `.rela.dyn`, `.rela.plt`, `.relr.dyn` |
/// | symbols | symbol, string, hash and version tables: `.dynsym`, `.dynstr`, `.gnu.hash`, `.hash`, `.gnu.version*`, `.symtab`, `.strtab` |
/// | unwind | `.eh_frame`, `.eh_frame_hdr`, `.gcc_except_table`, `.ARM.exidx`, `.ARM.extab`, `.sframe` |
/// | metadata | what describes the file or the program to the loader and the language runtime: `.interp`, notes, `.dynamic`, `.comment`, debug info, `.shstrtab`, Swift's `swift5_*` sections |
/// | read-only data | other allocated sections: `.rodata`, `.rodata.*` |
/// | writable data | other `SHF_WRITE` sections: `.data`, `.data.rel.ro`, `.got`, `.got.plt`, `.init_array`, `.tdata` (`.bss` takes no file bytes) |
/// | outside sections | file bytes no section holds: the ELF and program headers, padding |
public enum SectionKind: String, Codable, Sendable, CaseIterable, Comparable {
  case code
  case relocations
  case symbols
  case unwind
  case metadata
  case readOnlyData
  case writableData
  case outsideSections

  /// The kind's name in reports.
  public var title: String {
    switch self {
    case .code: return "code"
    case .relocations: return "relocations"
    case .symbols: return "symbols"
    case .unwind: return "unwind"
    case .metadata: return "metadata"
    case .readOnlyData: return "read-only data"
    case .writableData: return "writable data"
    case .outsideSections: return "outside sections"
    }
  }

  /// Reports list kinds in declaration order: code first, what the loader reads next, data last.
  public static func < (left: SectionKind, right: SectionKind) -> Bool { left.rank < right.rank }

  private var rank: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }

  /// The kind of a section with this name, `sh_type` and `sh_flags`.
  public static func of(name: String, type: UInt32, flags: UInt64) -> SectionKind {
    if relocationTypes.contains(type) { return .relocations }
    if flags & executeFlag != 0 { return .code }
    if symbolTypes.contains(type) && name != ".shstrtab" { return .symbols }
    if unwindNames.contains(name) || name.hasPrefix(".eh_frame") || name.hasPrefix(".ARM.ex") { return .unwind }
    if metadataTypes.contains(type) || metadataNames.contains(name)
      || metadataPrefixes.contains(where: name.hasPrefix)
    {
      return .metadata
    }
    if flags & writeFlag != 0 { return .writableData }
    if flags & allocFlag != 0 { return .readOnlyData }
    return .metadata
  }

  /// The kind of `section`.
  public static func of(_ section: FileSection) -> SectionKind {
    of(name: section.name, type: section.type, flags: section.flags)
  }

  private static let writeFlag: UInt64 = 0x1
  private static let allocFlag: UInt64 = 0x2
  private static let executeFlag: UInt64 = 0x4
  /// `SHT_RELA`, `SHT_REL`, `SHT_RELR`, `SHT_ANDROID_REL`, `SHT_ANDROID_RELA`, `SHT_ANDROID_RELR`.
  private static let relocationTypes: Set<UInt32> = [4, 9, 19, 0x6000_0001, 0x6000_0002, 0x6FFF_FF00]
  /// `SHT_SYMTAB`, `SHT_STRTAB`, `SHT_HASH`, `SHT_DYNSYM`, `SHT_SYMTAB_SHNDX`, `SHT_GNU_HASH`,
  /// `SHT_GNU_verdef`, `SHT_GNU_verneed`, `SHT_GNU_versym`.
  private static let symbolTypes: Set<UInt32> = [2, 3, 5, 11, 18, 0x6FFF_FFF6, 0x6FFF_FFFD, 0x6FFF_FFFE, 0x6FFF_FFFF]
  /// `SHT_DYNAMIC`, `SHT_NOTE`, `SHT_LLVM_ADDRSIG`.
  private static let metadataTypes: Set<UInt32> = [6, 7, 0x6FFF_4C03]
  private static let unwindNames: Set<String> = [".gcc_except_table", ".sframe"]
  private static let metadataNames: Set<String> = [
    ".interp", ".comment", ".shstrtab", ".gnu_debuglink", ".gnu_debugaltlink", ".gnu.build.attributes",
  ]
  private static let metadataPrefixes = [".debug", ".zdebug", ".note", "swift5_", ".swift_ast", ".gnu.warning"]
}

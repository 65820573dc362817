import CLibdw

/// One section of an ELF file as its section header describes it: where its bytes lie in
/// the file, for measures that count file pages (what a cold launch reads from disk).
public struct FileSection: Codable, Sendable, Equatable {
  public var name: String
  /// `sh_type` (`SHT_PROGBITS`, `SHT_RELA`, …).
  public var type: UInt32
  /// `sh_flags` (`SHF_ALLOC`, `SHF_WRITE`, `SHF_EXECINSTR`, …).
  public var flags: UInt64
  public var address: UInt64
  public var offset: UInt64
  /// Bytes the section takes in the file: 0 for `SHT_NOBITS` (`.bss`), which has none.
  public var fileSize: UInt64

  public init(name: String, type: UInt32, flags: UInt64, address: UInt64, offset: UInt64, fileSize: UInt64) {
    self.name = name
    self.type = type
    self.flags = flags
    self.address = address
    self.offset = offset
    self.fileSize = fileSize
  }

  /// The program may write it (`SHF_WRITE`): the linker puts it in a writable segment.
  public var isWritable: Bool { flags & UInt64(SHF_WRITE) != 0 }

  /// The file bytes it takes.
  public var fileRange: Range<UInt64> { offset..<(offset + fileSize) }

  /// Every section of the ELF file at `path` with a name, in section-header order.
  public static func read(path: String) throws -> [FileSection] {
    let file = try ELFFile(path: path)
    var sections: [FileSection] = []
    file.forEachSection { header, _, name in
      guard !name.isEmpty else { return }
      let nobits = header.sh_type == UInt32(SHT_NOBITS)
      sections.append(
        FileSection(
          name: name, type: header.sh_type, flags: header.sh_flags, address: header.sh_addr,
          offset: header.sh_offset, fileSize: nobits ? 0 : header.sh_size))
    }
    return sections
  }
}

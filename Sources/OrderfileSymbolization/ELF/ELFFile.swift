import CLibdw
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// An ELF file opened with libelf, checked so that later readers never run past its end.
///
/// Used on its own for the cheap build-id read, and to vet a file before libdw opens it, so
/// that a wrong or damaged file becomes an error that names it rather than a crash or a
/// silent empty result.
final class ELFFile {
  let path: String
  private let descriptor: Int32
  /// The libelf handle, valid as long as this object lives.
  let elf: OpaquePointer

  /// Opens and checks the file at `path`: readable, ELF, an executable or a shared library,
  /// with headers and section contents inside the file.
  init(path: String) throws {
    _ = ELFFile.libraryVersion
    self.path = path
    // Non-blocking: a FIFO would otherwise block this open until a writer comes, before
    // checkRegularFile could refuse it.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else {
      throw SymbolizationError.cannotRead(path: path, reason: Self.systemReason())
    }
    var elf: OpaquePointer?
    var handedOver = false
    defer {
      if !handedOver {
        if let elf { elf_end(elf) }
        close(descriptor)
      }
    }
    let fileSize = try Self.checkRegularFile(descriptor, path: path)
    try Self.checkMagic(descriptor, path: path)
    elf = elf_begin(descriptor, ELF_C_READ_MMAP, nil)
    guard let elf else {
      throw SymbolizationError.malformedELF(path: path, reason: Self.libelfMessage())
    }
    guard elf_kind(elf) == ELF_K_ELF else {
      throw SymbolizationError.malformedELF(path: path, reason: "libelf does not accept it as ELF")
    }
    try Self.checkLayout(elf, fileSize: fileSize, path: path)
    self.descriptor = descriptor
    self.elf = elf
    handedOver = true
  }

  deinit {
    elf_end(elf)
    close(descriptor)
  }

  /// The GNU build-id note, or nil when the file has none.
  func buildID() throws -> BuildID? {
    var bits: UnsafeRawPointer?
    let length = dwelf_elf_gnu_build_id(elf, &bits)
    if length < 0 {
      throw SymbolizationError.malformedELF(
        path: path, reason: "cannot read its notes: \(Self.libelfMessage())")
    }
    return BuildID(bits, count: length)
  }

  /// The NUL-separated strings of the `.comment` section, where compilers and linkers sign
  /// the file ("Linker: LLD 21.0.0", "GCC: (Debian 12.2.0-14) 12.2.0"); empty without one.
  func commentStrings() -> [String] {
    strings(ofSection: ".comment", type: SHT_PROGBITS)
  }

  /// "gold 1.16" from the note gold writes instead of signing `.comment`; nil otherwise.
  func goldVersion() -> String? {
    strings(ofSection: ".note.gnu.gold-version", type: SHT_NOTE).first { $0.hasPrefix("gold ") }
  }

  /// The names of all sections, in file order.
  func sectionNames() -> [String] {
    var stringTableIndex = 0
    guard elf_getshdrstrndx(elf, &stringTableIndex) == 0 else { return [] }
    var names: [String] = []
    var section = elf_nextscn(elf, nil)
    while let current = section {
      var header = GElf_Shdr()
      if gelf_getshdr(current, &header) != nil, let name = elf_strptr(elf, stringTableIndex, Int(header.sh_name)) {
        names.append(String(cString: name))
      }
      section = elf_nextscn(elf, current)
    }
    return names
  }

  /// Whether the file has a section of this type (`SHT_SYMTAB`: a full symbol table).
  func hasSection(ofType type: Int32) -> Bool {
    var found = false
    forEachSection { header, _, _ in found = found || header.sh_type == UInt32(type) }
    return found
  }

  /// Calls `body` with every section's header, handle and name (empty when unnamed), in file order.
  func forEachSection(_ body: (GElf_Shdr, OpaquePointer, String) -> Void) {
    var stringTableIndex = 0
    let hasNames = elf_getshdrstrndx(elf, &stringTableIndex) == 0
    var section = elf_nextscn(elf, nil)
    while let current = section {
      var header = GElf_Shdr()
      if gelf_getshdr(current, &header) != nil {
        let name = hasNames ? elf_strptr(elf, stringTableIndex, Int(header.sh_name)).map { String(cString: $0) } : nil
        body(header, current, name ?? "")
      }
      section = elf_nextscn(elf, current)
    }
  }

  /// The sections that hold code (`SHF_EXECINSTR` and allocated), with their address ranges.
  func executableSections() -> [(name: String, range: Range<UInt64>, alignment: UInt64)] {
    var sections: [(name: String, range: Range<UInt64>, alignment: UInt64)] = []
    forEachSection { header, _, name in
      let flags = UInt64(SHF_EXECINSTR) | UInt64(SHF_ALLOC)
      guard header.sh_flags & flags == flags, header.sh_type == UInt32(SHT_PROGBITS), header.sh_size > 0 else { return }
      let (end, overflow) = header.sh_addr.addingReportingOverflow(header.sh_size)
      guard !overflow else { return }
      sections.append((name, header.sh_addr..<end, max(header.sh_addralign, 1)))
    }
    return sections
  }

  /// Whether `.symtab` or `.dynsym` names any of these symbols, defined or only referenced.
  func mentionsSymbol(_ names: Set<String>) -> Bool {
    // Compared as C strings: a Swift string and a hash per symbol took 20 ms of a 90 ms
    // `record` on a server of 100,000 symbols, and `record` asks this of every program.
    let wanted = names.map { Array($0.utf8CString) }
    var mentioned = false
    forEachSection { header, section, _ in
      guard !mentioned,
        header.sh_type == UInt32(SHT_SYMTAB) || header.sh_type == UInt32(SHT_DYNSYM), header.sh_entsize > 0,
        let data = elf_getdata(section, nil)
      else { return }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var symbol = GElf_Sym()
        guard gelf_getsym(data, index, &symbol) != nil,
          let name = elf_strptr(elf, Int(header.sh_link), Int(symbol.st_name))
        else { continue }
        if wanted.contains(where: { strcmp(name, $0) == 0 }) {
          mentioned = true
          return
        }
      }
    }
    return mentioned
  }

  /// The NUL-separated strings in the named section of this type; empty without one.
  private func strings(ofSection wanted: String, type: Int32) -> [String] {
    var strings: [String]?
    forEachSection { header, section, name in
      guard strings == nil, header.sh_type == UInt32(type), name == wanted,
        let data = elf_getdata(section, nil), let bytes = data.pointee.d_buf
      else { return }
      let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(data.pointee.d_size))
      strings = buffer.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
    return strings ?? []
  }

  /// libelf needs its version set once per process before `elf_begin`.
  private static let libraryVersion: UInt32 = elf_version(UInt32(EV_CURRENT))

  /// `errno`'s text, lowercased to match the other messages.
  private static func systemReason() -> String {
    String(cString: strerror(errno)).lowercased()
  }

  private static func libelfMessage() -> String {
    guard let message = elf_errmsg(-1) else { return "unknown libelf error" }
    return String(cString: message).lowercased()
  }

  /// The file's size; throws for directories and anything else that is not a regular file.
  private static func checkRegularFile(_ descriptor: Int32, path: String) throws -> UInt64 {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw SymbolizationError.cannotRead(path: path, reason: systemReason())
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return UInt64(info.st_size)
    case S_IFDIR: throw SymbolizationError.cannotRead(path: path, reason: "is a directory")
    default:
      let kind = FileReading.nonRegularKind(info.st_mode) ?? "a special file"
      throw SymbolizationError.cannotRead(path: path, reason: "is \(kind), not a regular file")
    }
  }

  /// Throws `.notELF` unless the file starts with `\x7fELF`.
  private static func checkMagic(_ descriptor: Int32, path: String) throws {
    var leading = [UInt8](repeating: 0, count: 4)
    var count = 0
    while true {
      count = leading.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      break
    }
    guard count >= 0 else {
      throw SymbolizationError.cannotRead(path: path, reason: systemReason())
    }
    let magic: [UInt8] = [0x7f, UInt8(ascii: "E"), UInt8(ascii: "L"), UInt8(ascii: "F")]
    guard count == 4, leading == magic else {
      let shown = leading[0..<count].map { "0x" + BuildID([$0]).description }
        .joined(separator: " ")
      throw SymbolizationError.notELF(path: path, leadingBytes: shown)
    }
  }

  /// Checks the ELF header's type and that every header table and section lies inside the
  /// file.
  private static func checkLayout(_ elf: OpaquePointer, fileSize: UInt64, path: String) throws {
    func malformed(_ reason: String) -> SymbolizationError {
      .malformedELF(path: path, reason: reason)
    }
    var header = GElf_Ehdr()
    guard gelf_getehdr(elf, &header) != nil else {
      throw malformed("cannot read the ELF header: \(libelfMessage())")
    }
    switch Int32(header.e_type) {
    case ET_EXEC, ET_DYN: break
    case ET_REL: throw SymbolizationError.unsupportedELFType(path: path, type: "relocatable object")
    case ET_CORE: throw SymbolizationError.unsupportedELFType(path: path, type: "core file")
    default:
      throw SymbolizationError.unsupportedELFType(path: path, type: "of type \(header.e_type)")
    }
    /// Whether `count` entries of `entrySize` bytes at `offset` end inside the file.
    func fits(_ offset: UInt64, _ count: UInt64, _ entrySize: UInt64) -> Bool {
      let (bytes, overflow) = count.multipliedReportingOverflow(by: entrySize)
      let (end, overflow2) = offset.addingReportingOverflow(bytes)
      return !overflow && !overflow2 && end <= fileSize
    }
    var programHeaderCount = 0
    guard elf_getphdrnum(elf, &programHeaderCount) == 0 else {
      throw malformed("cannot count its program headers: \(libelfMessage())")
    }
    guard fits(header.e_phoff, UInt64(programHeaderCount), UInt64(header.e_phentsize)) else {
      throw malformed(
        "its \(programHeaderCount) program headers at offset \(header.e_phoff) end past the "
          + "end of the file (\(fileSize) bytes): truncated?")
    }
    var sectionCount = 0
    guard elf_getshdrnum(elf, &sectionCount) == 0 else {
      throw malformed("cannot count its sections: \(libelfMessage())")
    }
    guard fits(header.e_shoff, UInt64(sectionCount), UInt64(header.e_shentsize)) else {
      throw malformed(
        "its \(sectionCount) section headers at offset \(header.e_shoff) end past the end of "
          + "the file (\(fileSize) bytes): truncated?")
    }
    var section = elf_nextscn(elf, nil)
    while let current = section {
      var sectionHeader = GElf_Shdr()
      guard gelf_getshdr(current, &sectionHeader) != nil else {
        throw malformed("cannot read section header \(elf_ndxscn(current)): \(libelfMessage())")
      }
      if sectionHeader.sh_type != UInt32(SHT_NOBITS)
        && !fits(sectionHeader.sh_offset, 1, sectionHeader.sh_size)
      {
        throw malformed(
          "section \(elf_ndxscn(current)) (\(sectionHeader.sh_size) bytes at offset "
            + "\(sectionHeader.sh_offset)) ends past the end of the file (\(fileSize) bytes): "
            + "truncated?")
      }
      section = elf_nextscn(elf, current)
    }
  }
}

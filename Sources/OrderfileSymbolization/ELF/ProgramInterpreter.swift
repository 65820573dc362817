import CLibdw

/// The dynamic loader an ELF program names in its `PT_INTERP` segment: glibc's
/// `/lib64/ld-linux-x86-64.so.2`, Android's `/system/bin/linker64`.
public enum ProgramInterpreter: Equatable, Sendable {
  /// The loader the kernel starts for it.
  case loader(String)
  /// An ELF executable or library without one: statically linked, or a library.
  case none
  /// Not a file that can be read as an ELF executable or library, or one whose `PT_INTERP`
  /// names no absolute path.
  case unknown

  /// The interpreter of the file at `path`.
  public init(_ path: String) {
    guard let file = try? ELFFile(path: path) else {
      self = .unknown
      return
    }
    self = file.programInterpreter()
  }

  /// The loader's path; nil unless it is `.loader`.
  public var path: String? {
    guard case .loader(let path) = self else { return nil }
    return path
  }
}

extension ELFFile {
  /// The interpreter this file names in `PT_INTERP`.
  func programInterpreter() -> ProgramInterpreter {
    var count = 0
    guard elf_getphdrnum(elf, &count) == 0 else { return .unknown }
    for index in 0..<Int32(clamping: count) {
      var header = GElf_Phdr()
      guard gelf_getphdr(elf, index, &header) != nil else { return .unknown }
      guard header.p_type == UInt32(PT_INTERP) else { continue }
      // A NUL-terminated path inside the file (checkLayout vetted only the section headers).
      var size = 0
      let (end, overflow) = header.p_offset.addingReportingOverflow(header.p_filesz)
      guard header.p_filesz > 0, !overflow, let image = elf_rawfile(elf, &size), end <= UInt64(size) else {
        return .unknown
      }
      let bytes = UnsafeRawBufferPointer(start: image + Int(header.p_offset), count: Int(header.p_filesz))
      let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      return name.hasPrefix("/") ? .loader(name) : .unknown
    }
    return .none
  }

  /// The machine of the ELF header (`e_machine`), nil for one the tool does not read.
  var machine: ELFMachine? {
    var header = GElf_Ehdr()
    guard gelf_getehdr(elf, &header) != nil else { return nil }
    return ELFMachine(rawValue: header.e_machine)
  }
}

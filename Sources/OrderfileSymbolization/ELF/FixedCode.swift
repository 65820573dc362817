import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// The code of a binary outside its `.text` sections: what the linker makes (`.init`,
/// `.fini`, the PLT stubs of `.plt`, `.plt.sec`, `.plt.got`, `.iplt`) or any other
/// executable section. An orderfile does not move it, but the launch runs part of it: the
/// loader calls `.init`, and every call to a function of another module (or an exported one
/// that may be interposed) goes through a PLT stub unless the code was built with `-fno-plt`.
///
/// Which stubs run is not in a trace (the recorders see function entries, and a stub is
/// none). It is read from the code: a stub counts when code the launch ran holds a direct
/// call or jump to it. Measured against the page probe on a library with 800 stubs, half of
/// them called at launch, this counts the stub pages that ran and none of those that did not;
/// counting every page of `.plt` counted two pages too many. A call on a path the launch did
/// not take still counts its stub, and a stub reached only through a function pointer is
/// missed.
public struct FixedCode: Codable, Sendable, Equatable {
  /// One executable section outside `.text`.
  public struct Section: Codable, Sendable, Equatable {
    public var name: String
    public var start: UInt64
    public var end: UInt64
    /// The stubs of a PLT section; nil for other sections.
    public var stubs: Int?
    /// Of those, the ones the launch code calls.
    public var calledStubs: Int?

    public var size: UInt64 { end - start }
  }

  /// Bytes of fixed code the launch runs.
  public struct Piece: Codable, Sendable, Equatable {
    public var section: String
    public var address: UInt64
    public var size: UInt64
  }

  /// Every executable section outside `.text`, in address order.
  public var sections: [Section]
  /// Whether the loader binds every PLT slot at load (`-z now`): no first call then goes
  /// through the lazy-binding header of `.plt`.
  public var bindsNow: Bool
  /// What the launch runs of it, `.init` first, then the stubs in the order the code calls them.
  public var touched: [Piece]

  /// The PLT sections (`.plt`, `.plt.sec`, `.plt.got`, `.iplt`).
  public var stubSections: [Section] { sections.filter { $0.stubs != nil } }

  /// Reads the fixed code of the binary at `path` and what of it code at `launch` (ELF
  /// virtual address ranges of the functions the launch ran) reaches; without a launch, only
  /// the sections and their stubs.
  public static func read(path: String, launch: [Range<UInt64>]?) throws -> FixedCode {
    let file = try ELFFile(path: path)
    var header = GElf_Ehdr()
    let machine = gelf_getehdr(file.elf, &header) != nil ? ELFMachine(rawValue: header.e_machine) : nil
    var sections: [Section] = []
    var layouts: [String: StubLayout] = [:]
    for section in file.executableSections() where !section.name.hasPrefix(".text") {
      let layout = machine.flatMap { StubLayout(section: section.name, machine: $0) }
      layouts[section.name] = layout
      let size = section.range.upperBound - section.range.lowerBound
      let stubs = layout.map { Int((size - min(size, $0.header)) / $0.entry) }
      sections.append(
        Section(
          name: section.name, start: section.range.lowerBound, end: section.range.upperBound, stubs: stubs,
          calledStubs: stubs == nil || launch == nil ? nil : 0))
    }
    sections.sort { $0.start < $1.start }
    let bindsNow = file.bindsNow()

    var touched: [Piece] = []
    guard let launch else { return FixedCode(sections: sections, bindsNow: bindsNow, touched: touched) }
    if let initSection = sections.first(where: { $0.name == ".init" }) {
      // The loader runs DT_INIT of every module it loads.
      touched.append(Piece(section: initSection.name, address: initSection.start, size: initSection.size))
    }
    guard let machine, sections.contains(where: { $0.stubs != nil }) else {
      return FixedCode(sections: sections, bindsNow: bindsNow, touched: touched)
    }
    var called = Set<UInt64>()
    var lazyHeader = false
    let firstStub = touched.count
    file.forEachCallTarget(in: launch, machine: machine) { target in
      guard let index = sections.firstIndex(where: { $0.stubs != nil && $0.start <= target && target < $0.end }),
        let layout = layouts[sections[index].name]
      else { return }
      let section = sections[index]
      let offset = target - section.start
      // Only a stub's first byte is a call target: a target inside one is a stray match.
      guard offset >= layout.header, (offset - layout.header) % layout.entry == 0, called.insert(target).inserted
      else { return }
      sections[index].calledStubs? += 1
      touched.append(Piece(section: section.name, address: target, size: layout.entry))
      guard !bindsNow, layout.binds else { return }
      lazyHeader = true
      // A .plt.sec stub's first call jumps to its lazy entry in .plt, at the same index.
      if section.name == ".plt.sec", let plt = sections.first(where: { $0.name == ".plt" }),
        let pltLayout = layouts[plt.name]
      {
        let lazy = plt.start + pltLayout.header + (offset / layout.entry) * pltLayout.entry
        if lazy < plt.end { touched.append(Piece(section: plt.name, address: lazy, size: pltLayout.entry)) }
      }
    }
    if lazyHeader, let plt = sections.first(where: { $0.name == ".plt" }), let layout = layouts[plt.name] {
      // The first call of each stub resolves its slot through the header of .plt.
      touched.insert(Piece(section: plt.name, address: plt.start, size: layout.header), at: firstStub)
    }
    return FixedCode(sections: sections, bindsNow: bindsNow, touched: touched)
  }
}

/// Where the stubs of a PLT section start and how long each is, as ld.bfd, gold and lld lay them out.
private struct StubLayout {
  /// Bytes before the first stub: the lazy-binding code of `.plt`.
  var header: UInt64
  var entry: UInt64
  /// Whether a stub's first call goes through the lazy-binding header (not so for `.plt.got`
  /// and `.iplt`, whose slots the loader fills at load).
  var binds: Bool

  init?(section: String, machine: ELFMachine) {
    switch (machine, section) {
    case (.x86_64, ".plt"): self.init(header: 16, entry: 16, binds: true)
    case (.x86_64, ".plt.sec"): self.init(header: 0, entry: 16, binds: true)
    // 8 bytes, or 16 with IBT: every stub starts at a multiple of 8.
    case (.x86_64, ".plt.got"): self.init(header: 0, entry: 8, binds: false)
    case (.x86_64, ".iplt"): self.init(header: 0, entry: 16, binds: false)
    case (.aarch64, ".plt"): self.init(header: 32, entry: 16, binds: true)
    case (.aarch64, ".iplt"): self.init(header: 0, entry: 16, binds: false)
    default: return nil
    }
  }

  private init(header: UInt64, entry: UInt64, binds: Bool) {
    self.header = header
    self.entry = entry
    self.binds = binds
  }
}

extension ELFFile {
  /// Whether the dynamic section asks the loader to bind every symbol at load.
  func bindsNow() -> Bool {
    if dynamicEntry(Int64(DT_BIND_NOW)) != nil { return true }
    if let flags = dynamicEntry(Int64(DT_FLAGS)), flags & UInt64(DF_BIND_NOW) != 0 { return true }
    if let flags = dynamicEntry(Int64(DT_FLAGS_1)), flags & UInt64(DF_1_NOW) != 0 { return true }
    return false
  }

  /// Calls `body` with the target of every direct call or jump the code in `ranges` holds.
  ///
  /// x86-64 code is scanned byte by byte for `call`/`jmp rel32` and `jcc rel32` (a tail
  /// call), since instructions have no fixed boundaries: a stray match is possible but must
  /// then also land on a stub's first byte. arm64 instructions are words: `b`, `bl`, `b.cond`.
  func forEachCallTarget(in ranges: [Range<UInt64>], machine: ELFMachine, _ body: (UInt64) -> Void) {
    var code: [(range: Range<UInt64>, bytes: UnsafeRawBufferPointer)] = []
    forEachSection { header, section, _ in
      let flags = UInt64(SHF_EXECINSTR) | UInt64(SHF_ALLOC)
      guard header.sh_flags & flags == flags, header.sh_type == UInt32(SHT_PROGBITS),
        let data = elf_getdata(section, nil), let bytes = data.pointee.d_buf,
        UInt64(data.pointee.d_size) == header.sh_size
      else { return }
      code.append(
        (
          header.sh_addr..<header.sh_addr &+ header.sh_size,
          UnsafeRawBufferPointer(start: bytes, count: Int(header.sh_size))
        ))
    }
    for range in ranges where !range.isEmpty {
      guard let section = code.first(where: { $0.range.contains(range.lowerBound) }) else { continue }
      let start = Int(range.lowerBound - section.range.lowerBound)
      let end = Int(min(range.upperBound, section.range.upperBound) - section.range.lowerBound)
      let bytes = section.bytes
      func word(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
      }
      func target(_ at: Int, _ length: Int, _ displacement: Int64) -> UInt64 {
        UInt64(bitPattern: Int64(bitPattern: section.range.lowerBound) &+ Int64(at + length) &+ displacement)
      }
      switch machine {
      case .x86_64:
        var at = start
        while at < end {
          let opcode = bytes[at]
          if (opcode == 0xe8 || opcode == 0xe9) && at + 5 <= end {
            body(target(at, 5, Int64(Int32(bitPattern: word(at + 1)))))
          } else if opcode == 0x0f && at + 6 <= end && bytes[at + 1] & 0xf0 == 0x80 {
            body(target(at, 6, Int64(Int32(bitPattern: word(at + 2)))))
          }
          at += 1
        }
      case .aarch64:
        var at = start + (4 - start % 4) % 4
        while at + 4 <= end {
          let instruction = word(at)
          let here = Int64(bitPattern: section.range.lowerBound) &+ Int64(at)
          if instruction & 0x7c00_0000 == 0x1400_0000 {
            // b, bl: a signed 26-bit word offset.
            let offset = Int64(Int32(bitPattern: instruction << 6) >> 6) * 4
            body(UInt64(bitPattern: here &+ offset))
          } else if instruction & 0xff00_0010 == 0x5400_0000 {
            // b.cond: a signed 19-bit word offset at bit 5.
            let offset = Int64(Int32(bitPattern: (instruction >> 5 & 0x7ffff) << 13) >> 13) * 4
            body(UInt64(bitPattern: here &+ offset))
          }
          at += 4
        }
      }
    }
  }
}

import CLibdw

/// The function ranges that a linked binary's call-frame information (`.eh_frame`) lists.
///
/// On x86-64 Linux every function the compiler emits gets a frame description entry (FDE)
/// with its start and length, whether or not it has a symbol: Swift's private functions in
/// sections named after assembler-local labels (`.text..L__unnamed_12`,
/// `.text..Lobjectdestroy.7`) have an FDE and no symbol at all. This is how such code is
/// found in a binary that only its link map can name.
///
/// Only what locating functions needs is parsed: each CIE's pointer encoding (augmentation
/// `R`) and each FDE's start and length. Unwinding instructions are skipped.
public enum FrameDescriptions {
  /// One function's code as an FDE gives it.
  public struct Range: Hashable, Sendable {
    /// ELF virtual address of the first instruction.
    public var start: UInt64
    public var length: UInt64
  }

  /// The FDE ranges of `.eh_frame` in `file`, sorted by start, without empty ranges or
  /// repeats; empty when the file has no `.eh_frame` or it cannot be read. A damaged entry
  /// ends the walk: what came before it is kept.
  static func ranges(in file: ELFFile) -> [Range] {
    var found: [Range] = []
    file.forEachSection { header, section, name in
      guard name == ".eh_frame", header.sh_type == UInt32(SHT_PROGBITS), header.sh_addr != 0,
        let data = elf_getdata(section, nil), let bytes = data.pointee.d_buf
      else { return }
      let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(data.pointee.d_size))
      found += ranges(ofSection: buffer, address: header.sh_addr)
    }
    var seen = Set<UInt64>()
    return found.filter { $0.length > 0 && seen.insert($0.start).inserted }.sorted { $0.start < $1.start }
  }

  /// The FDE ranges of one `.eh_frame` section's bytes, loaded at `address`.
  public static func ranges(ofSection bytes: UnsafeRawBufferPointer, address: UInt64) -> [Range] {
    var reader = Reader(bytes: bytes)
    var encodings: [Int: UInt8] = [:]  // CIE offset → FDE pointer encoding
    var ranges: [Range] = []
    while reader.offset + 4 <= bytes.count {
      let entryStart = reader.offset
      guard var length = reader.u32() else { break }
      if length == 0 { break }  // the terminator
      var lengthEnd = reader.offset
      if length == 0xffff_ffff {
        guard let long = reader.u64(), long <= UInt64(Int.max) else { break }
        length = 0
        lengthEnd = reader.offset
        guard let end = lengthEnd.addingIfFits(Int(long)), end <= bytes.count else { break }
        reader.limit = end
      } else {
        guard let end = lengthEnd.addingIfFits(Int(length)), end <= bytes.count else { break }
        reader.limit = end
      }
      let entryEnd = reader.limit
      let idOffset = reader.offset
      guard let id = reader.u32() else { break }
      if id == 0 {
        if let encoding = cieEncoding(&reader) { encodings[entryStart] = encoding }
      } else {
        // The CIE pointer counts back from the field itself.
        let cie = idOffset - Int(id)
        let encoding = encodings[cie] ?? 0
        let fieldAddress = address &+ UInt64(reader.offset)
        if let start = reader.pointer(encoding: encoding, fieldAddress: fieldAddress),
          let length = reader.pointer(encoding: encoding & 0x0f, fieldAddress: 0)
        {
          ranges.append(Range(start: start, length: length))
        }
      }
      reader.offset = entryEnd
      reader.limit = bytes.count
    }
    return ranges
  }

  /// The FDE pointer encoding a CIE declares (augmentation `zR`); absolute 8-byte
  /// pointers when it declares none.
  private static func cieEncoding(_ reader: inout Reader) -> UInt8? {
    guard let version = reader.u8(), let augmentation = reader.cString() else { return nil }
    guard reader.uleb() != nil, reader.sleb() != nil else { return nil }  // code, data alignment
    if version == 1 { _ = reader.u8() } else { _ = reader.uleb() }  // return register
    guard augmentation.first == UInt8(ascii: "z") else { return 0 }
    guard reader.uleb() != nil else { return nil }  // augmentation data length
    for letter in augmentation.dropFirst() {
      switch letter {
      case UInt8(ascii: "R"): return reader.u8()
      case UInt8(ascii: "L"): _ = reader.u8()
      case UInt8(ascii: "P"):
        guard let encoding = reader.u8(), reader.pointer(encoding: encoding, fieldAddress: 0) != nil else { return nil }
      case UInt8(ascii: "S"), UInt8(ascii: "B"): continue
      default: return nil
      }
    }
    return 0
  }
}

extension Int {
  fileprivate func addingIfFits(_ other: Int) -> Int? {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? nil : sum
  }
}

/// Bounds-checked little-endian reads from a section's bytes.
private struct Reader {
  let bytes: UnsafeRawBufferPointer
  var offset = 0
  /// Reads stop here: the end of the current entry.
  var limit: Int

  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
    limit = bytes.count
  }

  mutating func fixed<T: FixedWidthInteger>(_: T.Type) -> T? {
    let size = MemoryLayout<T>.size
    guard offset + size <= limit else { return nil }
    var value: T = 0
    withUnsafeMutableBytes(of: &value) {
      $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
    }
    offset += size
    return T(littleEndian: value)
  }

  mutating func u8() -> UInt8? { fixed(UInt8.self) }
  mutating func u32() -> UInt32? { fixed(UInt32.self) }
  mutating func u64() -> UInt64? { fixed(UInt64.self) }

  mutating func uleb() -> UInt64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let byte = u8() {
      if shift < 64 { result |= UInt64(byte & 0x7f) << shift }
      shift += 7
      if byte & 0x80 == 0 { return result }
    }
    return nil
  }

  mutating func sleb() -> Int64? {
    var result: Int64 = 0
    var shift: Int64 = 0
    while let byte = u8() {
      if shift < 64 { result |= Int64(byte & 0x7f) << shift }
      shift += 7
      if byte & 0x80 == 0 {
        if shift < 64 && byte & 0x40 != 0 { result |= -(Int64(1) << shift) }
        return result
      }
    }
    return nil
  }

  mutating func cString() -> [UInt8]? {
    var text: [UInt8] = []
    while let byte = u8() {
      if byte == 0 { return text }
      text.append(byte)
    }
    return nil
  }

  /// A pointer in DWARF's `DW_EH_PE_*` encoding: the low nibble is the format, the high
  /// nibble what it is relative to. Only absolute and pc-relative values are resolved; an
  /// omitted or indirect pointer, or one relative to something else, is nil.
  mutating func pointer(encoding: UInt8, fieldAddress: UInt64) -> UInt64? {
    // DW_EH_PE_omit, or DW_EH_PE_indirect: the value is the address of the pointer.
    if encoding == 0xff || encoding & 0x80 != 0 { return nil }
    let value: UInt64?
    switch encoding & 0x0f {
    case 0x00, 0x04: value = u64()
    case 0x01: value = uleb()
    case 0x02: value = fixed(UInt16.self).map(UInt64.init)
    case 0x03: value = u32().map(UInt64.init)
    case 0x09: value = sleb().map { UInt64(bitPattern: $0) }
    case 0x0a: value = fixed(Int16.self).map { UInt64(bitPattern: Int64($0)) }
    case 0x0b: value = fixed(Int32.self).map { UInt64(bitPattern: Int64($0)) }
    case 0x0c: value = fixed(Int64.self).map { UInt64(bitPattern: $0) }
    default: return nil
    }
    guard let value else { return nil }
    switch encoding & 0x70 {
    case 0x00: return value
    case 0x10: return fieldAddress &+ value  // DW_EH_PE_pcrel
    default: return nil
    }
  }
}

import Foundation

/// The dynamic loader an ELF file names in its PT_INTERP segment.
enum ProgramInterpreter: Equatable {
  /// The loader the kernel starts for it.
  case loader(String)
  /// A 64-bit little-endian ELF file without one: statically linked.
  case none
  /// Not a file that can be read as a 64-bit little-endian ELF file.
  case unknown

  init(_ path: String) {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      self = .unknown
      return
    }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 64), header.count == 64,
      header.starts(with: [0x7f, 0x45, 0x4c, 0x46]),
      header[4] == 2, header[5] == 1
    else {
      self = .unknown
      return
    }
    func integer<T: FixedWidthInteger>(_ bytes: Data, _ offset: Int, _: T.Type) -> T {
      bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
    let offset = integer(header, 32, UInt64.self)
    let size = Int(integer(header, 54, UInt16.self))
    let count = Int(integer(header, 56, UInt16.self))
    guard size >= 56, (try? handle.seek(toOffset: offset)) != nil,
      let table = try? handle.read(upToCount: size * count), table.count == size * count
    else {
      self = .unknown
      return
    }
    guard let entry = (0..<count).first(where: { integer(table, $0 * size, UInt32.self) == 3 }) else {  // PT_INTERP
      self = .none
      return
    }
    // p_offset and p_filesz of the segment: the loader's path, NUL-terminated.
    let start = integer(table, entry * size + 8, UInt64.self)
    let length = Int(min(integer(table, entry * size + 32, UInt64.self), 4096))
    guard (try? handle.seek(toOffset: start)) != nil, let bytes = try? handle.read(upToCount: length),
      let name = String(bytes: bytes.prefix { $0 != 0 }, encoding: .utf8), name.hasPrefix("/")
    else {
      self = .unknown
      return
    }
    self = .loader(name)
  }
}

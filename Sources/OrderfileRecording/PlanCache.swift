import Foundation
import OrderfileSupport
import OrderfileSymbolization

#if canImport(Glibc)
  import Glibc
#endif

/// Plans of module files kept between recordings, so that `record` run again, and
/// `regenerate`'s runs of every scenario, read a large program's symbols, `.eh_frame` and
/// link map once instead of every time.
///
/// One file per module file (`plans/<name>-<hash of its real path>.plan`), holding a
/// `PlannedModule` under a key that names everything the plan was read from: the module
/// file's build-id, its real path, device, inode, size and times of last write and change;
/// its link map's path and the same of it, or that it had none; and the tool that wrote it
/// (the plan format's version and the running executable's stamp). A plan is used only
/// when the key read back is the key of the files as they are now; so a rebuilt binary, one
/// rewritten in place under the same build-id (`strip`, BOLT), a new map, a new debug file
/// or a new tool each plan afresh and replace the file. A binary without a build-id is kept
/// too, under the rest of the key. Modules read from `.dynsym` alone are not kept: a debug
/// file installed later would give them a better plan.
///
/// The cache keeps the `fileLimit` plans used last (a plan read is touched); older ones are
/// removed when a new one is written, so binaries of scratch directories do not pile up.
///
/// Concurrent recordings are safe: a plan is written under a temporary name and renamed
/// into place, so a reader sees a whole file or none; a file that is cut short, damaged
/// (its checksum) or of another key is ignored and planned afresh.
public struct PlanCache: Sendable, Equatable {
  /// Where plans are kept; nil keeps none (`record --no-plan-cache`).
  public var directory: String?

  public init(directory: String?) {
    self.directory = directory
  }

  /// Plans every time, keeps nothing.
  public static let disabled = PlanCache(directory: nil)

  /// The environment variable that moves the cache (tests, a build machine's shared disk).
  public static let directoryVariable = "ORDERFILE_CACHE_DIR"

  /// The user's cache: `$ORDERFILE_CACHE_DIR`, else `$XDG_CACHE_HOME/orderfile`, else
  /// `~/.cache/orderfile`; disabled when none of them can be told.
  public static func userDefault(environment: [String: String] = ProcessInfo.processInfo.environment) -> PlanCache {
    if let directory = environment[directoryVariable], !directory.isEmpty { return PlanCache(directory: directory) }
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
      return PlanCache(directory: cache + "/orderfile")
    }
    if let home = environment["HOME"], home.hasPrefix("/") { return PlanCache(directory: home + "/.cache/orderfile") }
    return .disabled
  }

  /// The most plan files kept.
  public var fileLimit = 256

  /// Raised whenever what a plan holds or how it is written changes.
  static let formatVersion: UInt32 = 1
  private static let magic = Array("OFPLANC\0".utf8)

  /// The plan of the module file at `path` when one is kept under `key`.
  func load(path: String, key: [UInt8]) -> PlannedModule? {
    guard let file = file(for: path), let bytes = try? FileReading.bytes(atPath: file, limit: 1 << 31) else {
      return nil
    }
    guard let module = Self.decode(bytes, key: key) else { return nil }
    // Used: the last to be removed.
    utimes(file, nil)
    // The debug file's stamp is known only once it was found; it must still be that file.
    if case .debugFile(let debugPath) = module.symbolSource, module.debugFile != FileStamp(path: debugPath) {
      return nil
    }
    return module
  }

  /// Keeps the plan of the module file at `path` under `key` (computed before the file was
  /// read). A cache that cannot be written only costs the next recording its time.
  func store(_ module: PlannedModule, path: String, key: [UInt8]) {
    switch module.symbolSource {
    case .symbolTable, .debugFile: break
    case .dynamicSymbols, .none: return
    }
    guard let directory, let file = file(for: path) else { return }
    try? AtomicFile.createDirectory(atPath: directory + "/plans")
    try? AtomicFile.write(Self.encode(module, key: key), to: file, durable: false)
    removeLeastRecentlyUsed(in: directory + "/plans")
  }

  /// Removes the plan files used longest ago beyond `fileLimit`; temporaries of writers
  /// (hidden names) are theirs to remove.
  private func removeLeastRecentlyUsed(in plans: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: plans) else { return }
    let files = names.filter { $0.hasSuffix(".plan") && !$0.hasPrefix(".") }.map { plans + "/" + $0 }
    guard files.count > fileLimit else { return }
    let byUse = files.compactMap { file in FileStamp(path: file).map { (file, $0.modified) } }.sorted { $0.1 < $1.1 }
    for (file, _) in byUse.prefix(byUse.count - fileLimit) { unlink(file) }
  }

  /// The file that holds the plan of the module file at `path`.
  func file(for path: String) -> String? {
    guard let directory else { return nil }
    let real = ModuleFile.resolved(path) ?? path
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in real.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return "\(directory)/plans/\(PathName.base(of: real))-\(String(repeating: "0", count: 16 - hex.count) + hex).plan"
  }

  /// The key of the module file at `path` as it is now; nil when it cannot be read.
  static func key(path: String) -> [UInt8]? {
    let real = ModuleFile.resolved(path) ?? path
    guard let binary = FileStamp(path: real) else { return nil }
    // Without a build-id, the rest of the key tells the file apart.
    let buildID = (try? BinaryLocator.buildID(ofFileAt: real)) ?? nil
    var writer = ByteWriter()
    writer.append(formatVersion)
    writer.append(FileStamp(path: "/proc/self/exe"))
    writer.append(binary)
    writer.append(buildID?.bytes ?? [])
    let map = ELFSymbolizer.defaultLinkMap(of: path)
    writer.append(Array(map.utf8))
    writer.append(FileStamp(path: map))
    return writer.bytes
  }

  // MARK: The file

  static func encode(_ module: PlannedModule, key: [UInt8]) -> [UInt8] {
    var writer = ByteWriter()
    writer.bytes += magic
    writer.append(formatVersion)
    writer.append(key)
    switch module.symbolSource {
    case .debugFile: writer.append(UInt8(1))
    default: writer.append(UInt8(0))
    }
    writer.append(module.debugFile)
    writer.append(module.coldParts.rawValue)
    writer.append(UInt8(module.isOrderfileRuntime ? 1 : 0))
    writer.append(UInt8(module.isInstrumented ? 1 : 0))
    writer.append(UInt64(module.functionCount))
    writer.append(module.signalHook)
    writer.append(UInt64(module.entries.count))
    for entry in module.entries { writer.append(entry) }
    writer.append(UInt64(module.names.rows.count))
    for row in module.names.rows {
      writer.append(row.offset)
      writer.append(row.length)
      writer.append(row.address)
    }
    writer.append(module.names.bytes)
    writer.append(checksum(writer.bytes[...]))
    return writer.bytes
  }

  static func decode(_ bytes: [UInt8], key: [UInt8]) -> PlannedModule? {
    guard bytes.count >= magic.count + 8, bytes.starts(with: magic) else { return nil }
    var trailer = ByteReader(bytes, at: bytes.count - 8)
    guard checksum(bytes[..<(bytes.count - 8)]) == trailer.u64() else { return nil }
    var reader = ByteReader(bytes, at: magic.count)
    guard reader.u32() == formatVersion, let stored = reader.bytes(), stored.elementsEqual(key),
      let source = reader.u8(), let debugFile = reader.stamp(),
      let coldParts = reader.u8().flatMap(PlannedModule.ColdParts.init(rawValue:)),
      let runtime = reader.u8(), let instrumented = reader.u8(), let functionCount = reader.u64(),
      let signalHook = reader.u64(), let entries = reader.u64s()
    else { return nil }
    guard let rowCount = reader.count(of: 16) else { return nil }
    var rows: [FunctionNames.Row] = []
    rows.reserveCapacity(rowCount)
    for _ in 0..<rowCount {
      guard let offset = reader.u32(), let length = reader.u32(), let address = reader.u64() else { return nil }
      rows.append(FunctionNames.Row(offset: offset, length: length, address: address))
    }
    guard let nameBytes = reader.bytes(), reader.offset == bytes.count - 8 else { return nil }
    let names = FunctionNames(bytes: nameBytes, rows: rows)
    let symbolSource: SymbolSource
    switch (source, debugFile) {
    case (0, nil): symbolSource = .symbolTable
    case (1, let stamp?): symbolSource = .debugFile(stamp.path)
    default: return nil
    }
    guard names.isConsistent, functionCount <= UInt64(Int.max) else { return nil }
    return PlannedModule(
      symbolSource: symbolSource, debugFile: debugFile, entries: entries, names: names,
      functionCount: Int(functionCount), signalHook: signalHook, isOrderfileRuntime: runtime != 0,
      isInstrumented: instrumented != 0, coldParts: coldParts)
  }

  /// A 64-bit hash of `bytes`, eight at a time: tells a damaged file from a whole one in a
  /// few milliseconds for tens of megabytes.
  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    bytes.withUnsafeBytes { buffer in
      var hash: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(buffer.count)
      var offset = 0
      while offset + 8 <= buffer.count {
        let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        hash = (hash ^ word) &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 29
        offset += 8
      }
      while offset < buffer.count {
        hash = (hash ^ UInt64(buffer[offset])) &* 0xc4ce_b9fe_1a85_ec53
        offset += 1
      }
      return hash ^ (hash >> 32)
    }
  }
}

/// Little-endian integers and length-prefixed byte strings, appended.
private struct ByteWriter {
  var bytes: [UInt8] = []

  mutating func append<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func append(_ data: [UInt8]) {
    append(UInt64(data.count))
    bytes += data
  }

  /// A stamp, or a zero length for none.
  mutating func append(_ stamp: FileStamp?) {
    guard let stamp else {
      append(UInt64(0))
      return
    }
    append(Array(stamp.path.utf8))
    for field in [stamp.device, stamp.inode, stamp.size, stamp.modified, stamp.changed] { append(field) }
  }
}

/// Reads what `ByteWriter` wrote; every read is nil past the end.
private struct ByteReader {
  let data: [UInt8]
  var offset: Int

  init(_ data: [UInt8], at offset: Int) {
    self.data = data
    self.offset = offset
  }

  mutating func fixed<T: FixedWidthInteger>(_: T.Type) -> T? {
    let size = MemoryLayout<T>.size
    guard offset >= 0, data.count - offset >= size else { return nil }
    let value = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    offset += size
    return T(littleEndian: value)
  }

  mutating func u8() -> UInt8? { fixed(UInt8.self) }
  mutating func u32() -> UInt32? { fixed(UInt32.self) }
  mutating func u64() -> UInt64? { fixed(UInt64.self) }

  /// A count of items of `size` bytes each that fit in what is left.
  mutating func count(of size: Int) -> Int? {
    guard let count = u64(), count <= UInt64(data.count - offset) / UInt64(size) else { return nil }
    return Int(count)
  }

  mutating func bytes() -> [UInt8]? {
    guard let count = count(of: 1) else { return nil }
    defer { offset += count }
    return Array(data[offset..<offset + count])
  }

  mutating func u64s() -> [UInt64]? {
    guard let count = count(of: 8) else { return nil }
    let start = offset
    offset += count * 8
    return data.withUnsafeBytes { buffer in
      (0..<count).map { UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: start + $0 * 8, as: UInt64.self)) }
    }
  }

  /// A stamp, nil inside for none; nil outside when cut short.
  mutating func stamp() -> FileStamp?? {
    guard let path = bytes() else { return nil }
    guard !path.isEmpty else { return .some(nil) }
    guard let device = u64(), let inode = u64(), let size = u64(), let modified = u64(), let changed = u64() else {
      return nil
    }
    return .some(
      FileStamp(
        path: String(decoding: path, as: UTF8.self), device: device, inode: inode, size: size, modified: modified,
        changed: changed))
  }
}

import Foundation

/// Distinct names in the order they were first added, held compactly: their UTF-8 bytes
/// end to end, where each starts, and an open-addressing index of 32-bit slots.
///
/// An array of `String` with a `Set` beside it costs about 60 bytes a name before the
/// name's own bytes; ten million names took more than a gigabyte that way. Here a name
/// costs its bytes, 4 bytes of start and 4 to 8 bytes of index, and is looked up by its
/// bytes without becoming a `String`.
public struct NameTable: Sendable {
  /// Every name's bytes, end to end.
  private var bytes: [UInt8] = []
  /// Where name `i` starts in `bytes`; name `i` ends where name `i + 1` starts.
  private var starts: [UInt32] = [0]
  /// Name numbers by hash, `-1` for an empty slot; the count is a power of two, at most
  /// three quarters full.
  private var slots: [Int32]

  /// How many names.
  public var count: Int { starts.count - 1 }
  public var isEmpty: Bool { count == 0 }

  /// A table sized for about `expectedCount` names (it grows past that as needed).
  public init(expectedCount: Int = 0) {
    var capacity = 16
    while capacity * 3 < expectedCount * 4 { capacity *= 2 }
    slots = [Int32](repeating: -1, count: capacity)
    starts.reserveCapacity(expectedCount + 1)
  }

  /// The table of `names`, repeats dropped.
  public init(_ names: some Sequence<String>) {
    self.init(expectedCount: names.underestimatedCount)
    for var name in names { name.withUTF8 { _ = insert($0) } }
  }

  /// Adds `name` unless it is there; returns its number and whether it was added.
  @discardableResult
  public mutating func insert(_ name: UnsafeBufferPointer<UInt8>) -> (index: Int, inserted: Bool) {
    let hash = Self.hash(name)
    var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
    while slots[slot] >= 0 {
      if equals(Int(slots[slot]), name) { return (Int(slots[slot]), false) }
      slot = (slot + 1) & (slots.count - 1)
    }
    let index = count
    // Offsets are 32-bit: orderfiles are read whole under FileReading's 64 MiB limit.
    precondition(bytes.count + name.count <= Int(UInt32.max) && index < Int(Int32.max), "name table full")
    bytes.append(contentsOf: name)
    starts.append(UInt32(bytes.count))
    slots[slot] = Int32(index)
    if count * 4 > slots.count * 3 { grow() }
    return (index, true)
  }

  /// The number of `name`, if the table has it.
  public func index(of name: UnsafeBufferPointer<UInt8>) -> Int? {
    var slot = Int(truncatingIfNeeded: Self.hash(name)) & (slots.count - 1)
    while slots[slot] >= 0 {
      if equals(Int(slots[slot]), name) { return Int(slots[slot]) }
      slot = (slot + 1) & (slots.count - 1)
    }
    return nil
  }

  /// The number of `name`, if the table has it.
  public func index(of name: String) -> Int? {
    var name = name
    return name.withUTF8 { index(of: $0) }
  }

  /// Name number `index` of the other table, looked up here.
  public func index(ofNameAt index: Int, in other: NameTable) -> Int? {
    other.withName(at: index) { self.index(of: $0) }
  }

  /// Name number `index`, as a `String`.
  public subscript(index: Int) -> String {
    withName(at: index) { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with the bytes of name number `index`.
  public func withName<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
    -> Result
  {
    let start = Int(starts[index])
    let end = Int(starts[index + 1])
    return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
  }

  /// Every name, in order, as `String`s.
  public var names: [String] { (0..<count).map { self[$0] } }

  private func equals(_ index: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
    let start = Int(starts[index])
    let end = Int(starts[index + 1])
    guard end - start == name.count else { return false }
    // A byte loop: names are short, and a call to memcmp per probe cost more than the
    // comparison (a fifth of a diff of 10 million names).
    return bytes.withUnsafeBufferPointer { all in
      var offset = 0
      while offset < name.count {
        if all[start + offset] != name[offset] { return false }
        offset += 1
      }
      return true
    }
  }

  private mutating func grow() {
    var grown = [Int32](repeating: -1, count: slots.count * 2)
    for index in 0..<count {
      var slot = withName(at: index) { Int(truncatingIfNeeded: Self.hash($0)) } & (grown.count - 1)
      while grown[slot] >= 0 { slot = (slot + 1) & (grown.count - 1) }
      grown[slot] = Int32(index)
    }
    slots = grown
  }

  /// FNV-1a, then a final mix so that names differing in their last bytes spread over the
  /// low bits the index uses. Fixed, so runs are reproducible.
  private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
    hash ^= hash >> 29
    hash = hash &* 0xbf58_476d_1ce4_e5b9
    return hash ^ (hash >> 32)
  }
}

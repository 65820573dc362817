/// A quick test that rules out most names that are not among a set of names, before a
/// table of them is asked.
///
/// A large binary's quarter of a million names are each looked up among a launch's few
/// thousand: hashing a whole mangled name (often over 100 bytes) for each was most of that
/// time. The sieve keeps one bit per fingerprint of a name (its length and a few of its
/// bytes): a name whose bit is clear is surely not in the set; one whose bit is set may be,
/// and the table says.
public struct NameSieve: Sendable {
  private var bits: [UInt64]
  private let mask: UInt64

  /// About 64 bits per name keeps false hits near 1 in 64; at most 8 MiB however many names.
  public init(_ names: some Collection<String>) {
    var size: UInt64 = 64
    while size < UInt64(names.count) * 64 && size < 1 << 26 { size <<= 1 }
    mask = size - 1
    bits = [UInt64](repeating: 0, count: Int(size / 64))
    for name in names {
      guard let slot = slot(name) else {
        // A name without contiguous bytes cannot be fingerprinted: let every name through.
        bits = [UInt64](repeating: .max, count: bits.count)
        return
      }
      bits[Int(slot / 64)] |= 1 << (slot % 64)
    }
  }

  /// False when `name` is surely not one of the names; true when it may be.
  public func mayContain(_ name: String) -> Bool {
    guard let slot = slot(name) else { return true }
    return bits[Int(slot / 64)] & (1 << (slot % 64)) != 0
  }

  /// The bit of `name`: its length, its last eight bytes and eight from its middle, mixed.
  private func slot(_ name: String) -> UInt64? {
    name.utf8.withContiguousStorageIfAvailable { bytes -> UInt64 in
      let raw = UnsafeRawBufferPointer(bytes)
      let count = raw.count
      var key = UInt64(count) &* 0x9E37_79B9_7F4A_7C15
      if count >= 8 {
        key ^= raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        key = Self.mix(key) ^ raw.loadUnaligned(fromByteOffset: (count - 8) / 2, as: UInt64.self)
      } else {
        for byte in raw { key = (key << 8) | UInt64(byte) }
      }
      return Self.mix(key) & mask
    }
  }

  /// The finalizer of SplitMix64: every input bit moves every output bit.
  private static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

import OrderfileSupport

/// The GNU build-id of an ELF file: the bytes of its `NT_GNU_BUILD_ID` note.
///
/// Two files with the same build-id come from the same link; the runtime
/// records it for every module so that the binary can be found again later.
public struct BuildID: Hashable, Sendable, CustomStringConvertible, Comparable {
  public var bytes: [UInt8]

  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// The note's descriptor as libdw and the tracer hand it over, a pointer and a length;
  /// nil when there is none (no pointer, or no bytes).
  public init?(_ start: UnsafeRawPointer?, count: Int) {
    guard let start, count > 0 else { return nil }
    bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  }

  /// Parses lowercase or uppercase hex digits, two per byte.
  ///
  /// Returns nil for an empty string, an odd number of digits or any other character.
  public init?(hex: String) {
    let digits = Array(hex.utf8)
    guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    self.bytes = bytes
  }

  /// Lowercase hex, two digits per byte, as `readelf -n` and `file` print it.
  public var description: String { TextFormatting.hex(bytes) }

  /// Orders by bytes, lexicographically (which is also the order of the hex strings).
  public static func < (lhs: BuildID, rhs: BuildID) -> Bool {
    lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
  }

  private static func nibble(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

extension BuildID {
  /// Where debug directories keep the file of this build-id: `root/.build-id/xx/rest`, the
  /// first byte naming the subdirectory (debug files add `.debug`). Nil for under two bytes.
  func pathInBuildIDTree(under root: String) -> String? {
    guard bytes.count >= 2 else { return nil }
    let hex = description
    let split = hex.index(hex.startIndex, offsetBy: 2)
    return "\(root)/.build-id/\(hex[..<split])/\(hex[split...])"
  }
}

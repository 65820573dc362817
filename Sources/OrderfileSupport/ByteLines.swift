#if canImport(Glibc)
  import Glibc
#endif

/// The lines of a byte buffer, each the range of its bytes without the `\n` that ends it;
/// a last line without one is a line too, and a buffer that ends in `\n` has no empty line
/// after it. The line loop of the readers that scan large text files as bytes (a link map,
/// an address list), where splitting into `String`s would cost more than the parse.
public struct ByteLines: Sequence, IteratorProtocol {
  @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
  @usableFromInline var start = 0

  @inlinable public init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  @inlinable public mutating func next() -> Range<Int>? {
    guard start < bytes.count, let base = bytes.baseAddress else { return nil }
    // memchr scans a long line word by word.
    var end = bytes.count
    if let found = memchr(base + start, 0x0A, bytes.count - start) {
      end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }
    defer { start = end + 1 }
    return start..<end
  }
}

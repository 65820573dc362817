/// One input line of `orderfile symbolize`.
public enum AddressLine: Equatable, Sendable {
  /// Only spaces, tabs or a carriage return: skipped.
  case blank
  /// A hexadecimal address.
  case address(UInt64)

  /// Parses a hexadecimal address with an optional `0x`/`0X` prefix and surrounding spaces,
  /// tabs or a carriage return; nil for anything else, including more than 16 digits.
  public init?(_ line: UnsafeBufferPointer<UInt8>) {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
    var low = 0
    var high = line.count
    while low < high && isSpace(line[low]) { low += 1 }
    while high > low && isSpace(line[high - 1]) { high -= 1 }
    if low == high {
      self = .blank
      return
    }
    if high - low > 2 && line[low] == UInt8(ascii: "0") && (line[low + 1] | 0x20) == UInt8(ascii: "x") {
      low += 2
    }
    guard let value = Self.hex(line, low..<high) else { return nil }
    self = .address(value)
  }

  /// The hexadecimal number of 1 to 16 digits in `bytes[range]`, without a prefix; nil for
  /// anything else.
  static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
    guard !range.isEmpty, range.count <= 16 else { return nil }
    var value: UInt64 = 0
    for index in range {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt64(digit)
    }
    return value
  }

  /// Parses `line` (without its newline).
  public init?(_ line: String) {
    guard let parsed = Array(line.utf8).withUnsafeBufferPointer({ AddressLine($0) }) else { return nil }
    self = parsed
  }
}

/// Names the function, and optionally the source line, at each address of a list: what
/// `orderfile symbolize` prints.
public struct AddressLookup {
  public var symbolizer: any Symbolizer
  /// Print C++ and Swift names demangled.
  public var demangle: Bool
  /// Also print each address's `file:line`.
  public var sourceLines: Bool

  public init(symbolizer: any Symbolizer, demangle: Bool = true, sourceLines: Bool = false) {
    self.symbolizer = symbolizer
    self.demangle = demangle
    self.sourceLines = sourceLines
  }

  /// The lines for the addresses in `input` so far, and the line that stopped it.
  public struct Result: Sendable {
    /// One line per address, in input order: `0x<address> TAB <function> [TAB <file>:<line>]`,
    /// with `??` for what is not known.
    public var text: String
    /// The first line that is neither blank nor an address; the text stops before it.
    public var badLine: SymbolizationError?
  }

  /// Looks up every address of `input`, one a line.
  public func lookUp(_ input: [UInt8]) -> Result {
    var output: [UInt8] = []
    output.reserveCapacity(input.count * 4)
    // Demangling is the slow part of a lookup; a function named once is named again for free.
    var names: [UInt64: String] = [:]
    var lineNumber = 0
    var badLine: SymbolizationError?
    input.withUnsafeBufferPointer { bytes in
      var start = 0
      while start < bytes.count {
        var end = start
        while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
        lineNumber += 1
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        start = end + 1
        guard let parsed = AddressLine(line) else {
          badLine = .notAnAddress(line: lineNumber, text: String(decoding: line, as: UTF8.self))
          return
        }
        guard case .address(let address) = parsed else { continue }
        output.append(contentsOf: ("0x" + String(address, radix: 16) + "\t").utf8)
        if let function = symbolizer.function(containing: address) {
          if !demangle {
            output.append(contentsOf: function.name.utf8)
          } else if let known = names[function.address] {
            output.append(contentsOf: known.utf8)
          } else {
            let name = Demangler.demangle(function.name)
            names[function.address] = name
            output.append(contentsOf: name.utf8)
          }
        } else {
          output.append(contentsOf: "??".utf8)
        }
        if sourceLines {
          output.append(UInt8(ascii: "\t"))
          output.append(contentsOf: (symbolizer.sourceLocation(for: address)?.description ?? "??").utf8)
        }
        output.append(UInt8(ascii: "\n"))
      }
    }
    return Result(text: String(decoding: output, as: UTF8.self), badLine: badLine)
  }
}

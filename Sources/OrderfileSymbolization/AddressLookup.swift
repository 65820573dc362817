import Foundation
import OrderfileSupport

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
    let (addresses, badLine) = Self.addresses(in: input)
    let arena = ByteArena()
    // Demangling is the slow part of a lookup; a function named once is named again for free.
    var names: [UInt64: UnsafeBufferPointer<UInt8>] = [:]
    let functions = addresses.map { address -> UnsafeBufferPointer<UInt8>? in
      guard let function = symbolizer.function(containing: address) else { return nil }
      if let known = names[function.address] { return known }
      let name = arena.store(demangle ? Demangler.demangle(function.name) : function.name)
      names[function.address] = name
      return name
    }
    let locations = sourceLines ? addresses.map { symbolizer.sourceLocation(for: $0).map(arena.store) } : nil
    return Self.lines(addresses, order: Array(addresses.indices), functions: functions, locations: locations)
      .result(badLine: badLine)
  }

  /// Looks up every address of `input`, one a line, in the binary at `path`: what
  /// `ELFSymbolizer` and `lookUp(_:)` would print, without opening more of the binary than
  /// the lookup needs (`MappedFunctionIndex`) when the binary allows.
  ///
  /// - Throws: `SymbolizationError` as `ELFSymbolizer.init(path:)` does.
  public static func lookUp(
    _ input: [UInt8], inBinary path: String, demangle: Bool = true, sourceLines: Bool = false
  ) throws -> Result {
    let file = try ELFFile(path: path)
    _ = try file.buildID()
    guard !FileManager.default.fileExists(atPath: ELFSymbolizer.defaultLinkMap(of: path)),
      let index = MappedFunctionIndex(file: file)
    else {
      return AddressLookup(symbolizer: try ELFSymbolizer(path: path), demangle: demangle, sourceLines: sourceLines)
        .lookUp(input)
    }
    let (addresses, badLine) = Self.addresses(in: input)
    // In address order, each part of the string table and each unit's line table is read
    // while it is at hand.
    let order = AddressRanges.sortedPositions(addresses)
    let arena = ByteArena()
    var functions = index.names(containing: addresses, order: order)
    if demangle {
      // Keyed by where the linkage name lies: one place per function.
      var names: [UnsafePointer<UInt8>?: UnsafeBufferPointer<UInt8>] = [:]
      for query in order {
        guard let linkage = functions[query] else { continue }
        if let known = names[linkage.baseAddress] {
          functions[query] = known
        } else {
          let name = arena.store(Demangler.demangle(String(decoding: linkage, as: UTF8.self)))
          names[linkage.baseAddress] = name
          functions[query] = name
        }
      }
    }
    var locations: [UnsafeBufferPointer<UInt8>?]?
    if sourceLines {
      // Without DWARF of its own, the binary's debug file is found as ELFSymbolizer finds it.
      let location = try LineTable(file: file)?.location(for:) ?? ELFSymbolizer(path: path).sourceLocation(for:)
      var found = [UnsafeBufferPointer<UInt8>?](repeating: nil, count: addresses.count)
      for query in order { found[query] = location(addresses[query]).map(arena.store) }
      locations = found
    }
    return lines(addresses, order: order, functions: functions, locations: locations).result(badLine: badLine)
  }

  /// The addresses of `input`, one a line, up to the first line that is neither blank nor
  /// an address.
  private static func addresses(in input: [UInt8]) -> (addresses: [UInt64], badLine: SymbolizationError?) {
    var addresses: [UInt64] = []
    var lineNumber = 0
    var badLine: SymbolizationError?
    input.withUnsafeBufferPointer { bytes in
      for range in ByteLines(bytes) {
        lineNumber += 1
        let line = UnsafeBufferPointer(rebasing: bytes[range])
        guard let parsed = AddressLine(line) else {
          badLine = .notAnAddress(line: lineNumber, text: String(decoding: line, as: UTF8.self))
          return
        }
        if case .address(let address) = parsed { addresses.append(address) }
      }
    }
    return (addresses, badLine)
  }

  /// One line per address, in input order: `0x<address> TAB <function> [TAB <file>:<line>]`,
  /// `??` for a nil. Each line is written into its place in `order`, so that the names,
  /// read from the string table in that order, are read in turn.
  private static func lines(
    _ addresses: [UInt64], order: [Int], functions: [UnsafeBufferPointer<UInt8>?],
    locations: [UnsafeBufferPointer<UInt8>?]?
  ) -> String {
    let unknown = 2  // ??
    func hexDigits(_ address: UInt64) -> Int { max(1, (UInt64.bitWidth - address.leadingZeroBitCount + 3) / 4) }
    var starts = [Int](repeating: 0, count: addresses.count + 1)
    for query in addresses.indices {
      var length = 2 + hexDigits(addresses[query]) + 1 + (functions[query]?.count ?? unknown) + 1
      if let locations { length += 1 + (locations[query]?.count ?? unknown) }
      starts[query + 1] = starts[query] + length
    }
    let digits = Array("0123456789abcdef".utf8)
    // Written straight into the string's storage: the text is several bytes per address.
    return String(unsafeUninitializedCapacity: starts[addresses.count]) { output in
      func put(_ bytes: UnsafeBufferPointer<UInt8>?, at offset: inout Int) {
        guard let bytes else {
          output[offset] = UInt8(ascii: "?")
          output[offset + 1] = UInt8(ascii: "?")
          offset += unknown
          return
        }
        _ = UnsafeMutableBufferPointer(rebasing: output[offset..<(offset + bytes.count)]).initialize(from: bytes)
        offset += bytes.count
      }
      for query in order {
        var offset = starts[query]
        let address = addresses[query]
        let width = hexDigits(address)
        output[offset] = UInt8(ascii: "0")
        output[offset + 1] = UInt8(ascii: "x")
        for digit in 0..<width {
          output[offset + 2 + digit] = digits[Int(address >> UInt64((width - 1 - digit) * 4) & 0xf)]
        }
        offset += 2 + width
        output[offset] = UInt8(ascii: "\t")
        offset += 1
        put(functions[query], at: &offset)
        if let locations {
          output[offset] = UInt8(ascii: "\t")
          offset += 1
          put(locations[query], at: &offset)
        }
        output[offset] = UInt8(ascii: "\n")
      }
      return starts[addresses.count]
    }
  }
}

extension String {
  fileprivate func result(badLine: SymbolizationError?) -> AddressLookup.Result {
    AddressLookup.Result(text: self, badLine: badLine)
  }
}

/// Text kept as UTF-8 bytes at addresses that do not move, for as long as the arena lives.
private final class ByteArena {
  private var chunks: [UnsafeMutableBufferPointer<UInt8>] = []
  private var used = 0
  private static let chunkSize = 1 << 20

  /// A copy of the UTF-8 of `text`.
  func store(_ text: some StringProtocol) -> UnsafeBufferPointer<UInt8> {
    let count = text.utf8.count
    if chunks.isEmpty || used + count > chunks[chunks.count - 1].count {
      chunks.append(.allocate(capacity: Swift.max(Self.chunkSize, count)))
      used = 0
    }
    let place = UnsafeMutableBufferPointer(rebasing: chunks[chunks.count - 1][used..<(used + count)])
    _ = place.initialize(from: text.utf8)
    used += count
    return UnsafeBufferPointer(place)
  }

  /// The `file:line` of `location`.
  func store(_ location: SourceLocation) -> UnsafeBufferPointer<UInt8> { store(location.description) }

  deinit {
    for chunk in chunks { chunk.deallocate() }
  }
}

import OrderfileSupport

/// The input section a piece of a linked binary came from: the object file, as a linker
/// script names it, and the section's name in that object.
public struct InputSection: Hashable, Sendable, Codable {
  /// The object file as the shortest trailing part of its path that no other object of the
  /// link shares (`App.build/main.swift.o`); an archive member is `libfoo.a:bar.o`, the
  /// form lld's linker scripts match.
  public var object: String
  /// The section's name in the object (`.text..L__unnamed_3`, `.text.$s3App4mainyyF`).
  public var section: String

  public init(object: String, section: String) {
    self.object = object
    self.section = section
  }

  /// `object(section)`: the name a function without a symbol goes by, and, after a `*`,
  /// the input section description of an lld linker script.
  public var description: String { "\(object)(\(section))" }

  /// Parses `description`; nil for anything else.
  public init?(description: String) {
    // The object is empty in a pattern for any object: `(.text.main)`.
    guard description.hasSuffix(")"), let open = description.firstIndex(of: "(") else { return nil }
    object = String(description[..<open])
    section = String(description[description.index(after: open)..<description.index(before: description.endIndex)])
    guard !section.isEmpty else { return nil }
  }
}

/// The output sections of read-only data the launch's data is placed in: each names the
/// output section an lld script fills with the launch's input sections first.
public enum DataSection: Sendable, Equatable, Hashable {
  /// `.rodata`: constants, literals, jump tables.
  case readOnly
  /// `.data.rel.ro`: data the loader relocates, then protects (RELRO).
  case relocatedReadOnly
  /// A Swift metadata section (`swift5_typeref`, `swift5_fieldmd`, …), by its name.
  case swiftMetadata(String)

  /// The kind of an output section by its name; nil for any other section.
  public init?<S: StringProtocol>(outputSection name: S) {
    if name == ".rodata" {
      self = .readOnly
    } else if name == ".data.rel.ro" {
      self = .relocatedReadOnly
    } else if name.hasPrefix("swift5_"), !Self.scannedInOrder.contains(String(name)) {
      self = .swiftMetadata(String(name))
    } else {
      return nil
    }
  }

  /// Swift metadata lists the runtime scans whole, record after record, reading what each
  /// record points to in `.rodata` (a conformance's descriptor, a type's): left in link
  /// order those reads run forward through `.rodata`, which read-ahead serves; with the
  /// launch's records first they jump about it. On a Vapor server, placing
  /// `swift5_protocol_conformances` raised cold majors in `.rodata` from 8 to 25 (67 → 73
  /// in all), and leaving it in link order gave 57.
  static let scannedInOrder: Set<String> = ["swift5_protocol_conformances", "swift5_protocols", "swift5_types"]

  /// The output section's name.
  public var name: String {
    switch self {
    case .readOnly: ".rodata"
    case .relocatedReadOnly: ".data.rel.ro"
    case .swiftMetadata(let name): name
    }
  }
}

/// An lld link map (`-Wl,-Map=FILE`): for every address of the binary's code, the object
/// file and the input section it came from.
///
/// The map names what the binary alone cannot: code without a symbol, such as Swift's
/// private functions in sections named after assembler-local labels, keeps the name of its
/// section (`App.build/main.swift.o(.text..Lobjectdestroy.7)`) across links and rebuilds.
/// Only lld's format is read (`VMA LMA Size Align Out In Symbol`).
///
/// The map is read as bytes, one pass over its lines: a large program's map runs to tens of
/// megabytes, and splitting it into Swift strings cost seconds.
public struct LinkMap: Sendable {
  /// An input section placed at `address`.
  public struct Placement: Sendable, Equatable {
    public var address: UInt64
    public var size: UInt64
    public var input: InputSection
    /// The output section that holds it (`.text`, `.rodata`, …).
    public var outputSection = ""
    /// Its alignment in the map (`Align`), 1 when none is given.
    public var alignment: UInt64 = 1
  }

  public let path: String
  /// Input sections of executable output sections, sorted by address.
  public let placements: [Placement]
  /// Input sections of the read-only data output sections (`DataSection`), sorted by
  /// address; the linker's own merged ones (`<internal>`, literals and constants) included.
  public let dataPlacements: [Placement]
  /// Where the map places each symbol of its code (local names can repeat), sorted by
  /// address, for checking that it describes a given binary.
  private let symbols: [(address: UInt64, name: String)]

  /// The most bytes a map may have: lld writes one line per symbol, and the largest
  /// programs' maps reach hundreds of megabytes.
  public static let byteLimit = 1 << 30

  /// Reads the map at `path`.
  ///
  /// - Throws: `SymbolizationError.notALinkMap` when the file is not an lld map, or
  ///   `SupportError` when it cannot be read.
  public static func read(path: String) throws -> LinkMap {
    try LinkMap(path: path, bytes: FileReading.bytes(atPath: path, limit: byteLimit))
  }

  public init(path: String, text: String) throws {
    try self.init(path: path, bytes: Array(text.utf8))
  }

  /// An input section's line, its names still bytes of the map.
  private typealias Raw = (
    address: UInt64, size: UInt64, alignment: UInt64, file: Range<Int>, section: Range<Int>, output: String
  )

  public init(path: String, bytes: [UInt8]) throws {
    self.path = path
    var raw: [Raw] = []
    var rawData: [Raw] = []
    var symbols: [(address: UInt64, name: String)] = []
    var header = true
    var inText = false
    var inData = false
    var output = ""
    var badText: Int?
    bytes.withUnsafeBufferPointer { buffer in
      for line in ByteLines(buffer) where !line.isEmpty {
        let (lineStart, lineEnd) = (line.lowerBound, line.upperBound)
        if header {
          header = false
          guard Self.isHeader(buffer[lineStart..<lineEnd]) else {
            badText = lineStart
            return
          }
          continue
        }
        // Four numbers, then the rest after one space (an output section), nine (an input
        // section) or seventeen (a symbol).
        var cursor = lineStart
        var numbers: (UInt64?, UInt64?, UInt64?) = (nil, nil, nil)
        for field in 0..<4 {
          while cursor < lineEnd && buffer[cursor] == UInt8(ascii: " ") { cursor += 1 }
          let start = cursor
          while cursor < lineEnd && buffer[cursor] != UInt8(ascii: " ") { cursor += 1 }
          if field == 0 { numbers.0 = AddressLine.hex(buffer, start..<cursor) }
          if field == 2 { numbers.1 = AddressLine.hex(buffer, start..<cursor) }
          if field == 3 { numbers.2 = Self.decimal(buffer, start..<cursor) }
        }
        guard let address = numbers.0, let size = numbers.1 else { continue }
        let alignment = max(numbers.2 ?? 1, 1)
        var text = cursor
        while text < lineEnd && buffer[text] == UInt8(ascii: " ") { text += 1 }
        let indent = text - cursor
        if indent < 9 {
          // Code lives in the output sections named .text…; .init, .fini and .plt stay put.
          inText = buffer[text..<lineEnd].starts(with: ".text".utf8)
          // Output section lines are few: their names are made into strings.
          output = String(decoding: buffer[text..<lineEnd], as: UTF8.self)
          inData = DataSection(outputSection: output) != nil
        } else if indent < 17 {
          // `file:(section)`; the file may hold `:(` itself, the section does not end in `)`.
          guard inText || inData, size > 0, lineEnd - text >= 3, buffer[lineEnd - 1] == UInt8(ascii: ")") else {
            continue
          }
          var split = lineEnd - 2
          while split > text && !(buffer[split] == UInt8(ascii: ":") && buffer[split + 1] == UInt8(ascii: "(")) {
            split -= 1
          }
          guard split > text || (buffer[split] == UInt8(ascii: ":") && buffer[split + 1] == UInt8(ascii: "(")) else {
            continue
          }
          let entry: Raw = (address, size, alignment, text..<split, split + 2..<lineEnd - 1, output)
          if inText { raw.append(entry) } else { rawData.append(entry) }
        } else if inText, !buffer[text..<lineEnd].contains(UInt8(ascii: " ")) {
          symbols.append((address, String(decoding: buffer[text..<lineEnd], as: UTF8.self)))
        }
      }
    }
    if header || badText != nil {
      throw SymbolizationError.notALinkMap(
        path: path, reason: "its first line is not lld's 'VMA LMA Size Align Out In Symbol'")
    }
    let files = (text: Self.fileNames(of: raw, in: bytes), data: Self.fileNames(of: rawData, in: bytes))
    let objects = Self.shortNames(Set(files.text + files.data))
    func placed(_ entries: [Raw], _ files: [String]) -> [Placement] {
      zip(entries, files).map { entry, file in
        Placement(
          address: entry.address, size: entry.size,
          input: InputSection(
            object: objects[file] ?? file, section: String(decoding: bytes[entry.section], as: UTF8.self)),
          outputSection: entry.output, alignment: entry.alignment)
      }.sorted { $0.address < $1.address }
    }
    placements = placed(raw, files.text)
    dataPlacements = placed(rawData, files.data)
    self.symbols = symbols.sorted { $0.address < $1.address }
  }

  /// The script names of the files of `entries`, one each. Consecutive input sections mostly
  /// come from one object: its name is made once.
  private static func fileNames(of entries: [Raw], in bytes: [UInt8]) -> [String] {
    var files: [String] = []
    files.reserveCapacity(entries.count)
    var last: (range: Range<Int>, name: String)?
    for entry in entries {
      if let last, bytes[last.range].elementsEqual(bytes[entry.file]) {
        files.append(last.name)
        continue
      }
      let name = Self.scriptName(ofFile: String(decoding: bytes[entry.file], as: UTF8.self)[...])
      last = (entry.file, name)
      files.append(name)
    }
    return files
  }

  /// Whether `line` is lld's header: `VMA LMA Size Align Out In Symbol`, however spaced.
  private static func isHeader(_ line: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
    line.split(separator: UInt8(ascii: " ")).elementsEqual(
      ["VMA", "LMA", "Size", "Align", "Out", "In", "Symbol"].lazy.map { Array($0.utf8) }[...]
    ) { $0.elementsEqual($1) }
  }

  /// The decimal number in `bytes[range]`; nil for anything else.
  private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
    guard !range.isEmpty, range.count <= 19 else { return nil }
    var value: UInt64 = 0
    for index in range {
      let byte = bytes[index]
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
      value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
    }
    return value
  }

  /// The addresses the map gives the symbol `name`, in address order.
  public func addresses(ofSymbol name: String) -> [UInt64] {
    symbols.filter { $0.name == name }.map(\.address)
  }

  /// The data input section that holds `address`, if the map places one there.
  public func dataPlacement(containing address: UInt64) -> Placement? {
    Self.placement(in: dataPlacements, containing: address)
  }

  /// The input section that holds `address`, if the map places one there.
  public func inputSection(containing address: UInt64) -> InputSection? {
    placement(containing: address)?.input
  }

  /// The placement of the input section that holds `address`.
  public func placement(containing address: UInt64) -> Placement? {
    Self.placement(in: placements, containing: address)
  }

  private static func placement(in placements: [Placement], containing address: UInt64) -> Placement? {
    let low = placements.partitioningIndex { $0.address > address }
    guard low > 0 else { return nil }
    let placement = placements[low - 1]
    return address - placement.address < placement.size ? placement : nil
  }

  /// The first symbol whose address in the map differs from its address in `functions`;
  /// nil when every symbol both name agrees (the map describes that binary).
  public func firstDisagreement(with functions: [FunctionSymbol]) -> (name: String, map: UInt64, binary: UInt64)? {
    // Nearly every symbol sits where the binary has it: walk both in address order, and look
    // names up only for the few that do not (labels the binary has no function for).
    // Positions, not copies: a function is a large value, and a binary has 250,000 of them.
    var named = functions.indices.filter { functions[$0].hasSymbol }
    if !zip(named, named.dropFirst()).allSatisfy({ functions[$0].address <= functions[$1].address }) {
      named.sort { functions[$0].address < functions[$1].address }
    }
    var unexplained = Set<String>()
    var index = 0
    for symbol in symbols {
      while index < named.count && functions[named[index]].address < symbol.address { index += 1 }
      if index < named.count, functions[named[index]].address == symbol.address,
        functions[named[index]].name == symbol.name || functions[named[index]].aliases.contains(symbol.name)
      {
        continue
      }
      unexplained.insert(symbol.name)
    }
    guard !unexplained.isEmpty else { return nil }
    var mapped: [String: [UInt64]] = [:]
    for symbol in symbols where unexplained.contains(symbol.name) {
      mapped[symbol.name, default: []].append(symbol.address)
    }
    for function in named.lazy.map({ functions[$0] }) {
      for name in CollectionOfOne(function.name) + function.aliases {
        if let addresses = mapped[name], let first = addresses.first, !addresses.contains(function.address) {
          return (name, first, function.address)
        }
      }
    }
    return nil
  }

  /// `lib/libfoo.a(bar.o)` as a linker script matches an archive member: `lib/libfoo.a:bar.o`.
  static func scriptName(ofFile file: Substring) -> String {
    guard file.hasSuffix(")"), let open = file.lastIndex(of: "(") else { return String(file) }
    return "\(file[..<open]):\(file[file.index(after: open)..<file.index(before: file.endIndex)])"
  }

  /// Each path's shortest trailing run of components that no other path ends with.
  static func shortNames(_ paths: Set<String>) -> [String: String] {
    var names: [String: String] = [:]
    var pending = Array(paths)
    var components = 1
    while !pending.isEmpty {
      var counts: [String: Int] = [:]
      let suffixes = pending.map { Self.suffix(of: $0, components: components) }
      // A suffix is unique when no path of the whole set, named or not yet, ends with it.
      for path in paths { counts[Self.suffix(of: path, components: components), default: 0] += 1 }
      var next: [String] = []
      for (path, suffix) in zip(pending, suffixes) {
        if counts[suffix] == 1 || suffix == path { names[path] = suffix } else { next.append(path) }
      }
      pending = next
      components += 1
    }
    return names
  }

  private static func suffix(of path: String, components: Int) -> String {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    return parts.suffix(components).joined(separator: "/")
  }
}

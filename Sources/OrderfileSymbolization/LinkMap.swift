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
    } else if name.hasPrefix("swift5_") {
      self = .swiftMetadata(String(name))
    } else {
      return nil
    }
  }

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
  /// Where the map places each symbol of its code, by name (local names can repeat), for
  /// checking that it describes a given binary.
  public let symbols: [String: [UInt64]]

  /// Reads the map at `path`.
  ///
  /// - Throws: `SymbolizationError.notALinkMap` when the file is not an lld map, or
  ///   `SupportError` when it cannot be read.
  public static func read(path: String) throws -> LinkMap {
    try LinkMap(path: path, text: FileReading.text(atPath: path))
  }

  public init(path: String, text: String) throws {
    self.path = path
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
    guard let header = lines.popFirst(),
      header.split(separator: " ").elementsEqual(
        ["VMA", "LMA", "Size", "Align", "Out", "In", "Symbol"].lazy.map { Substring($0) })
    else {
      throw SymbolizationError.notALinkMap(
        path: path, reason: "its first line is not lld's 'VMA LMA Size Align Out In Symbol'")
    }
    typealias Raw = (
      address: UInt64, size: UInt64, alignment: UInt64, file: Substring, section: Substring, output: Substring
    )
    var raw: [Raw] = []
    var rawData: [Raw] = []
    var output: Substring = ""
    var symbols: [String: [UInt64]] = [:]
    var inText = false
    var inData = false
    for line in lines {
      // Four numbers, then the rest after one space (an output section), nine (an input
      // section) or seventeen (a symbol).
      var rest = line[...]
      var numbers: [Substring] = []
      for _ in 0..<4 {
        rest = rest.drop(while: { $0 == " " })
        let field = rest.prefix(while: { $0 != " " })
        numbers.append(field)
        rest = rest.dropFirst(field.count)
      }
      guard let address = UInt64(numbers[0], radix: 16), let size = UInt64(numbers[2], radix: 16) else { continue }
      let alignment = max(UInt64(numbers[3]) ?? 1, 1)
      let indent = rest.prefix(while: { $0 == " " }).count
      let text = rest.dropFirst(indent)
      if indent < 9 {
        // Code lives in the output sections named .text…; .init, .fini and .plt stay put.
        inText = text.hasPrefix(".text")
        inData = DataSection(outputSection: text) != nil
        output = text
      } else if indent < 17 {
        guard inText || inData, size > 0, let split = text.range(of: ":(", options: .backwards),
          text.hasSuffix(")")
        else {
          continue
        }
        let section = text[split.upperBound..<text.index(before: text.endIndex)]
        if inText {
          raw.append((address, size, alignment, text[..<split.lowerBound], section, output))
        } else {
          rawData.append((address, size, alignment, text[..<split.lowerBound], section, output))
        }
      } else if inText, !text.contains(" ") {
        symbols[String(text), default: []].append(address)
      }
    }
    let objects = Self.shortNames(Set((raw + rawData).map { Self.scriptName(ofFile: $0.file) }))
    func placed(_ entries: [Raw]) -> [Placement] {
      entries.map { entry in
        let file = Self.scriptName(ofFile: entry.file)
        return Placement(
          address: entry.address, size: entry.size,
          input: InputSection(object: objects[file] ?? file, section: String(entry.section)),
          outputSection: String(entry.output), alignment: entry.alignment)
      }.sorted { $0.address < $1.address }
    }
    placements = placed(raw)
    dataPlacements = placed(rawData)
    self.symbols = symbols
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
    for function in functions where function.hasSymbol {
      for name in function.allNames {
        if let mapped = symbols[name], let first = mapped.first, !mapped.contains(function.address) {
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

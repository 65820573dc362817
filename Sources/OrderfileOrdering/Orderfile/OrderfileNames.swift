import Foundation
import OrderfileSupport

/// An orderfile's function names, in order and once each, read as a stream into a
/// `NameTable`: what `diff` and `verify` need of a file of millions of lines.
///
/// The names are the ones `Orderfile` gives for the same file. The file is read in chunks
/// and never held whole, nor as one `String` per line. Files this fast path does not cover
/// (an lld script, a line with other than ASCII, a file over FileReading's limits) are read
/// through `Orderfile`, which also gives their errors.
public struct OrderfileNames: Sendable {
  public var path: String
  /// The format the lines look like (see `OrderfileFormat.detect(lines:)`).
  public var format: OrderfileFormat
  /// The function names, once each, in order.
  public var names: NameTable
  /// How many lines name functions (blanks, comments and an lld script's data left out),
  /// repeats included.
  public var entryLines: Int
  /// An lld script's function lines as written (`verify` matches them to input sections);
  /// empty for the other formats.
  public var scriptLines: [String]

  /// The names of an orderfile read whole.
  public init(_ orderfile: Orderfile) {
    path = orderfile.path
    format = orderfile.format
    names = NameTable(orderfile.names)
    entryLines = orderfile.functionLines.count
    scriptLines = orderfile.format == .lldScript ? orderfile.functionLines : []
  }

  /// Reads the orderfile at `path`.
  public static func read(path: String) throws -> OrderfileNames {
    try stream(path: path) ?? OrderfileNames(try Orderfile.read(path: path))
  }

  /// The names of a file of ASCII lines in the lld or gold format, read in chunks; nil when
  /// the file needs `Orderfile`'s reading.
  static func stream(path: String) throws -> OrderfileNames? {
    let (descriptor, size) = try FileReading.openRegularFile(atPath: path)
    defer { close(descriptor) }
    guard size <= FileReading.defaultByteLimit else { return nil }
    var reader = LineReader(expectedNames: size / 8)
    var total = 0
    let complete = try FileReading.readChunks(of: descriptor, path: path) { chunk in
      total += chunk.count
      return total <= FileReading.defaultByteLimit && reader.feed(chunk)
    }
    guard complete else { return nil }
    guard reader.finish(), reader.lineBreaks + (reader.endsWithBreak ? 0 : 1) <= FileReading.defaultLineLimit
    else { return nil }
    var names = reader.table
    let format: OrderfileFormat = reader.entries > 0 && reader.allSections ? .gold : .lld
    if format == .gold {
      // The lines were taken as lld names; each is a section name whose function is the
      // name. Distinct lines in first-seen order give the names in first-seen order.
      var sections = NameTable(expectedCount: names.count)
      for index in 0..<names.count {
        var name = format.functionName(inLine: names[index])
        name.withUTF8 { _ = sections.insert($0) }
      }
      names = sections
    }
    return OrderfileNames(
      path: path, format: format, names: names, entryLines: reader.entries, scriptLines: [])
  }

  private init(path: String, format: OrderfileFormat, names: NameTable, entryLines: Int, scriptLines: [String]) {
    self.path = path
    self.format = format
    self.names = names
    self.entryLines = entryLines
    self.scriptLines = scriptLines
  }

  /// Splits bytes into entry lines as `Orderfile.entries(of:)` does for ASCII text, and
  /// gives up (false) on anything else.
  private struct LineReader {
    var table: NameTable
    /// A line cut by the end of a chunk.
    var partial: [UInt8] = []
    var entries = 0
    var lineBreaks = 0
    var endsWithBreak = true
    /// Every entry so far is a section name (`.text.<name>`): the gold format.
    var allSections = true

    init(expectedNames: Int) {
      table = NameTable(expectedCount: expectedNames)
    }

    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
      var start = 0
      for index in 0..<bytes.count {
        let byte = bytes[index]
        // Other line breaks (vertical tab, form feed, Unicode ones) and other characters
        // take the Unicode way, through Orderfile.
        if byte >= 0x80 || byte == 0x0B || byte == 0x0C { return false }
        guard byte == 0x0A || byte == 0x0D else { continue }
        if byte == 0x0A { lineBreaks += 1 }
        let piece = UnsafeBufferPointer(rebasing: bytes[start..<index])
        let ok: Bool
        if partial.isEmpty {
          ok = line(piece)
        } else {
          partial.append(contentsOf: piece)
          ok = partial.withUnsafeBufferPointer { line($0) }
          partial.removeAll(keepingCapacity: true)
        }
        guard ok else { return false }
        start = index + 1
      }
      partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
      if bytes.count > 0 { endsWithBreak = bytes[bytes.count - 1] == 0x0A }
      return true
    }

    mutating func finish() -> Bool {
      guard !partial.isEmpty else { return true }
      defer { partial.removeAll() }
      return partial.withUnsafeBufferPointer { line($0) }
    }

    /// One line, without its break.
    private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
      var first = 0
      var last = bytes.count
      while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
      while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
      guard first < last, bytes[first] != UInt8(ascii: "#") else { return true }
      let entry = UnsafeBufferPointer(rebasing: bytes[first..<last])
      // An lld script starts with SECTIONS; its lines are read through Orderfile.
      if entries == 0 && entry.starts(with: "SECTIONS".utf8) { return false }
      if allSections {
        allSections =
          entry.first == UInt8(ascii: ".")
          && TextSection(sectionName: String(decoding: entry, as: UTF8.self)) != nil
      }
      entries += 1
      table.insert(entry)
      return true
    }
  }
}

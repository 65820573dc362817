import Foundation
import OrderfileSupport

/// An orderfile read back from disk: its entries as function names, and the format it looks like.
public struct Orderfile: Sendable, Equatable {
  public var path: String
  /// The lines as written, without blanks and comments.
  public var lines: [String]
  /// The format the lines look like (see `OrderfileFormat.detect(lines:)`).
  public var format: OrderfileFormat
  /// The lines that name functions: all of `lines`, except in an lld script, whose lines in
  /// the output sections of the launch's data name data.
  public var functionLines: [String]
  /// The function names in order, once each (gold files name each function's possible
  /// sections on consecutive lines).
  public var names: [String]

  public init(path: String, text: String) {
    self.path = path
    lines = Self.entries(of: text)
    format = OrderfileFormat.detect(lines: lines)
    functionLines = lines
    if format == .lldScript {
      functionLines = OrderfileFormat.functionLines(ofScript: lines)
      lines = lines.filter(format.isEntry(line:))
    }
    var seen = Set<String>(minimumCapacity: functionLines.count)
    var names: [String] = []
    names.reserveCapacity(functionLines.count)
    for line in functionLines {
      let name = format.functionName(inLine: line)
      if seen.insert(name).inserted { names.append(name) }
    }
    self.names = names
  }

  /// The lines of `text` that are entries: split at line ends, trimmed of spaces and tabs,
  /// without blanks and `#` comments. Lines of plain ASCII (every real orderfile) are cut
  /// from the bytes, one String each, which keeps a 10-million-line file linear in time
  /// and memory; a line with other characters goes the Unicode way (its own line breaks,
  /// every Unicode space), with the same result as for the whole text.
  static func entries(of text: String) -> [String] {
    var text = text
    return text.withUTF8 { bytes -> [String] in
      var lines: [String] = []
      var start = 0
      while start < bytes.count {
        var end = start
        var ascii = true
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D {
          // Other line breaks (vertical tab, form feed, Unicode ones) take the Unicode way.
          if bytes[end] >= 0x80 || bytes[end] == 0x0B || bytes[end] == 0x0C { ascii = false }
          end += 1
        }
        if ascii {
          var first = start
          var last = end
          while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
          while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
          if first < last, bytes[first] != UInt8(ascii: "#") {
            lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self))
          }
        } else {
          lines += unicodeEntries(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
        start = end + 1
      }
      return lines
    }
  }

  private static func unicodeEntries(_ text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
  }

  /// Reads the orderfile at `path`.
  public static func read(path: String) throws -> Orderfile {
    Orderfile(path: path, text: try FileReading.text(atPath: path))
  }
}

import OrderfileOrdering

/// An orderfile read back from disk: its entries as function names, and the format it looks like.
public struct OrderfileText: Sendable, Equatable {
  public var path: String
  /// The lines as written, without blanks.
  public var lines: [String]
  /// The format the lines look like: gold when every line is a `.text` section name,
  /// otherwise lld (ld64 files look like lld files; the verifier tells them apart by
  /// matching names against the binary).
  public var format: OrderfileFormat
  /// The function names in order, once each: a line itself, or the name inside a section
  /// name (gold files name each function's possible sections on consecutive lines).
  public var names: [String]

  /// Section prefixes gcc and clang put before a function's name under -ffunction-sections.
  static let sectionPrefixes = [".text.startup.", ".text.hot.", ".text.unlikely.", ".text.exit.", ".text."]

  public init(path: String, text: String) {
    self.path = path
    lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    let isGold = !lines.isEmpty && lines.allSatisfy { $0.hasPrefix(".text.") }
    format = isGold ? .gold : .lld
    var seen = Set<String>()
    names = lines.map { line in
      guard isGold else { return line }
      for prefix in Self.sectionPrefixes where line.hasPrefix(prefix) {
        return String(line.dropFirst(prefix.count))
      }
      return line
    }.filter { seen.insert($0).inserted }
  }
}

import Foundation

import Foundation

/// Plain-text tables, HTML escaping and Markdown code spans, shared by every renderer.
public enum TextFormatting {
  /// Rows as aligned columns: the first column left-aligned, the others right-aligned,
  /// two spaces apart, each line prefixed with `indent`.
  public static func table(_ rows: [[String]], indent: String = "") -> [String] {
    guard let columns = rows.map(\.count).max() else { return [] }
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
      indent
        + row.enumerated().map { column, cell in
          let pad = String(repeating: " ", count: widths[column] - cell.count)
          return column == 0 ? cell + pad : pad + cell
        }.joined(separator: "  ")
    }
  }

  /// A number without a needless fraction: "2", "2.5".
  public static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }

  /// The first `limit` items joined by ", ", and how many more there are when the list is
  /// cut: "a, b, c and 7 more".
  public static func list(_ items: [String], limit: Int = 5) -> String {
    let shown = items.prefix(limit).joined(separator: ", ")
    return items.count > limit ? "\(shown) and \(items.count - limit) more" : shown
  }

  /// A count and a noun that agrees with it: "1 module", "2 modules".
  public static func count(_ value: Int, _ singular: String, plural: String? = nil) -> String {
    "\(value) " + (value == 1 ? singular : plural ?? singular + "s")
  }

  /// A share of 0...1 as a percentage with one decimal: "95.0%".
  public static func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }

  /// Lowercase hex, two digits per byte, as `readelf -n` and `file` print a build-id.
  public static func hex(_ bytes: some Sequence<UInt8>) -> String {
    let alphabet = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
      text.append(alphabet[Int(byte >> 4)])
      text.append(alphabet[Int(byte & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The style rules the self-contained HTML reports share: their fonts, tables, and SVG
  /// pictures that scale down to the window instead of running off its edge.
  public static let htmlReportStyle = """
    body { font-family: Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
    table { border-collapse: collapse; margin: 12px 0 20px; }
    th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
    th:first-child, td:first-child { text-align: left; }
    th { background: #f3f3f3; }
    svg { max-width: 100%; height: auto; }
    .caution { background: #fff4d6; border-left: 4px solid #e0a000; padding: 8px 12px; max-width: 60em; }
    """

  /// `text` safe inside HTML and SVG text and attribute values.
  public static func html(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "|": escaped += "&#124;"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// `text` as inline code that cannot break a Markdown table cell.
  ///
  /// Usually a code span. A name with `|` or a backtick becomes `<code>` with the pipe as
  /// `&#124;`: renderers split table cells at every unescaped `|`, even inside code spans,
  /// and the escape `\|` that GitHub and GitLab accept there shows its backslash in other
  /// renderers; an entity is no pipe to any of them.
  public static func markdownCode(_ text: String) -> String {
    guard text.contains(where: { $0 == "|" || $0 == "`" }) else { return "`" + text + "`" }
    return "<code>" + html(text) + "</code>"
  }

  /// `text` as plain Markdown table-cell text: pipes become entities.
  public static func markdownCell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "&#124;")
  }

  /// Levenshtein distance, for "did you mean" and the nearest names.
  public static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in 1...max(b.count, 1) where !b.isEmpty {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}

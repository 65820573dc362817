import OrderfileSupport

/// A diff report's changes as CSV (RFC 4180): one row per changed entry, none folded, in
/// the report's order (largest change first).
///
/// Columns: `kind` (new, deleted, moved), `function`, `base_rank`, `head_rank`, `move`
/// (head − base, moved entries only) and `magnitude` (the entries the change shifts).
/// Empty cells stand for "not in that file".
public struct DiffCSVRenderer: Renderer {
  public static let header = ["kind", "function", "base_rank", "head_rank", "move", "magnitude"]

  public init() {}

  public func render(_ report: DiffReport) -> String {
    var lines = [Self.header.joined(separator: ",")]
    for change in report.changes {
      let fields = [
        change.kind.rawValue, change.name, change.baseRank.map(String.init) ?? "",
        change.headRank.map(String.init) ?? "", change.move.map(String.init) ?? "", String(change.magnitude),
      ]
      lines.append(fields.map(Self.quote).joined(separator: ","))
    }
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  /// Quotes a field that holds a comma, a quote or a line break, doubling its quotes.
  static func quote(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
    return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}

import Foundation

/// A diff report as JSON: every change, exact numbers, keys sorted.
public enum DiffJSONRenderer {
  public static func render(_ report: DiffReport) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
  }
}

import Foundation

/// Turns a report value into the text of one format.
///
/// Each report has one renderer per format, one file each. What a renderer can be told
/// (a row limit, whether to list every function) are its properties, set when it is made,
/// so every renderer is called the same way.
public protocol Renderer<Report> {
  associatedtype Report
  /// The whole document, ending in a newline.
  func render(_ report: Report) throws -> String
}

/// Any report as JSON, in the tool's one JSON style: indented, keys sorted, slashes not
/// escaped. Field names are the report's coding keys, part of the tool's interface
/// (Docs/Reference.md).
public struct JSONRenderer<Report: Encodable>: Renderer {
  public init() {}

  public func render(_ report: Report) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
  }
}

/// The formats a command can print its report in; each command offers those its report
/// has renderers for.
public enum ReportFormat: String, CaseIterable, Sendable {
  /// Aligned text for a terminal.
  case text
  /// GitHub- and GitLab-flavoured Markdown, for a merge request.
  case markdown
  /// JSON, for scripts.
  case json
  /// RFC 4180 CSV, one row per item.
  case csv

  /// The renderer of this format among a report's: JSON for any report, the given
  /// renderer for the others, and `text` (the report's default) for a format it has none of.
  public func renderer<Report: Encodable>(
    text: any Renderer<Report>, markdown: (any Renderer<Report>)? = nil, csv: (any Renderer<Report>)? = nil
  ) -> any Renderer<Report> {
    switch self {
    case .json: return JSONRenderer()
    case .markdown: return markdown ?? text
    case .csv: return csv ?? text
    case .text: return text
    }
  }
}

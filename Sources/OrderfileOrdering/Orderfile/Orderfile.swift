import Foundation
import OrderfileSupport

/// An orderfile read back from disk: its entries as function names, and the format it looks like.
public struct Orderfile: Sendable, Equatable {
  public var path: String
  /// The lines as written, without blanks and comments.
  public var lines: [String]
  /// The format the lines look like (see `OrderfileFormat.detect(lines:)`).
  public var format: OrderfileFormat
  /// The function names in order, once each (gold files name each function's possible
  /// sections on consecutive lines).
  public var names: [String]

  public init(path: String, text: String) {
    self.path = path
    lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    format = OrderfileFormat.detect(lines: lines)
    lines = lines.filter(format.isEntry(line:))
    var seen = Set<String>()
    names = lines.map(format.functionName(inLine:)).filter { seen.insert($0).inserted }
  }

  /// Reads the orderfile at `path`.
  public static func read(path: String) throws -> Orderfile {
    Orderfile(path: path, text: try FileReading.text(atPath: path))
  }
}

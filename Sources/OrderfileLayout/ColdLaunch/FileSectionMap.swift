import OrderfileSymbolization

/// Which section holds each byte and each page of a module's file, for counting what a cold
/// launch reads by section.
public struct FileSectionMap: Sendable {
  /// The name a count gets for file bytes no section holds (the ELF and program headers, padding).
  public static let outsideName = "(outside sections)"

  /// The sections that take file bytes, by offset.
  public let sections: [FileSection]

  public init(sections: [FileSection]) {
    self.sections = sections.filter { $0.fileSize > 0 }.sorted { ($0.offset, $0.fileSize) < ($1.offset, $1.fileSize) }
  }

  /// The map of the ELF file at `path`.
  public init(path: String) throws {
    self.init(sections: try FileSection.read(path: path))
  }

  /// The section that holds the byte at `offset`; nil when none does.
  public func section(atOffset offset: UInt64) -> FileSection? {
    sections.last { $0.fileRange.contains(offset) }
  }

  /// The section a whole page is counted for: the one holding the most of its bytes (the
  /// first of those in file order on a tie), since a page read brings in every section on it;
  /// nil when no section holds any byte of it.
  public func section(ofPage page: UInt64, pageSize: UInt64) -> FileSection? {
    let start = page * pageSize
    let end = start + pageSize
    var best: (section: FileSection, bytes: UInt64)?
    for section in sections where section.offset < end && section.fileRange.upperBound > start {
      let bytes = min(end, section.fileRange.upperBound) - max(start, section.offset)
      if bytes > (best?.bytes ?? 0) { best = (section, bytes) }
    }
    return best?.section
  }
}

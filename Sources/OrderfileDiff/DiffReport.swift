/// What `diff` reports, as data; one renderer per format turns it into Markdown, JSON or CSV.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md).
public struct DiffReport: Codable, Sendable, Equatable {
  /// The base orderfile's name in the report (its path unless given a label).
  public var base: String
  public var head: String
  public var summary: DiffSummary
  /// Present with a trace and a binary.
  public var pages: PageComparison?
  /// Present with `--base-binary` and `--head-binary`: the pages each really touched.
  public var measured: MeasuredComparison? = nil
  /// Present with `--measure-cold`: what a cold launch of each binary read of it, by section kind.
  public var cold: ColdLaunchComparison? = nil
  /// Present with `--max-page-growth`.
  public var gate: PageGate?
  /// Every change, largest first. Renderers may fold the tail.
  public var changes: [OrderChange]

  public init(
    base: String, head: String, diff: OrderDiff, pages: PageComparison? = nil, maxPageGrowth: Double? = nil
  ) {
    self.base = base
    self.head = head
    self.summary = diff.summary
    self.pages = pages
    self.gate = pages.flatMap { pages in maxPageGrowth.map { PageGate(maxPageGrowth: $0, pages: pages) } }
    self.changes = diff.changes
  }
}

/// An order that makes a module's launch touch more pages than the binary's default layout.
///
/// Few launch functions can straddle a page boundary once packed together where, scattered,
/// each sat inside one page: 2 pages become 3. Such an orderfile is better not applied.
public struct WorseLayout: Codable, Sendable, Equatable {
  /// One page size at which the order loses.
  public struct Pages: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    /// Launch pages in the binary as linked without the orderfile.
    public var defaultLayout: Int
    /// Launch pages with the orderfile applied, as simulated.
    public var ordered: Int

    public init(pageSize: UInt64, defaultLayout: Int, ordered: Int) {
      self.pageSize = pageSize
      self.defaultLayout = defaultLayout
      self.ordered = ordered
    }
  }

  /// The binary whose layout was compared.
  public var binary: String
  /// The page sizes at which the ordered layout touches more pages, ascending.
  public var pages: [Pages]
  /// Always false: the report's advice, as a field a daily job can test.
  public var recommendApplying = false

  public init(binary: String, pages: [Pages]) {
    self.binary = binary
    self.pages = pages
  }

  /// One line for people.
  public var message: String {
    let counts = pages.map { "\($0.ordered) pages ordered against \($0.defaultLayout) at \($0.pageSize / 1024) KiB" }
    return
      "the orderfile makes the launch of \(binary) touch more pages than its default layout (\(counts.joined(separator: ", "))): do not apply it"
  }
}

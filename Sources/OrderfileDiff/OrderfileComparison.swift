import OrderfileLayout
import OrderfileOrdering

/// Reads two orderfiles, compares them and, given a trace and a binary, estimates the launch
/// pages under each with `LaunchEstimation`, the code behind `orderfile estimate`.
public struct OrderfileComparison {
  /// What the page estimate needs: the same inputs as `orderfile estimate`.
  public struct EstimateInputs: Sendable {
    public var tracePath: String
    public var binaryPath: String
    public var module: String?
    public var searchPaths: [String]

    public init(tracePath: String, binaryPath: String, module: String? = nil, searchPaths: [String] = []) {
      self.tracePath = tracePath
      self.binaryPath = binaryPath
      self.module = module
      self.searchPaths = searchPaths
    }
  }

  public var basePath: String
  public var headPath: String
  public var baseLabel: String?
  public var headLabel: String?
  public var estimate: EstimateInputs?
  /// The `max-page-growth` gate, in percent of the base's pages.
  public var maxPageGrowth: Double?

  public init(
    basePath: String, headPath: String, baseLabel: String? = nil, headLabel: String? = nil,
    estimate: EstimateInputs? = nil, maxPageGrowth: Double? = nil
  ) {
    self.basePath = basePath
    self.headPath = headPath
    self.baseLabel = baseLabel
    self.headLabel = headLabel
    self.estimate = estimate
    self.maxPageGrowth = maxPageGrowth
  }

  public func run() throws -> DiffReport {
    // Read as streams into name tables, one at a time: a 10-million-line orderfile is
    // never held as lines.
    let diff = OrderDiff(
      base: try OrderfileNames.read(path: basePath).names, head: try OrderfileNames.read(path: headPath).names)
    var pages: PageComparison?
    if let estimate {
      // Both orders are estimated on one launch and one binary: read and matched once.
      let estimates = try LaunchEstimation(
        tracePath: estimate.tracePath, binaryPath: estimate.binaryPath, module: estimate.module,
        searchPaths: estimate.searchPaths
      ).run(orders: [basePath, headPath])
      pages = PageComparison(base: estimates[0], head: estimates[1])
    }
    return DiffReport(
      base: baseLabel ?? basePath, head: headLabel ?? headPath, diff: diff, pages: pages,
      maxPageGrowth: maxPageGrowth)
  }
}

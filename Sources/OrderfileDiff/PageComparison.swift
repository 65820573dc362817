import Foundation
import OrderfileLayout
import OrderfileSupport

/// Launch pages under the base and under the head orderfile, from `estimate`'s numbers.
///
/// Each side is an `Estimate` computed exactly as `orderfile estimate --order` computes it
/// (`LaunchEstimation`): the page counts are its `ordered` column, the faults its
/// `orderedFaults`.
public struct PageComparison: Codable, Sendable, Equatable {
  /// A count under the base and the head, and the signed change.
  public struct Delta: Codable, Sendable, Equatable {
    public var base: Int
    public var head: Int
    /// head − base: negative is better.
    public var delta: Int
    /// The change in percent of the base; nil when the base is 0.
    public var deltaPercent: Double?

    public init(base: Int, head: Int) {
      self.base = base
      self.head = head
      delta = head - base
      deltaPercent = base == 0 ? nil : Double(head - base) / Double(base) * 100
    }
  }

  public struct Row: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    /// The fewest pages the launch functions fit in.
    public var lowerBound: Int
    public var pages: Delta
  }

  public var trace: String
  public var binary: String
  public var launchFunctions: Int
  public var matchedFunctions: Int
  /// Distinct pages the launch touches, per page size.
  public var pages: [Row]
  public var faultAroundBytes: UInt64
  /// Faults with fault-around: distinct aligned windows touched.
  public var faults: Delta
  /// Set when the binary looks already reordered and either side leaves launch
  /// functions out, so that side's count may be optimistic.
  public var reorderedBinary: ReorderedBinaryCaution?

  /// The page sizes a diff reports: the common 4 KiB and the 16 KiB of some arm64 systems.
  public static let reportedPageSizes: [UInt64] = [4096, 16384]

  public init(base: Estimate, head: Estimate, pageSizes: [UInt64] = PageComparison.reportedPageSizes) {
    trace = head.trace ?? base.trace ?? ""
    binary = head.binary
    launchFunctions = head.launchFunctions
    matchedFunctions = head.matchedFunctions
    pages = pageSizes.compactMap { size in
      guard let before = base.pages.first(where: { $0.pageSize == size }),
        let after = head.pages.first(where: { $0.pageSize == size })
      else { return nil }
      return Row(pageSize: size, lowerBound: after.lowerBound, pages: Delta(base: before.ordered, head: after.ordered))
    }
    faultAroundBytes = head.faultAroundBytes
    faults = Delta(base: base.orderedFaults, head: head.orderedFaults)
    reorderedBinary = [base.reorderedBinary, head.reorderedBinary].compactMap { $0 }
      .max { $0.launchFunctionsOutsideOrder < $1.launchFunctionsOutsideOrder }
  }
}

/// The `max-page-growth` gate: does the head touch more pages than the base allows?
public struct PageGate: Codable, Sendable, Equatable {
  /// The largest growth allowed, in percent of the base's pages.
  public var maxPageGrowth: Double
  public var passed: Bool
  /// The page size that grew most (by percent; a growth from 0 counts as the most).
  public var worstPageSize: UInt64?
  /// Its growth in percent; nil when its base was 0.
  public var worstPercent: Double?

  /// Checks every reported page size.
  public init(maxPageGrowth: Double, pages: PageComparison) {
    self.maxPageGrowth = maxPageGrowth
    var worst: PageComparison.Row?
    var worstValue = -Double.infinity
    for row in pages.pages {
      let value = row.pages.deltaPercent ?? (row.pages.head > 0 ? Double.infinity : 0)
      if worst == nil || value > worstValue {
        worst = row
        worstValue = value
      }
    }
    worstPageSize = worst?.pageSize
    worstPercent = worst?.pages.deltaPercent
    passed = worstValue <= maxPageGrowth
  }

  /// Why the gate failed, the gate spelt as `spelling` picks; nil when it passed.
  public func failure(spelling: KeyPath<Gate, String>) -> String? {
    guard !passed else { return nil }
    let growth = worstPercent.map { String(format: "%+.1f%%", $0) } ?? "from 0"
    let size = worstPageSize.map { " at \(formatBytes($0)) pages" } ?? ""
    return
      "launch pages grow \(growth)\(size), more than \(Gate.maxPageGrowth[keyPath: spelling]) \(TextFormatting.number(maxPageGrowth))%"
  }
}

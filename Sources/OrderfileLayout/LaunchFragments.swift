import OrderfileOrdering
import OrderfileSymbolization

/// The launch functions of a binary whose functions are split into fragments: an entry
/// (hot) part under the function's own name and cold parts beside it (`foo.cold.0` from
/// BOLT, `foo.cold` from gcc).
///
/// A trace records function entries, so it names only entry parts; the estimate counts
/// their pages and their bytes as what the launch runs. The cold parts hold the blocks the
/// profile that split the function saw no run of, so they are taken as not run: the
/// whole-function bound (entry and cold parts together) is what the best order of whole
/// functions could reach, and the gap to it is what splitting saved. An independent check
/// (a page-touch probe, callgrind) confirms the assumption for a given launch.
public struct LaunchFragments: Codable, Sendable, Equatable {
  /// The bounds at one page size.
  public struct Bounds: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    /// The fewest pages the launch's entry parts fit in: the bound for what runs.
    public var hotBound: Int
    /// The fewest pages the launch functions fit in whole, cold parts included.
    public var wholeFunctionBound: Int
    /// Pages the span from the first to the last entry part covers.
    public var hotSpanPages: Int
  }

  /// Launch functions that have cold parts.
  public var splitFunctions: Int
  /// Bytes of the launch functions' entry parts, and of their cold parts.
  public var hotBytes: UInt64
  public var coldBytes: UInt64
  /// The address range from the first entry part to the end of the last.
  public var hotSpanStart: UInt64
  public var hotSpanEnd: UInt64
  /// Runs of entry parts with no other code between them, by address: 1 when they sit
  /// together.
  public var runs: Int
  /// Up to ten entry parts outside the largest run (a function the rewriter left in place).
  public var outsideLargestRun: [String]
  public var bounds: [Bounds]

  /// True when nothing the launch does not run lies between its entry parts.
  public var hotPartsContiguous: Bool { runs == 1 }

  /// The fragments of `launch` (names in first-call order) in `functions`; nil when no
  /// launch function has a cold part, as in a binary nothing split.
  public init?(launch: [String], functions: [FunctionSymbol], pageSizes: [UInt64]) {
    var coldParts: [String: [Int]] = [:]
    for index in functions.indices where functions[index].size > 0 {
      if let parent = CloneName.coldPartParent(of: functions[index].name) {
        coldParts[parent, default: []].append(index)
      }
    }
    // Without a cold part of its own no launch function is split: most launches end here,
    // before the binary's quarter of a million names are looked up.
    let launchNames = Set(launch)
    guard coldParts.keys.contains(where: launchNames.contains) else { return nil }
    let byName = functions.positions(named: launch) { functions[$0].size > 0 }
    var hot = Set<Int>()
    var cold = Set<Int>()
    var split = 0
    for name in launchNames {
      guard let entries = byName[name] else { continue }
      hot.formUnion(entries)
      if let parts = coldParts[name] {
        split += 1
        cold.formUnion(parts)
      }
    }
    // A cold part the launch ran is counted with what runs, not twice.
    cold.subtract(hot)
    guard split > 0, let start = hot.map({ functions[$0].address }).min(),
      let end = hot.map({ functions[$0].address + functions[$0].size }).max()
    else { return nil }
    splitFunctions = split
    hotBytes = hot.reduce(0) { $0 + functions[$1].size }
    coldBytes = cold.reduce(0) { $0 + functions[$1].size }
    hotSpanStart = start
    hotSpanEnd = end
    // Walk the binary by address: a function of nonzero size that is not an entry part
    // ends a run.
    var groups: [[Int]] = []
    var open = false
    for index in functions.indices.sorted(by: { functions[$0].address < functions[$1].address })
    where functions[index].size > 0 {
      if hot.contains(index) {
        if open { groups[groups.count - 1].append(index) } else { groups.append([index]) }
        open = true
      } else {
        open = false
      }
    }
    runs = groups.count
    let largest = groups.indices.max { groups[$0].count < groups[$1].count } ?? 0
    outsideLargestRun = Array(
      groups.indices.filter { $0 != largest }.flatMap { groups[$0] }.map { functions[$0].name }.prefix(10))
    let span = Span(address: start, size: end - start)
    bounds = pageSizes.map { [hotBytes, coldBytes] size in
      Bounds(
        pageSize: size, hotBound: PageMath.lowerBound(bytes: hotBytes, pageSize: size),
        wholeFunctionBound: PageMath.lowerBound(bytes: hotBytes + coldBytes, pageSize: size),
        hotSpanPages: span.pages(size).count)
    }
  }
}

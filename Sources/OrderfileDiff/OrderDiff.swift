import OrderfileOrdering
import OrderfileSupport

/// What changed between two orders of function names.
///
/// An entry is *added* when only the head has it, *removed* when only the base has it, and
/// *moved* when both have it but it is not part of the longest run of entries the two keep
/// in the same relative order (the fewest entries that, taken out and put back elsewhere,
/// turn one order into the other). An entry pushed down by an insertion above it therefore
/// does not count as moved; two entries that swap places count as one move.
public struct OrderDiff: Sendable, Equatable {
  public var summary: DiffSummary
  /// Every change, largest first (see `OrderChange.magnitude`).
  public var changes: [OrderChange]

  /// Compares `base` with `head`. A name listed twice counts at its first line.
  public init(base: [String], head: [String]) {
    self.init(base: NameTable(base), head: NameTable(head))
  }

  /// Compares the names of `base` with those of `head`, each listed once.
  ///
  /// Linear in the entries but for the longest-run search (n log n), and lean: names stay
  /// in their tables as bytes, looked up in the other table by bytes; only changed entries
  /// become `String`s.
  public init(base: NameTable, head: NameTable) {
    var changes: [OrderChange] = []
    // Base ranks of the common entries, in head order, and their head ranks.
    var sequence: [Int] = []
    var sequenceHeadRanks: [Int32] = []
    // Base entries the head has, marked on the way: one lookup per head entry, none back.
    var inHead = [Bool](repeating: false, count: base.count)
    for index in 0..<head.count {
      if let rank = base.index(ofNameAt: index, in: head) {
        sequence.append(rank)
        sequenceHeadRanks.append(Int32(index))
        inHead[rank] = true
      } else {
        changes.append(
          OrderChange(
            kind: .new, name: head[index], baseRank: nil, headRank: index + 1, move: nil,
            magnitude: head.count - index - 1))
      }
    }
    for index in 0..<base.count where !inHead[index] {
      changes.append(
        OrderChange(
          kind: .deleted, name: base[index], baseRank: index + 1, headRank: nil, move: nil,
          magnitude: base.count - index - 1))
    }
    let kept = Self.longestIncreasingMask(sequence)
    // Ranks among the common entries only, so that insertions and deletions elsewhere do not
    // count as movement: a move is the number of common entries an entry jumped over.
    let commonBaseRank = RankCorrelation.denseRanks(sequence)
    var moved = 0
    for (position, rank) in sequence.enumerated() where !kept[position] {
      moved += 1
      let move = position - commonBaseRank[position]
      changes.append(
        OrderChange(
          kind: .moved, name: base[rank], baseRank: rank + 1, headRank: Int(sequenceHeadRanks[position]) + 1,
          move: move, magnitude: abs(move)))
    }
    changes.sort(by: OrderChange.precedes)

    let added = head.count - sequence.count
    let removed = base.count - sequence.count
    let union = sequence.count + added + removed
    summary = DiffSummary(
      baseEntries: base.count, headEntries: head.count, added: added, removed: removed, moved: moved,
      unchanged: sequence.count - moved,
      churn: union == 0 ? 0 : Double(added + removed + moved) / Double(union),
      correlation: RankCorrelation(ranksInHeadOrder: sequence))
    self.changes = changes
  }

  /// Positions of one longest strictly increasing subsequence of `values` (patience sorting,
  /// O(n log n)); among equally long ones, the one this algorithm meets first, which is
  /// fixed by the input.
  static func longestIncreasing(_ values: [Int]) -> Set<Int> {
    let kept = longestIncreasingMask(values)
    return Set(kept.indices.filter { kept[$0] })
  }

  /// The same positions as a mask over `values`: a byte per value rather than a hash entry,
  /// for diffs of millions of entries.
  static func longestIncreasingMask(_ values: [Int]) -> [Bool] {
    // tails[k]: position of the smallest tail of an increasing run of length k + 1.
    var tails: [Int] = []
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
      let low = tails.partitioningIndex { values[$0] >= value }
      if low > 0 { previous[position] = tails[low - 1] }
      if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var result = [Bool](repeating: false, count: values.count)
    var position = tails.last ?? -1
    while position >= 0 {
      result[position] = true
      position = previous[position]
    }
    return result
  }
}

/// The counts of a diff, the first thing a reviewer reads.
public struct DiffSummary: Codable, Sendable, Equatable {
  public var baseEntries: Int
  public var headEntries: Int
  /// Entries only in the head.
  public var added: Int
  /// Entries only in the base.
  public var removed: Int
  /// Entries in both but out of their shared order.
  public var moved: Int
  /// Entries in both, in their shared order.
  public var unchanged: Int
  /// (added + removed + moved) ÷ entries in either: 0 for the same order.
  public var churn: Double
  /// Rank correlation of the entries both have.
  public var correlation: RankCorrelation

  /// True when the two orders list the same entries in the same order.
  public var isIdentical: Bool { added == 0 && removed == 0 && moved == 0 }
}

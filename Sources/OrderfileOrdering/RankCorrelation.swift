/// How alike two orders of the same items are.
///
/// Both coefficients run from 1 (the same order) through 0 (unrelated) to -1 (reversed).
/// They are computed over the items both orders contain, ranked within that common set, so
/// additions and removals do not count as disagreement (they are counted separately).
public struct RankCorrelation: Codable, Sendable, Equatable {
  /// Items both orders contain.
  public var commonEntries: Int
  /// Kendall's τ: 1 − 2 × (discordant pairs ÷ all pairs).
  public var kendallTau: Double
  /// Spearman's ρ: 1 − 6 Σd² ÷ (n(n² − 1)), d the difference of an item's two ranks.
  public var spearmanRho: Double

  public init(commonEntries: Int, kendallTau: Double, spearmanRho: Double) {
    self.commonEntries = commonEntries
    self.kendallTau = kendallTau
    self.spearmanRho = spearmanRho
  }

  /// The correlation of `base` and `head`. Each item counts at its first position; with
  /// fewer than two common items both coefficients are 1.
  public init<Item: Hashable>(base: [Item], head: [Item]) {
    var baseRank: [Item: Int] = [:]
    for item in base where baseRank[item] == nil { baseRank[item] = baseRank.count }
    var seen = Set<Item>()
    // The base ranks of the common items, in head order.
    var sequence: [Int] = []
    for item in head where seen.insert(item).inserted {
      if let rank = baseRank[item] { sequence.append(rank) }
    }
    self = RankCorrelation(ranksInHeadOrder: sequence)
  }

  /// The correlation of a sequence of distinct base ranks listed in head order.
  package init(ranksInHeadOrder sequence: [Int]) {
    let n = sequence.count
    guard n >= 2 else {
      self.init(commonEntries: n, kendallTau: 1, spearmanRho: 1)
      return
    }
    // Dense ranks 0..<n within the common set.
    let dense = Self.denseRanks(sequence)
    var squares = 0.0
    for (headRank, baseRank) in dense.enumerated() {
      let d = Double(headRank - baseRank)
      squares += d * d
    }
    let count = Double(n)
    let pairs = count * (count - 1) / 2
    let discordant = Double(Self.inversions(dense))
    self.init(
      commonEntries: n, kendallTau: 1 - 2 * discordant / pairs,
      spearmanRho: 1 - 6 * squares / (count * (count * count - 1)))
  }

  /// Replaces distinct integers by their positions in sorted order.
  package static func denseRanks(_ values: [Int]) -> [Int] {
    var ranks = [Int](repeating: 0, count: values.count)
    // Ranks of one file's entries lie in 0..<entries: counted in linear time with a
    // byte per possible value, rather than sorted.
    if let low = values.min(), let high = values.max(), low >= 0, high < values.count * 4 {
      var present = [Bool](repeating: false, count: high + 1)
      for value in values { present[value] = true }
      var below = [Int32](repeating: 0, count: high + 1)
      var seen: Int32 = 0
      for value in 0...high {
        below[value] = seen
        if present[value] { seen += 1 }
      }
      for (index, value) in values.enumerated() { ranks[index] = Int(below[value]) }
      return ranks
    }
    for (rank, index) in values.indices.sorted(by: { values[$0] < values[$1] }).enumerated() {
      ranks[index] = rank
    }
    return ranks
  }

  /// Pairs out of order (i < j, values[i] > values[j]), by merge sort in O(n log n).
  static func inversions(_ values: [Int]) -> Int {
    var items = values
    var buffer = values
    var count = 0
    var width = 1
    while width < items.count {
      var start = 0
      while start < items.count {
        let middle = min(start + width, items.count)
        let end = min(start + 2 * width, items.count)
        var left = start
        var right = middle
        var out = start
        while left < middle && right < end {
          if items[left] <= items[right] {
            buffer[out] = items[left]
            left += 1
          } else {
            buffer[out] = items[right]
            count += middle - left
            right += 1
          }
          out += 1
        }
        while left < middle {
          buffer[out] = items[left]
          left += 1
          out += 1
        }
        while right < end {
          buffer[out] = items[right]
          right += 1
          out += 1
        }
        start += 2 * width
      }
      swap(&items, &buffer)
      width *= 2
    }
    return count
  }
}

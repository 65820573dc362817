import OrderfileOrdering
import Testing

/// Kendall's τ by counting every pair, to check the O(n log n) version against.
private func bruteForceTau(_ base: [Int], _ head: [Int]) -> Double {
  let position = Dictionary(uniqueKeysWithValues: head.enumerated().map { ($1, $0) })
  var concordant = 0
  var discordant = 0
  for i in base.indices {
    for j in (i + 1)..<base.count {
      if position[base[i]]! < position[base[j]]! { concordant += 1 } else { discordant += 1 }
    }
  }
  return Double(concordant - discordant) / Double(concordant + discordant)
}

@Suite("Rank correlation")
struct RankCorrelationTests {
  @Test("the same order is 1, the reversed order -1")
  func extremes() {
    let names = ["a", "b", "c", "d", "e"]
    let same = RankCorrelation(base: names, head: names)
    #expect(same.kendallTau == 1)
    #expect(same.spearmanRho == 1)
    let reversed = RankCorrelation(base: names, head: names.reversed())
    #expect(reversed.kendallTau == -1)
    #expect(reversed.spearmanRho == -1)
  }

  @Test("only the entries both orders have count")
  func commonEntriesOnly() {
    let correlation = RankCorrelation(base: ["a", "gone", "b", "c"], head: ["new", "a", "b", "c"])
    #expect(correlation.commonEntries == 3)
    #expect(correlation.kendallTau == 1)
  }

  @Test("one adjacent swap of four: τ = 1 − 2·1/6, ρ = 1 − 6·2/60")
  func oneSwap() {
    let correlation = RankCorrelation(base: ["a", "b", "c", "d"], head: ["a", "c", "b", "d"])
    #expect(abs(correlation.kendallTau - (1 - 2.0 / 6)) < 1e-12)
    #expect(abs(correlation.spearmanRho - (1 - 12.0 / 60)) < 1e-12)
  }

  @Test("the merge-sort count agrees with counting every pair")
  func againstBruteForce() {
    var generator = SplitMix64(seed: 7)
    for size in [2, 3, 10, 57, 200] {
      let base = Array(0..<size)
      let head = base.shuffled(using: &generator)
      let correlation = RankCorrelation(base: base, head: head)
      #expect(abs(correlation.kendallTau - bruteForceTau(base, head)) < 1e-12, "size \(size)")
    }
  }

  @Test("dense ranks are the positions in sorted order, counted or sorted alike")
  func denseRanks() {
    var generator = SplitMix64(seed: 57)
    for trial in 0..<200 {
      let count = Int.random(in: 0...300, using: &generator)
      // Ranks of one file (counted) and sparse or negative values (sorted).
      let spread = [count * 2, count * 50, 1 << 40][trial % 3]
      var values = Set<Int>()
      while values.count < count {
        values.insert(Int.random(in: 0...max(spread, count), using: &generator) - (trial % 5 == 0 ? 7 : 0))
      }
      let list = Array(values).shuffled(using: &generator)
      let sorted = list.sorted()
      let expected = list.map { sorted.firstIndex(of: $0)! }
      #expect(RankCorrelation.denseRanks(list) == expected, "\(list)")
    }
  }

  @Test("fewer than two common entries correlate perfectly by definition")
  func tooFew() {
    #expect(RankCorrelation(base: ["a"], head: ["a", "b"]).kendallTau == 1)
    #expect(RankCorrelation(base: [String](), head: []).commonEntries == 0)
  }
}

/// A small seeded generator, so the shuffles are the same on every run.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

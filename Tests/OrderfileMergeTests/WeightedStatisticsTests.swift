import OrderfileMerge
import Testing

private func samples(_ pairs: [(Double, Double)]) -> [WeightedStatistics.Sample] {
  pairs.map { WeightedStatistics.Sample(value: $0.0, weight: $0.1) }
}

@Suite("Weighted median and mean")
struct WeightedStatisticsTests {
  @Test("an odd number of equal weights gives the middle value")
  func oddCount() {
    #expect(WeightedStatistics.median(samples([(0.9, 1), (0.1, 1), (0.5, 1)])) == 0.5)
  }

  @Test("an even split takes the midpoint of the two middle values")
  func evenSplit() {
    #expect(WeightedStatistics.median(samples([(0.2, 1), (0.6, 1)])) == 0.4)
    #expect(WeightedStatistics.median(samples([(0.1, 1), (0.2, 1), (0.6, 1), (0.9, 1)])) == 0.4)
  }

  @Test("a heavy sample pulls the median to itself")
  func heavySample() {
    #expect(WeightedStatistics.median(samples([(0.2, 1), (0.6, 3)])) == 0.6)
    #expect(WeightedStatistics.median(samples([(0.2, 1), (0.6, 1), (0.8, 1), (0.1, 5)])) == 0.1)
  }

  @Test("an extreme value does not move the median, only the mean")
  func robustness() {
    let calm = samples([(0.30, 1), (0.31, 1), (0.32, 1), (0.33, 1), (0.34, 1)])
    let wild = samples([(0.30, 1), (0.31, 1), (0.32, 1), (0.33, 1), (0.99, 1)])
    #expect(WeightedStatistics.median(calm) == WeightedStatistics.median(wild))
    #expect(WeightedStatistics.mean(calm)! < WeightedStatistics.mean(wild)!)
  }

  @Test("no samples, no median")
  func empty() {
    #expect(WeightedStatistics.median([]) == nil)
    #expect(WeightedStatistics.mean([]) == nil)
  }

  @Test("sums do not depend on the order of their terms")
  func canonicalSum() {
    let terms = [0.1, 0.7, 0.2, 1e-17, 0.3]
    let expected = WeightedStatistics.sum(terms)
    for permutation in permutations(terms) { #expect(WeightedStatistics.sum(permutation) == expected) }
  }
}

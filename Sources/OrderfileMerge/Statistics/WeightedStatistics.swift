/// Weighted statistics computed in a canonical order, so that the same samples give the
/// same bits whatever order the runs came in.
///
/// Floating-point addition is not associative: summing the same weights in another order
/// can change the last bit, and with it a comparison between two functions. Every sum here
/// therefore sorts its terms first.
public enum WeightedStatistics {
  /// One observation: a value and the weight of the run it came from.
  public struct Sample: Sendable, Equatable {
    public var value: Double
    public var weight: Double

    public init(value: Double, weight: Double) {
      self.value = value
      self.weight = weight
    }
  }

  /// The sum of `terms`, added smallest first.
  public static func sum(_ terms: [Double]) -> Double {
    terms.sorted().reduce(0, +)
  }

  /// The weighted median: the value at which half of the total weight lies on either side.
  /// Nil for no samples.
  public static func median(_ samples: [Sample]) -> Double? {
    quantile(samples, 0.5)
  }

  /// The weighted quantile `q` (0...1): the value below which the share `q` of the weight lies.
  ///
  /// Samples are sorted by value (then weight). The quantile is the first value whose
  /// cumulative weight reaches `q` of the total; when the cumulative weight lands exactly on
  /// it, the midpoint of that value and the next (so the median of two equal-weight samples
  /// is their mean). Nil for no samples.
  public static func quantile(_ samples: [Sample], _ q: Double) -> Double? {
    guard !samples.isEmpty else { return nil }
    let sorted = samples.sorted { ($0.value, $0.weight) < ($1.value, $1.weight) }
    let target = sum(sorted.map(\.weight)) * q
    var cumulative = 0.0
    for (index, sample) in sorted.enumerated() {
      cumulative += sample.weight
      if cumulative == target, index + 1 < sorted.count {
        return (sample.value + sorted[index + 1].value) / 2
      }
      if cumulative >= target { return sample.value }
    }
    return sorted[sorted.count - 1].value
  }

  /// The weighted mean; nil for no samples or no weight.
  public static func mean(_ samples: [Sample]) -> Double? {
    let total = sum(samples.map(\.weight))
    guard total > 0 else { return nil }
    return sum(samples.map { $0.value * $0.weight }) / total
  }
}

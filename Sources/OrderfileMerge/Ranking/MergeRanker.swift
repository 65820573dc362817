/// Merges the launch orders of several runs into one.
///
/// Each run's order is turned into normalized ranks: the function at position p of n gets
/// (p + ½) ÷ n, so runs and scenarios of different lengths compare by how far into the
/// launch a function starts. A function's place is the weighted median of its normalized
/// ranks over the runs that recorded it. A median ignores the tails: one run with an unusual
/// thread schedule moves a function only if it is the middle run for that function, and
/// outvoting it takes less than half of the weight.
///
/// The merged order is:
/// 1. the functions every run recorded, by placement;
/// 2. the functions only some runs recorded, by the share of the weight that recorded them
///    (most first), then by placement.
///
/// The placement is the weighted median rank. Given the previous order (the orderfile this
/// merge replaces), a function keeps its previous place, normalized the same way, when that
/// place lies between the 10th and 90th weighted percentiles of its ranks (the middle 80% of
/// its runs' weight) or within one place of them, and otherwise moves to the nearer of the
/// two. The place of slack is for the scales: a place in the merged file is counted over all
/// merged functions, a rank over one run's, and a function some runs lack shifts the later
/// ranks of those runs by a place while the merged order puts it at the end. Without the
/// slack, a function that no run moved can sit a place off its ranks, follow this day's
/// median while its neighbours keep their old places, and trade places with them from one
/// day's merge to the next. A move of one place is therefore not followed. Functions whose runs
/// disagree (a worker thread that sometimes starts early and sometimes late) then stay where
/// they were instead of following whichever mode the median of this day's runs lands in; a
/// function that most runs moved still moves. Only the previous place can be kept this way:
/// a few unusual runs never move a function. The placement is one number per function, so
/// the order stays a plain sort.
///
/// Ties are broken by the weighted median, the weighted mean, then the name (byte order), so
/// the result does not depend on the order the runs are given in.
///
/// Weights count as copies: a run of weight 2 counts as two identical runs of weight 1.
public enum MergeRanker {
  public static func rank(_ runs: [RunOrder], previous: [String]? = nil) -> [MergedEntry] {
    var samples: [String: [WeightedStatistics.Sample]] = [:]
    let weightedRuns = runs.filter { $0.weight > 0 }
    for run in weightedRuns {
      let names = run.distinctNames
      for (position, name) in names.enumerated() {
        samples[name, default: []].append(.init(value: normalized(position, of: names.count), weight: run.weight))
      }
    }
    var previousPlace: [String: Double] = [:]
    if let previous {
      let names = RunOrder(label: "previous", names: previous).distinctNames
      for (position, name) in names.enumerated() { previousPlace[name] = normalized(position, of: names.count) }
    }
    let totalWeight = WeightedStatistics.sum(weightedRuns.map(\.weight))
    let slack = 1 / Double(max(samples.count, 1))  // one place of the merged order
    let entries = samples.map { name, observed in
      let median = WeightedStatistics.median(observed) ?? 1
      let lower = WeightedStatistics.quantile(observed, 0.10) ?? median
      let upper = WeightedStatistics.quantile(observed, 0.90) ?? median
      return MergedEntry(
        name: name, medianRank: median, meanRank: WeightedStatistics.mean(observed) ?? 1, percentile10: lower,
        percentile90: upper, placement: previousPlace[name].map { kept($0, lower, upper, slack) } ?? median,
        runs: observed.count,
        presence: totalWeight > 0 ? WeightedStatistics.sum(observed.map(\.weight)) / totalWeight : 0,
        inAllRuns: observed.count == weightedRuns.count)
    }
    return entries.sorted(by: precedes)
  }

  /// The previous place while it lies within `slack` of the runs' middle 80%; else the nearer edge.
  static func kept(_ place: Double, _ lower: Double, _ upper: Double, _ slack: Double) -> Double {
    place >= lower - slack && place <= upper + slack ? place : min(max(place, lower), upper)
  }

  /// Position `position` of `count`, as a share of the way through: (p + ½) ÷ n.
  static func normalized(_ position: Int, of count: Int) -> Double {
    (Double(position) + 0.5) / Double(count)
  }

  /// The merged order's comparison: all-runs functions first, then by presence, placement,
  /// median, mean and name.
  static func precedes(_ a: MergedEntry, _ b: MergedEntry) -> Bool {
    if a.inAllRuns != b.inAllRuns { return a.inAllRuns }
    if !a.inAllRuns, a.presence != b.presence { return a.presence > b.presence }
    if a.placement != b.placement { return a.placement < b.placement }
    if a.medianRank != b.medianRank { return a.medianRank < b.medianRank }
    if a.meanRank != b.meanRank { return a.meanRank < b.meanRank }
    return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
  }
}

/// One run's launch order of one module, and the weight the run carries in a merge.
public struct RunOrder: Sendable, Equatable {
  /// Where the run came from (its trace), for reports.
  public var label: String
  /// How many identical runs this one counts as: a run of weight 2 counts twice.
  public var weight: Double
  /// Function names in first-call order. A name listed twice counts at its first position.
  public var names: [String]
  /// The thread that made each first call, parallel to `names`; nil when not known. Only
  /// equality within the run matters: two functions first called on different threads
  /// were ordered by thread timing (see `MergeRanker`).
  public var threads: [UInt32]?

  public init(label: String, weight: Double = 1, names: [String], threads: [UInt32]? = nil) {
    self.label = label
    self.weight = weight
    self.names = names
    self.threads = threads.flatMap { $0.count == names.count ? $0 : nil }
  }

  /// The names without repeats, first position kept.
  var distinctNames: [String] { distinctCalls.map(\.name) }

  /// The names without repeats, each with the thread of its first call (nil when not known).
  var distinctCalls: [(name: String, thread: UInt32?)] {
    var seen = Set<String>()
    return names.indices.filter { seen.insert(names[$0]).inserted }.map { (names[$0], threads?[$0]) }
  }
}

/// A function's place in the merged order and the statistics that put it there.
public struct MergedEntry: Codable, Sendable, Equatable {
  public var name: String
  /// Weighted median of the function's normalized rank over the runs that recorded it:
  /// 0 is the start of a launch, 1 its end.
  public var medianRank: Double
  /// Weighted mean of the same, the first tie-break.
  public var meanRank: Double
  /// The 10th and 90th weighted percentiles of the same: the middle 80% of the runs' weight
  /// put the function between them.
  public var percentile10: Double
  public var percentile90: Double
  /// What the merged order sorts by: the median rank, or with a previous order, the
  /// function's place there (the median for a function it lacks). A function the runs
  /// moved against the previous order (see `MergeRanker`) has its median here.
  public var placement: Double
  /// Runs that recorded the function.
  public var runs: Int
  /// The weight of those runs as a share of all runs' weight, 0...1.
  public var presence: Double
  /// Whether every run recorded it. These come first in the merged order.
  public var inAllRuns: Bool

  public init(
    name: String, medianRank: Double, meanRank: Double, percentile10: Double, percentile90: Double,
    placement: Double, runs: Int, presence: Double, inAllRuns: Bool
  ) {
    self.name = name
    self.medianRank = medianRank
    self.meanRank = meanRank
    self.percentile10 = percentile10
    self.percentile90 = percentile90
    self.placement = placement
    self.runs = runs
    self.presence = presence
    self.inAllRuns = inAllRuns
  }
}

import OrderfileSupport

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
/// Given the previous order (the orderfile this merge replaces), the order starts from it
/// instead: a function it lists is placed at its previous place, a new function at its
/// median. Two functions then keep their previous order unless the runs overrule it, which
/// they do only when
/// - the runs that agree with it hold less than 10% of the weight of the runs that recorded
///   both (the middle 80% of the runs lies beyond it), and
/// - every run that recorded both first called them on one thread (or recorded no threads).
/// The order of two functions first called on different threads is thread timing, not the
/// program's. And where some run first called them on different threads, the thread that
/// calls each is timing too: a pool's workers take jobs from a queue, so two jobs run on one
/// worker in one launch, one after the other, and on two workers in the next, and which
/// job's code comes first on that worker follows the load. So a worker thread that starts
/// early in some launches and late in others, or a pool that runs its jobs on fewer workers
/// on a loaded machine, leaves the committed order alone, however this day's runs fall;
/// where the functions sit within the launch changes no page the launch touches, a
/// reordering of them only churns the file. A function the runs overrule moves
/// only as far as that: after the functions that must precede it (a stable topological
/// sort of the previous order, the earliest of a cycle of overrulings first). Functions of
/// one thread keep their previous order unless the runs moved them, whatever the other
/// threads interleaved, which ranks cannot tell: a function's rank counts the worker
/// functions that happened to run before it. A previous order the runs reverse in more than
/// 64 pairs per function on average is another program's (much changed code): the merge then
/// starts afresh, by median.
///
/// Ties are broken by the weighted median, the weighted mean, then the name (byte order), so
/// the result does not depend on the order the runs are given in.
///
/// Weights count as copies: a run of weight 2 counts as two identical runs of weight 1.
public enum MergeRanker {
  /// The share of the weight, of the runs that recorded both, whose agreement keeps two
  /// functions in their previous order.
  static let keepingShare = 0.10

  public static func rank(_ runs: [RunOrder], previous: [String]? = nil) -> [MergedEntry] {
    var samples: [String: [WeightedStatistics.Sample]] = [:]
    let weightedRuns = runs.filter { $0.weight > 0 }
    let calls = weightedRuns.map(\.distinctCalls)
    for (run, names) in zip(weightedRuns, calls) {
      for (position, call) in names.enumerated() {
        samples[call.name, default: []].append(
          .init(value: normalized(position, of: names.count), weight: run.weight))
      }
    }
    var previousPlace: [String: Double] = [:]
    if let previous {
      let names = RunOrder(label: "previous", names: previous).distinctNames
      for (position, name) in names.enumerated() { previousPlace[name] = normalized(position, of: names.count) }
    }
    let totalWeight = WeightedStatistics.sum(weightedRuns.map(\.weight))
    let entries = samples.map { name, observed in
      let median = WeightedStatistics.median(observed) ?? 1
      return MergedEntry(
        name: name, medianRank: median, meanRank: WeightedStatistics.mean(observed) ?? 1,
        percentile10: WeightedStatistics.quantile(observed, 0.10) ?? median,
        percentile90: WeightedStatistics.quantile(observed, 0.90) ?? median,
        placement: previousPlace[name] ?? median, runs: observed.count,
        presence: totalWeight > 0 ? WeightedStatistics.sum(observed.map(\.weight)) / totalWeight : 0,
        inAllRuns: observed.count == weightedRuns.count)
    }
    .sorted(by: precedes)
    guard previous != nil else { return entries }
    let index = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.name, $0) })
    if let kept = overruled(
      entries, runs: zip(weightedRuns, calls).map { RankedRun(index: index, count: entries.count, run: $0, calls: $1) })
    {
      return kept
    }
    // The runs reverse so much of the previous order that it is another program's: merged afresh.
    return entries.map { entry in
      var entry = entry
      entry.placement = entry.medianRank
      return entry
    }.sorted(by: precedes)
  }

  /// One run as the positions (and threads) of the entries of an order.
  struct RankedRun {
    var weight: Double
    /// The run's first calls as indices into the order.
    var sequence: [Int]
    /// Each entry's position in the run, -1 where the run lacks it.
    var positions: [Int]
    /// Each entry's thread in the run, where known.
    var threads: [UInt32?]

    /// `index`: each entry's index in the order of `count` entries.
    init(index: [String: Int], count: Int, run: RunOrder, calls: [(name: String, thread: UInt32?)]) {
      weight = run.weight
      sequence = calls.compactMap { index[$0.name] }
      positions = [Int](repeating: -1, count: count)
      threads = [UInt32?](repeating: nil, count: count)
      for (position, call) in calls.enumerated() {
        guard let entry = index[call.name] else { continue }
        positions[entry] = position
        threads[entry] = call.thread
      }
    }
  }

  /// Pairs of the previous order, per entry, that the runs may reverse before it counts as
  /// another program's order (code that changed much): the merge then starts afresh rather
  /// than weigh every reversed pair, which would take time and memory quadratic in the entries.
  static let reversalsPerEntry = 64

  /// `order` (sorted from the previous places) with every function the runs overrule moved
  /// after the functions that must precede it; nil when the runs reverse more than
  /// `reversalsPerEntry` pairs per entry.
  static func overruled(_ order: [MergedEntry], runs: [RankedRun]) -> [MergedEntry]? {
    func sameGroup(_ a: Int, _ b: Int) -> Bool {
      order[a].inAllRuns == order[b].inAllRuns && (order[a].inAllRuns || order[a].presence == order[b].presence)
    }
    // Pairs the runs may overrule: an overruled pair is reversed in runs with more than 90%
    // of the weight, so in at least one of any runs holding more than 10% of it. Functions
    // every run recorded are looked for in the heaviest such runs only; the others, whose
    // pairs count only the runs that recorded both, in every run.
    let total = WeightedStatistics.sum(runs.map(\.weight))
    var witnesses = Set<Int>()
    var witnessWeight = 0.0
    // Ties broken by the run's own order, so that the runs chosen, and the reversals counted
    // against the budget, do not depend on the order the runs came in.
    let heaviestFirst = runs.indices.sorted { a, b in
      if runs[a].weight != runs[b].weight { return runs[a].weight > runs[b].weight }
      return runs[a].sequence.lexicographicallyPrecedes(runs[b].sequence)
    }
    for run in heaviestFirst where witnessWeight <= keepingShare * total {
      witnesses.insert(run)
      witnessWeight += runs[run].weight
    }
    var candidates = Set<Pair>()
    let budget = reversalsPerEntry * max(order.count, 1)
    var examined = 0
    for (number, run) in runs.enumerated() {
      let sequence = witnesses.contains(number) ? run.sequence : run.sequence.filter { !order[$0].inAllRuns }
      // Entries this run already called, as sorted indices: those after `entry` came first
      // in the run but later in the order.
      var seen: [Int] = []
      for entry in sequence {
        let later = seen.partitioningIndex { $0 > entry }
        examined += seen.count - later
        guard examined <= budget else { return nil }
        for other in seen[later...] where sameGroup(entry, other) {
          candidates.insert(Pair(earlier: entry, later: other))
        }
        seen.insert(entry, at: later)
      }
    }

    var followers: [Int: [Int]] = [:]
    var waiting = [Int](repeating: 0, count: order.count)
    for pair in candidates {
      var both: [Double] = []
      var agreeing: [Double] = []
      // Whether some run first called the two on different threads: then their order is
      // thread timing in every run.
      var acrossThreads = false
      for run in runs {
        let (earlier, later) = (run.positions[pair.earlier], run.positions[pair.later])
        guard earlier >= 0, later >= 0 else { continue }
        both.append(run.weight)
        if let first = run.threads[pair.earlier], let second = run.threads[pair.later], first != second {
          acrossThreads = true
          break
        }
        if earlier < later { agreeing.append(run.weight) }
      }
      guard !acrossThreads, WeightedStatistics.sum(agreeing) < keepingShare * WeightedStatistics.sum(both)
      else { continue }
      followers[pair.later, default: []].append(pair.earlier)
      waiting[pair.earlier] += 1
    }
    guard !followers.isEmpty else { return order }

    // A stable topological sort: the earliest entry in the order whose predecessors are all
    // placed goes next.
    let moved = waiting.map { $0 > 0 }
    var ready = MinimumHeap(order.indices.filter { waiting[$0] == 0 })
    var placed = [Bool](repeating: false, count: order.count)
    var firstUnplaced = 0
    var result: [MergedEntry] = []
    result.reserveCapacity(order.count)
    while result.count < order.count {
      let next: Int
      if let top = ready.pop() {
        next = top
        if placed[next] { continue }
      } else {
        // A cycle of overrulings (each run reverses at least one of its pairs, so it takes
        // ten or more functions): its earliest entry goes first.
        while placed[firstUnplaced] { firstUnplaced += 1 }
        next = firstUnplaced
      }
      placed[next] = true
      var entry = order[next]
      if moved[next] { entry.placement = entry.medianRank }
      result.append(entry)
      for follower in followers[next] ?? [] {
        waiting[follower] -= 1
        if waiting[follower] == 0, !placed[follower] { ready.push(follower) }
      }
    }
    return result
  }

  /// Two entries of an order, by index: `earlier` comes first in it.
  struct Pair: Hashable {
    var earlier: Int
    var later: Int
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

/// A binary min-heap of indices.
struct MinimumHeap {
  private var items: [Int] = []

  init(_ items: [Int]) {
    for item in items { push(item) }
  }

  mutating func push(_ item: Int) {
    items.append(item)
    var child = items.count - 1
    while child > 0, items[(child - 1) / 2] > items[child] {
      items.swapAt(child, (child - 1) / 2)
      child = (child - 1) / 2
    }
  }

  mutating func pop() -> Int? {
    guard let top = items.first else { return nil }
    items.swapAt(0, items.count - 1)
    items.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count, items[left] < items[smallest] { smallest = left }
      if right < items.count, items[right] < items[smallest] { smallest = right }
      if smallest == parent { return top }
      items.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

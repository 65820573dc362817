import OrderfileMerge
import Testing

private func run(_ names: String, weight: Double = 1, label: String = "run") -> RunOrder {
  RunOrder(label: label, weight: weight, names: names.split(separator: " ").map(String.init))
}

private func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

private func merged(_ runs: [RunOrder]) -> String {
  MergeRanker.rank(runs).map(\.name).joined(separator: " ")
}

@Suite("Merging launch orders")
struct MergeRankerTests {
  @Test("orders that differ slightly give the majority order")
  func majorityOrder() {
    let runs = [
      run("main a b c d e f"),
      run("main a c b d e f"),
      run("main a b c d e f"),
      run("main b a c d f e"),
      run("main a b c d e f"),
    ]
    #expect(merged(runs) == "main a b c d e f")
  }

  @Test("one run with an unusual thread schedule cannot reorder the file")
  func outlierRun() {
    let usual = run("main config parse worker_start cache_fill draw")
    // The worker thread ran first in this one run: its functions jumped ahead.
    let unusual = run("worker_start cache_fill main config parse draw")
    #expect(merged([usual, usual, unusual]) == "main config parse worker_start cache_fill draw")
    #expect(merged([unusual, usual, usual, usual]) == "main config parse worker_start cache_fill draw")
  }

  @Test("functions seen in only some runs come after those seen in all, most-seen first")
  func rareFunctionsLast() {
    let runs = [
      run("main rare_early a b c"),
      run("main a often b c"),
      run("main a b often c"),
      run("main a often b c"),
    ]
    // often: 3 of 4 runs; rare_early: 1 of 4, although it ran second.
    #expect(merged(runs) == "main a b c often rare_early")
    let entries = MergeRanker.rank(runs)
    #expect(entries.filter(\.inAllRuns).map(\.name) == ["main", "a", "b", "c"])
    #expect(entries.first { $0.name == "often" }?.presence == 0.75)
    #expect(entries.first { $0.name == "often" }?.runs == 3)
  }

  @Test("a weight counts as that many copies of the run")
  func weightsAsCopies() {
    let cold = run("main a b c", label: "cold")
    let notification = run("main b a c notify", label: "notification")
    // Equal weights: a's median is the midpoint of 1/4 through one launch and 2/5 through the
    // other, just ahead of b's.
    #expect(merged([cold, notification]) == "main a b c notify")
    // The notification launch weighted 2 outvotes the cold launch...
    var heavy = notification
    heavy.weight = 2
    #expect(merged([cold, heavy]) == "main b a c notify")
    // ...exactly as two copies of it would.
    #expect(
      MergeRanker.rank([cold, heavy]).map(\.name) == MergeRanker.rank([cold, notification, notification]).map(\.name))
    // A function only one scenario calls follows the common ones, wherever it ran.
    #expect(MergeRanker.rank([cold, heavy]).last?.name == "notify")
    #expect(MergeRanker.rank([cold, heavy]).last?.presence == 2.0 / 3.0)
  }

  @Test("weights also order the functions of different scenarios by how much weight saw them")
  func scenarioWeights() {
    let cold = run("main a b cold_only", weight: 3, label: "cold")
    let warm = run("main a b warm_only", weight: 1, label: "warm")
    #expect(merged([cold, warm]) == "main a b cold_only warm_only")
    var lightCold = cold
    lightCold.weight = 0.5
    #expect(merged([lightCold, warm]) == "main a b warm_only cold_only")
  }

  @Test("the result does not depend on the order of the runs")
  func permutationInvariance() {
    let runs = [
      run("main a b c d x", weight: 0.1),
      run("main b a c d", weight: 0.2),
      run("main a c b d y", weight: 0.3),
      run("main a b d c x", weight: 0.7),
    ]
    let expected = MergeRanker.rank(runs)
    for permutation in permutations(runs) {
      // Whole entries, statistics included, bit for bit.
      #expect(MergeRanker.rank(permutation) == expected)
    }
  }

  @Test("with a previous order, a function whose runs disagree keeps its previous place")
  func previousPlaceKept() {
    // A worker's function w starts early in some runs and late in others.
    let runs = [
      run("main w a b c d e f"), run("main a b c d e f w"), run("main a b c d e w f"),
      run("main a w b c d e f"), run("main a b c d e f w"),
    ]
    #expect(merged(runs) == "main a b c d e w f")
    let anchored = MergeRanker.rank(runs, previous: words("main a w b c d e f"))
    #expect(anchored.map(\.name).joined(separator: " ") == "main a w b c d e f")
    let w = anchored.first { $0.name == "w" }
    #expect(w?.placement != w?.medianRank)
  }

  @Test("with a previous order, a function moves only past the functions the runs put before it")
  func previousPlaceMovesLeast() {
    // Today's runs put v after c in every run, and w is a worker that starts early or late.
    // Merged without the previous order, v follows e; merged with it, v moves past c only:
    // one run (a seventh of the weight) still calls v before d. Pairs have no scale, so the
    // runs' differing lengths move nothing.
    let runs = [
      run("main a b w c d v e f g h"), run("main a b c d e v f w g h"), run("main a b c d e v f w g h", weight: 3),
      run("main a b w c v d e f g h"), run("main a b c d e v f w g h"),
    ]
    #expect(merged(runs) == "main a b c d e v f w g h")
    let anchored = MergeRanker.rank(runs, previous: words("main a b w v c d e f g h"))
    #expect(anchored.map(\.name).joined(separator: " ") == "main a b w c v d e f g h")
    // v moved: its placement is its median; w kept its previous place.
    let v = anchored.first { $0.name == "v" }
    let w = anchored.first { $0.name == "w" }
    #expect(v?.placement == v?.medianRank)
    #expect(w?.placement != w?.medianRank)
  }

  @Test("with a previous order, functions reordered only across threads keep their order; one thread's still move")
  func threadTimingKept() {
    // The main thread (1) runs m0…m7; a worker (2) runs w0 w1. Yesterday the worker started
    // early, today late (a loaded machine): every run reverses w0 and m2…m5, but only across
    // threads. m4 and m3 also swapped places on the main thread: that is the program's order.
    func threaded(_ names: String, weight: Double = 1) -> RunOrder {
      let list = words(names)
      return RunOrder(
        label: "run", weight: weight, names: list, threads: list.map { $0.hasPrefix("w") ? 2 : 1 })
    }
    let previous = words("m0 m1 w0 w1 m2 m3 m4 m5 m6 m7")
    let today = [
      threaded("m0 m1 m2 m4 m3 m5 w0 w1 m6 m7", weight: 3), threaded("m0 m1 m2 m4 m3 w0 m5 w1 m6 m7"),
      threaded("m0 m1 m2 m4 m3 m5 m6 w0 w1 m7"),
    ]
    #expect(
      MergeRanker.rank(today, previous: previous).map(\.name).joined(separator: " ")
        == "m0 m1 w0 w1 m2 m4 m3 m5 m6 m7")
    // Without threads the same runs look like the program's order, and the worker moves.
    let unthreaded = today.map { RunOrder(label: $0.label, weight: $0.weight, names: $0.names) }
    #expect(
      MergeRanker.rank(unthreaded, previous: previous).map(\.name).joined(separator: " ")
        == "m0 m1 m2 m4 m3 w0 m5 w1 m6 m7")
  }

  @Test("with a previous order, a pool's jobs that ran on one worker today and on two yesterday keep their order")
  func jobQueueKept() {
    // Two jobs, a (a1 a2) and b (b1 b2), each calling `done` at its end, go to a pool of
    // workers. Yesterday they ran on two workers at once; today, on a loaded machine, one
    // worker ran a, then b, in nine launches of ten: on that thread b1 and b2 now follow
    // done and a2. In the tenth launch b ran on a second worker, later: which worker runs a
    // job is timing, so the order of its code against the other job's is too.
    func launch(bThread: UInt32) -> RunOrder {
      let names = words("m0 a1 a2 done b1 b2 m1")
      let threads: [UInt32] = [1, 2, 2, 2, bThread, bThread, 1]
      return RunOrder(label: "run", names: names, threads: threads)
    }
    let previous = words("m0 a1 b1 a2 b2 done m1")
    let today = Array(repeating: launch(bThread: 2), count: 9) + [launch(bThread: 3)]
    #expect(MergeRanker.rank(today, previous: previous).map(\.name) == previous)
    // Had every launch run b on the same worker as a, nothing would show its order is timing:
    // the runs' order is the program's, and it moves.
    #expect(
      MergeRanker.rank(Array(repeating: launch(bThread: 2), count: 10), previous: previous).map(\.name)
        == words("m0 a1 a2 done b1 b2 m1"))
  }

  @Test(
    "merging twice on unchanged code with thread timing that differs: the second merge keeps the first's order",
    arguments: [1, 2, 3, 4, 5] as [UInt64])
  func unchangedTwice(seed: UInt64) {
    var random = SplitMix(seed: seed)
    let first = MergeRanker.rank(interleavedRuns(&random, workerDelay: 0...12))
    // The second day the workers start later and spread wider, as on a loaded machine.
    let second = MergeRanker.rank(interleavedRuns(&random, workerDelay: 4...24), previous: first.map(\.name))
    #expect(second.map(\.name) == first.map(\.name))
  }

  @Test("with a previous order, a function the runs agree has moved still moves")
  func previousPlaceOverruled() {
    let runs = [run("main a b c late"), run("main a b c late"), run("main a b c late")]
    let anchored = MergeRanker.rank(runs, previous: words("late main a b c"))
    #expect(anchored.map(\.name).joined(separator: " ") == "main a b c late")
  }

  @Test("a previous order the runs reverse throughout is another program's: the merge starts afresh")
  func previousReversed() {
    // Two threads take turns: every pair across them would keep its reversed order, as
    // thread timing, were the previous order weighed pair by pair.
    let names = (0..<300).map { "f\($0)" }
    let threads = names.indices.map { UInt32($0 % 2) }
    let runs = [
      RunOrder(label: "a", names: names, threads: threads),
      RunOrder(label: "b", weight: 2, names: names, threads: threads),
    ]
    let anchored = MergeRanker.rank(runs, previous: names.reversed())
    #expect(anchored == MergeRanker.rank(runs))
    #expect(anchored.allSatisfy { $0.placement == $0.medianRank })
  }

  @Test("with a previous order the result still does not depend on the order of the runs")
  func previousPermutationInvariance() {
    let runs = [
      run("main w a b c", weight: 3), run("main a b c w", weight: 1), run("main a w b c", weight: 2),
      run("main a b w c new", weight: 0.5),
    ]
    let previous = words("main a w b gone c")
    let expected = MergeRanker.rank(runs, previous: previous)
    for permutation in permutations(runs) { #expect(MergeRanker.rank(permutation, previous: previous) == expected) }
  }

  @Test("a single run merges to its own order")
  func singleRun() {
    #expect(merged([run("main z a m b")]) == "main z a m b")
  }

  @Test("a name repeated within a run counts at its first position")
  func repeatedNames() {
    #expect(merged([run("main a b a c"), run("main a b c")]) == "main a b c")
  }

  @Test("normalized ranks compare runs of different lengths")
  func normalizedRanks() {
    let entries = MergeRanker.rank([run("a b"), run("a b c d")])
    // a: (0.5/2, 0.5/4) → median is their midpoint.
    #expect(entries[0].name == "a")
    #expect(entries[0].medianRank == (0.25 + 0.125) / 2)
  }
}

/// Every ordering of `items`.
func permutations<T>(_ items: [T]) -> [[T]] {
  guard items.count > 1 else { return [items] }
  var result: [[T]] = []
  for index in items.indices {
    var rest = items
    let item = rest.remove(at: index)
    for tail in permutations(rest) { result.append([item] + tail) }
  }
  return result
}

/// A reproducible generator (SplitMix64), so the interleavings are the same on every run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Ten launches of one program (weights 3 and 1, as two scenarios): the main thread calls
/// 40 functions, three workers call 4 each, in a fixed order per thread; each worker starts
/// after a random number of the main thread's calls in `workerDelay`, and its calls
/// interleave with the main thread's at random. Some functions the main thread and a
/// worker both call: whichever calls first records it.
func interleavedRuns(_ random: inout SplitMix, workerDelay: ClosedRange<Int>) -> [RunOrder] {
  let main = (0..<40).map { "main_\($0)" }
  let workers = (1...3).map { worker in (0..<4).map { "worker\(worker)_\($0)" } + ["shared_\(worker)"] }
  return (0..<10).map { number in
    var queues = [main + (1...3).map { "shared_\($0)" }] + workers
    let starts = [0] + workers.map { _ in Int.random(in: workerDelay, using: &random) }
    var names: [String] = []
    var threads: [UInt32] = []
    var seen = Set<String>()
    while queues.contains(where: { !$0.isEmpty }) {
      let started = queues.indices.filter { !queues[$0].isEmpty && starts[$0] <= names.count }
      let ready = started.isEmpty ? queues.indices.filter { !queues[$0].isEmpty } : started
      // The main thread runs two calls in three; otherwise any thread that is ready.
      let thread =
        Int.random(in: 0..<3, using: &random) > 0 ? ready[0] : ready[Int.random(in: ready.indices, using: &random)]
      let name = queues[thread].removeFirst()
      if seen.insert(name).inserted {
        names.append(name)
        threads.append(UInt32(thread + 1))
      }
    }
    return RunOrder(label: "run\(number)", weight: number < 5 ? 3 : 1, names: names, threads: threads)
  }
}

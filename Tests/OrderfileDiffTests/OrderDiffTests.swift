import Testing

@testable import OrderfileDiff

private func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

@Suite("Comparing two orders")
struct OrderDiffTests {
  @Test("the same order: nothing added, removed or moved")
  func identical() {
    let diff = OrderDiff(base: words("a b c"), head: words("a b c"))
    #expect(diff.summary.isIdentical)
    #expect(diff.summary.churn == 0)
    #expect(diff.changes.isEmpty)
  }

  @Test("an insertion pushes the rest down without moving them")
  func insertionIsNotAMove() {
    let diff = OrderDiff(base: words("a b c d"), head: words("new a b c d"))
    #expect(diff.summary.added == 1)
    #expect(diff.summary.moved == 0)
    #expect(diff.summary.unchanged == 4)
    #expect(diff.changes == [OrderChange(kind: .new, name: "new", baseRank: nil, headRank: 1, move: nil, magnitude: 4)])
  }

  @Test("a swap of two neighbours is one move")
  func swapIsOneMove() {
    let diff = OrderDiff(base: words("a b c d"), head: words("a c b d"))
    #expect(diff.summary.moved == 1)
    #expect(diff.summary.churn == 0.25)
    #expect(diff.changes.count == 1)
    #expect(abs(diff.changes[0].move ?? 0) == 1)
  }

  @Test("one entry moving far is one move with its signed distance")
  func farMove() {
    let diff = OrderDiff(base: words("a b c d e f"), head: words("a c d e f b"))
    #expect(diff.summary.moved == 1)
    #expect(diff.changes == [OrderChange(kind: .moved, name: "b", baseRank: 2, headRank: 6, move: 4, magnitude: 4)])
    // Moves count places among the shared entries: the insertion above does not add to it.
    let shifted = OrderDiff(base: words("a b c d e f"), head: words("new a c d e f b"))
    #expect(
      shifted.changes.last == OrderChange(kind: .moved, name: "b", baseRank: 2, headRank: 7, move: 4, magnitude: 4))
  }

  @Test("changes are sorted by how many entries they shift")
  func sortedBySize() {
    // gone (rank 2 of 6) shifts 4 entries; late_new (last) shifts none; e moves up 3.
    let diff = OrderDiff(base: words("a gone b c d e"), head: words("a e b c d late_new"))
    #expect(diff.changes.map(\.name) == ["gone", "e", "late_new"])
    #expect(diff.changes.map(\.magnitude) == [4, 3, 0])
    #expect(diff.changes[1].move == -3)
    #expect(diff.summary.churn == 3.0 / 7.0)
  }

  @Test("everything is new against an empty base")
  func emptyBase() {
    let diff = OrderDiff(base: [], head: words("a b c"))
    #expect(diff.summary.added == 3)
    #expect(diff.changes.map(\.name) == ["a", "b", "c"])
    #expect(diff.summary.churn == 1)
  }

  @Test("the longest kept run is a longest increasing subsequence")
  func longestIncreasing() {
    #expect(OrderDiff.longestIncreasing([3, 1, 2, 5, 4]).count == 3)
    #expect(OrderDiff.longestIncreasing([]).isEmpty)
    #expect(OrderDiff.longestIncreasing([0, 1, 2]) == [0, 1, 2])
  }
}

import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite struct PartitioningIndexTests {
  /// Every threshold over sorted arrays with repeats, against a linear scan.
  @Test func agreesWithALinearScan() {
    var generator = SplitMix64(seed: 24)
    for _ in 0..<500 {
      let values = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
        UInt64.random(in: 0...30, using: &generator)
      }.sorted()
      for threshold in 0...31 as ClosedRange<UInt64> {
        let expected = values.firstIndex { $0 >= threshold } ?? values.endIndex
        #expect(values.partitioningIndex { $0 >= threshold } == expected, "\(values) at \(threshold)")
      }
    }
  }

  @Test func worksOnASliceWithItsOwnIndices() {
    let slice = [1, 2, 3, 4, 5, 6][2...]
    #expect(slice.partitioningIndex { $0 > 4 } == 4)
    #expect(slice.partitioningIndex { $0 > 9 } == slice.endIndex)
    #expect(slice.partitioningIndex { _ in true } == slice.startIndex)
  }
}

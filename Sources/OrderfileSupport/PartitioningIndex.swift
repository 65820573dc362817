extension RandomAccessCollection {
  /// The index of the first element for which `belongs` is true, in a collection where every
  /// such element comes after every other (a sorted array cut by a threshold); `endIndex`
  /// when there is none. A binary search: O(log n) calls of `belongs`.
  ///
  /// With elements sorted by address, `partitioningIndex { $0 > address }` is one past the
  /// last element at or before `address`.
  @inlinable
  public func partitioningIndex(where belongs: (Element) throws -> Bool) rethrows -> Index {
    var low = startIndex
    var count = self.count
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if try belongs(self[middle]) {
        count = half
      } else {
        low = index(after: middle)
        count -= half + 1
      }
    }
    return low
  }
}

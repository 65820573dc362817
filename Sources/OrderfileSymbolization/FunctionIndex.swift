import OrderfileSupport

/// One function symbol as the symbol table lists it, before symbols at one address are folded.
struct RawFunctionSymbol: Hashable, Sendable {
  var name: String
  var address: UInt64
  var size: UInt64
  var binding: SymbolBinding
  var sectionName: String
  var sectionAlignment: UInt64
  /// False for a function found only by its call-frame information.
  var hasSymbol = true
}

/// Function symbols sorted by address, folded one per address, for binary search.
///
/// Built once per binary; every lookup is O(log n) plus a walk back over functions that
/// overlap the address, which only happens when functions nest.
struct FunctionIndex: Sendable {
  /// Sorted by address, one per address.
  private(set) var functions: [FunctionSymbol]
  private let ranges: AddressRanges

  init(_ symbols: [RawFunctionSymbol]) {
    let arrangement = Self.arrange(
      addresses: symbols.map(\.address), sizes: symbols.map(\.size), bindings: symbols.map(\.binding)
    ) { symbols[$0].name }
    functions = arrangement.functions.map { function in
      let primary = symbols[function.primary]
      guard function.symbols.count > 1 else { return Self.single(primary) }
      let aliases = Set(arrangement.order[function.symbols].map { symbols[$0].name }).subtracting([primary.name])
      return FunctionSymbol(
        name: primary.name, aliases: aliases.sorted(), address: primary.address, size: primary.size,
        binding: primary.binding, sectionName: primary.sectionName, sectionAlignment: primary.sectionAlignment)
    }
    ranges = AddressRanges(starts: functions.map(\.address), sizes: functions.map(\.size))
  }

  /// The innermost function holding `address`, if any.
  func function(containing address: UInt64) -> FunctionSymbol? {
    ranges.position(containing: address).map { functions[$0] }
  }

  /// The last function with a symbol that starts before `address`.
  func function(before address: UInt64) -> FunctionSymbol? {
    let low = ranges.starts.partitioningIndex { $0 >= address }
    return functions[..<low].last { $0.hasSymbol }
  }

  /// The same functions, each with the input section `map` places at its address.
  func withInputSections(from map: LinkMap) -> FunctionIndex {
    var copy = self
    copy.functions = functions.map { function in
      var function = function
      function.inputSection = map.inputSection(containing: function.address)
      return function
    }
    return copy
  }

  /// The symbols of a table arranged into functions, one per address, in address order.
  struct Arrangement {
    /// Positions in the symbol list, sorted by address.
    var order: [Int]
    /// Per function: the range of `order` holding its symbols, and the position of the one
    /// that names it.
    var functions: [(symbols: Range<Int>, primary: Int)]
  }

  /// The one rule that turns symbols into functions, for every index: the symbols at one
  /// address fold into one function named by its primary (`ranks`), and a symbol without a
  /// size inside a sized function before it is a label within that function, not a function.
  ///
  /// - Parameter name: the name of the symbol at a position; asked only for the symbols of
  ///   an address that several share.
  static func arrange(
    addresses: [UInt64], sizes: [UInt64], bindings: [SymbolBinding], name: (Int) -> String
  ) -> Arrangement {
    // The order inside a group of one address does not matter: the primary is chosen by rule.
    let order = AddressRanges.sortedPositions(addresses)
    var functions: [(symbols: Range<Int>, primary: Int)] = []
    functions.reserveCapacity(order.count)
    var groupStart = 0
    var reachSoFar: UInt64 = 0
    while groupStart < order.count {
      let address = addresses[order[groupStart]]
      var groupEnd = groupStart + 1
      while groupEnd < order.count && addresses[order[groupEnd]] == address { groupEnd += 1 }
      let group = groupStart..<groupEnd
      groupStart = groupEnd
      let primary =
        group.count == 1
        ? order[group.lowerBound] : Self.primary(of: order[group], sizes: sizes, bindings: bindings, name: name)
      if sizes[primary] == 0 && address < reachSoFar { continue }
      functions.append((group, primary))
      reachSoFar = max(reachSoFar, AddressRanges.end(address, sizes[primary]))
    }
    return Arrangement(order: order, functions: functions)
  }

  /// The symbol that names a function among those at its address: a sized one before one
  /// without a size, then by `ranks`.
  private static func primary(
    of group: ArraySlice<Int>, sizes: [UInt64], bindings: [SymbolBinding], name: (Int) -> String
  ) -> Int {
    let sized = group.filter { sizes[$0] > 0 }
    let candidates = sized.isEmpty ? Array(group) : sized
    let names = candidates.map(name)
    // Not empty: a group always has at least one symbol.
    var best = 0
    for candidate in candidates.indices.dropFirst()
    where ranks((bindings[candidates[candidate]], names[candidate]), before: (bindings[candidates[best]], names[best]))
    {
      best = candidate
    }
    return candidates[best]
  }

  /// The function of a symbol alone at its address.
  private static func single(_ only: RawFunctionSymbol) -> FunctionSymbol {
    FunctionSymbol(
      name: only.name, aliases: [], address: only.address, size: only.size, binding: only.binding,
      sectionName: only.sectionName, sectionAlignment: only.sectionAlignment, hasSymbol: only.hasSymbol)
  }

  /// Global before weak before local, then the shorter name, then the one that sorts first.
  private static func ranks(_ lhs: (SymbolBinding, String), before rhs: (SymbolBinding, String)) -> Bool {
    func order(_ binding: SymbolBinding) -> Int {
      switch binding {
      case .global: return 0
      case .weak: return 1
      case .local: return 2
      }
    }
    return (order(lhs.0), lhs.1.utf8.count, lhs.1) < (order(rhs.0), rhs.1.utf8.count, rhs.1)
  }
}

/// The address ranges of functions sorted by start, for the innermost one holding an address.
struct AddressRanges: Sendable {
  /// Each function's start, sorted, kept apart so the search touches one dense array.
  let starts: [UInt64]
  /// Every `blockSize`th start: a search narrows to one block in this small array, which
  /// stays in cache, before it touches `starts` at all.
  private let blockStarts: [UInt64]
  private static let blockSize = 64
  /// Each function's size, beside `starts`: a lookup tests each candidate without copying it.
  private let sizes: [UInt64]
  /// The largest end address (exclusive) of functions `0...i`: how far back a lookup may
  /// have to walk before no earlier function can reach the address.
  private let reach: [UInt64]

  init(starts: [UInt64], sizes: [UInt64]) {
    self.starts = starts
    self.sizes = sizes
    blockStarts = stride(from: 0, to: starts.count, by: Self.blockSize).map { starts[$0] }
    var running: UInt64 = 0
    reach = starts.indices.map { index in
      running = max(running, Self.end(starts[index], sizes[index]))
      return running
    }
  }

  /// The position of the innermost function holding `address`, if any.
  func position(containing address: UInt64) -> Int? {
    innermost(containing: address, lastStart: lastStart(atOrBefore: address))
  }

  /// `position(containing:)` of each of `addresses`, -1 for none, found in address order
  /// (`order`, from `sortedPositions`), so that one walk forward over `starts` replaces a
  /// search per address.
  func positions(containing addresses: [UInt64], order: [Int]) -> [Int] {
    var found = [Int](repeating: -1, count: addresses.count)
    var last = -1
    for query in order {
      let address = addresses[query]
      while last + 1 < starts.count && starts[last + 1] <= address { last += 1 }
      found[query] = innermost(containing: address, lastStart: last) ?? -1
    }
    return found
  }

  /// The innermost function holding `address`, given the last one that starts at or before it.
  private func innermost(containing address: UInt64, lastStart: Int) -> Int? {
    var index = lastStart
    while index >= 0 {
      // As `FunctionSymbol.contains`, on the dense arrays.
      let offset = address - starts[index]
      if sizes[index] == 0 ? offset == 0 : offset < sizes[index] { return index }
      // Walk back only while an earlier function still reaches past `address`.
      guard index > 0, reach[index - 1] > address else { return nil }
      index -= 1
    }
    return nil
  }

  /// The position of the last function that starts at or before `address`; -1 when none does.
  private func lastStart(atOrBefore address: UInt64) -> Int {
    let block = blockStarts.partitioningIndex { $0 > address } - 1
    guard block >= 0 else { return -1 }
    let low = block * Self.blockSize
    let high = min(low + Self.blockSize, starts.count)
    return starts[low..<high].partitioningIndex { $0 > address } - 1
  }

  /// Positions of `addresses` sorted by address, those of one address in any order.
  static func sortedPositions(_ addresses: [UInt64]) -> [Int] {
    // Address and position packed into one integer sort fastest, when both fit.
    let positionBits = max(1, UInt64.bitWidth - UInt64(max(addresses.count, 1)).leadingZeroBitCount)
    guard positionBits < 32, addresses.allSatisfy({ $0 >> (64 - positionBits) == 0 }) else {
      return addresses.indices.sorted { addresses[$0] < addresses[$1] }
    }
    var keys = addresses.indices.map { addresses[$0] << positionBits | UInt64($0) }
    radixSort(&keys)
    let mask = UInt64(1) << positionBits - 1
    return keys.map { Int($0 & mask) }
  }

  /// Sorts `keys` 16 bits at a time from the lowest, in as many passes as the largest needs:
  /// a few passes over the array where a comparison sort makes ~18 over 250k keys.
  private static func radixSort(_ keys: inout [UInt64]) {
    guard keys.count > 1, let largest = keys.max() else { return }
    let passes = (UInt64.bitWidth - largest.leadingZeroBitCount + 15) / 16
    var other = [UInt64](repeating: 0, count: keys.count)
    var counts = [Int](repeating: 0, count: 1 << 16)
    for pass in 0..<passes {
      let shift = UInt64(pass * 16)
      keys.withUnsafeBufferPointer { source in
        other.withUnsafeMutableBufferPointer { target in
          counts.withUnsafeMutableBufferPointer { counts in
            counts.update(repeating: 0)
            for key in source { counts[Int(key >> shift & 0xffff)] += 1 }
            var total = 0
            for digit in counts.indices {
              let count = counts[digit]
              counts[digit] = total
              total += count
            }
            for key in source {
              let digit = Int(key >> shift & 0xffff)
              target[counts[digit]] = key
              counts[digit] += 1
            }
          }
        }
      }
      swap(&keys, &other)
    }
  }

  /// The exclusive end of a function; a function without a size ends where it starts.
  static func end(_ start: UInt64, _ size: UInt64) -> UInt64 {
    let (end, overflow) = start.addingReportingOverflow(size)
    return overflow ? UInt64.max : end
  }
}

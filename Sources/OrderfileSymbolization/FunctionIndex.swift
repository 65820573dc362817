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
  /// `functions[i].address`, kept apart so the search touches one dense array.
  private let starts: [UInt64]
  /// Every `blockSize`th start: a search narrows to one block in this small array, which
  /// stays in cache, before it touches `starts` at all.
  private let blockStarts: [UInt64]
  private static let blockSize = 64
  /// `functions[i].size`, beside `starts`: a lookup tests each candidate without copying it.
  private let sizes: [UInt64]
  /// The largest end address (exclusive) of `functions[0...i]`: how far back a lookup may
  /// have to walk before no earlier function can reach the address.
  private let reach: [UInt64]

  init(_ symbols: [RawFunctionSymbol]) {
    var folded = [FunctionSymbol]()
    folded.reserveCapacity(symbols.count)
    // Sort positions by address alone: comparing plain integers keeps the sort free of
    // string comparisons and reference counting. The order inside a group of one address
    // does not matter, since folding picks the primary name by rule.
    let addresses = symbols.map(\.address)
    let order = symbols.indices.sorted { addresses[$0] < addresses[$1] }
    var groupStart = 0
    var reachSoFar: UInt64 = 0
    while groupStart < order.count {
      var groupEnd = groupStart + 1
      while groupEnd < order.count && addresses[order[groupEnd]] == addresses[order[groupStart]] {
        groupEnd += 1
      }
      let function =
        groupEnd == groupStart + 1
        ? Self.single(symbols[order[groupStart]])
        : Self.fold(order[groupStart..<groupEnd].map { symbols[$0] }[...])
      groupStart = groupEnd
      // A symbol without a size inside a sized function is a label within it, not a function.
      if function.size == 0 && function.address < reachSoFar { continue }
      folded.append(function)
      reachSoFar = max(reachSoFar, Self.end(of: function))
    }
    functions = folded
    starts = folded.map(\.address)
    sizes = folded.map(\.size)
    blockStarts = stride(from: 0, to: folded.count, by: Self.blockSize).map { folded[$0].address }
    var running: UInt64 = 0
    reach = folded.map { function in
      running = max(running, Self.end(of: function))
      return running
    }
  }

  /// The innermost function holding `address`, if any.
  func function(containing address: UInt64) -> FunctionSymbol? {
    var index = lastStart(atOrBefore: address)
    while index >= 0 {
      // As `FunctionSymbol.contains`, on the dense arrays.
      let offset = address - starts[index]
      if sizes[index] == 0 ? offset == 0 : offset < sizes[index] { return functions[index] }
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

  /// The last function with a symbol that starts before `address`.
  func function(before address: UInt64) -> FunctionSymbol? {
    let low = starts.partitioningIndex { $0 >= address }
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

  /// The exclusive end of a function; a function without a size ends where it starts.
  private static func end(of function: FunctionSymbol) -> UInt64 {
    let (end, overflow) = function.address.addingReportingOverflow(function.size)
    return overflow ? UInt64.max : end
  }

  /// The function of a symbol alone at its address.
  private static func single(_ only: RawFunctionSymbol) -> FunctionSymbol {
    FunctionSymbol(
      name: only.name, aliases: [], address: only.address, size: only.size, binding: only.binding,
      sectionName: only.sectionName, sectionAlignment: only.sectionAlignment, hasSymbol: only.hasSymbol)
  }

  /// Folds the symbols at one address into one function.
  private static func fold(_ group: ArraySlice<RawFunctionSymbol>) -> FunctionSymbol {
    if group.count == 1, let only = group.first { return single(only) }
    let sized = group.filter { $0.size > 0 }
    let candidates = sized.isEmpty ? Array(group) : sized
    // Not empty: a group always has at least one symbol.
    var primary = candidates[0]
    for candidate in candidates.dropFirst() where ranks(candidate, before: primary) {
      primary = candidate
    }
    let aliases = Set(group.map(\.name)).subtracting([primary.name]).sorted()
    return FunctionSymbol(
      name: primary.name, aliases: aliases, address: primary.address, size: primary.size,
      binding: primary.binding, sectionName: primary.sectionName,
      sectionAlignment: primary.sectionAlignment)
  }

  /// Global before weak before local, then the shorter name, then the one that sorts first.
  private static func ranks(_ lhs: RawFunctionSymbol, before rhs: RawFunctionSymbol) -> Bool {
    func order(_ binding: SymbolBinding) -> Int {
      switch binding {
      case .global: return 0
      case .weak: return 1
      case .local: return 2
      }
    }
    return (order(lhs.binding), lhs.name.utf8.count, lhs.name)
      < (order(rhs.binding), rhs.name.utf8.count, rhs.name)
  }
}

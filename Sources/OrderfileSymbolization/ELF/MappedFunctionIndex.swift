import CLibdw

/// The functions `ELFSymbolizer` indexes in a file with its own `.symtab` and no link map,
/// for naming addresses only: the same functions under the same names, with each name left
/// in the mapped string table until an address asks for it.
///
/// Opening a large binary with `ELFSymbolizer` makes a `String` for each of its ~250k
/// symbols and a `FunctionSymbol` for each function, and reads its data objects; naming a
/// list of addresses needs none of that. Here each symbol is four integers, the fold and
/// label rules are `FunctionIndex.arrange`'s, and code without a symbol is found by
/// `ELFSymbolizer.functionsWithoutSymbol`, as there.
final class MappedFunctionIndex {
  /// Keeps libelf's mapping, which `strings` points into, alive.
  private let file: ELFFile
  private let strings: MappedSymbolTable.Strings
  private let ranges: AddressRanges
  /// Per function, its name: `>= 0` an offset in `strings`, else `~index` in `madeNames`.
  private let names: [Int]
  /// The names of the code without a symbol, one after another, and where each ends.
  private let madeNames: UnsafeMutableBufferPointer<UInt8>
  private let madeNameEnds: [Int]

  /// Indexes `file`'s `.symtab`; nil when `MappedSymbolTable` leaves the table to libdwfl
  /// or the file has none, and the caller should use `ELFSymbolizer`.
  init?(file: ELFFile) {
    var addresses: [UInt64] = []
    var sizes: [UInt64] = []
    var bindings: [SymbolBinding] = []
    var nameOffsets: [Int] = []
    var untyped: [RawFunctionSymbol] = []
    let walked = MappedSymbolTable.walk(file) { record, strings in
      switch record.type {
      case STT_OBJECT: return
      case STT_NOTYPE:
        let section = strings.section(of: record)
        untyped.append(
          RawFunctionSymbol(
            name: strings.string(at: record.nameOffset), address: record.address, size: record.size,
            binding: record.binding, sectionName: section?.name ?? "", sectionAlignment: section?.alignment ?? 1))
      default:
        addresses.append(record.address)
        sizes.append(record.size)
        bindings.append(record.binding)
        nameOffsets.append(record.nameOffset)
      }
    }
    guard let strings = walked else { return nil }
    self.file = file
    self.strings = strings
    func name(_ reference: Int, made: [String]) -> String {
      reference >= 0 ? strings.string(at: reference) : made[~reference]
    }
    var named = FunctionIndex.arrange(addresses: addresses, sizes: sizes, bindings: bindings) {
      strings.string(at: nameOffsets[$0])
    }
    var namedRanges = AddressRanges(
      starts: named.functions.map { addresses[$0.primary] }, sizes: named.functions.map { sizes[$0.primary] })
    let unnamed = ELFSymbolizer.functionsWithoutSymbol(
      in: file, untyped: untyped, linkMap: nil, covered: { namedRanges.position(containing: $0) != nil },
      before: { address in
        let position = namedRanges.starts.partitioningIndex { $0 >= address } - 1
        guard position >= 0 else { return nil }
        let primary = named.functions[position].primary
        return (strings.string(at: nameOffsets[primary]), addresses[primary])
      })
    var references = nameOffsets
    if !unnamed.isEmpty {
      for (index, function) in unnamed.enumerated() {
        addresses.append(function.address)
        sizes.append(function.size)
        bindings.append(function.binding)
        references.append(~index)
      }
      let made = unnamed.map(\.name)
      named = FunctionIndex.arrange(addresses: addresses, sizes: sizes, bindings: bindings) {
        name(references[$0], made: made)
      }
      namedRanges = AddressRanges(
        starts: named.functions.map { addresses[$0.primary] }, sizes: named.functions.map { sizes[$0.primary] })
    }
    ranges = namedRanges
    names = named.functions.map { references[$0.primary] }
    let madeBytes = unnamed.flatMap(\.name.utf8)
    madeNames = .allocate(capacity: madeBytes.count)
    _ = madeNames.initialize(from: madeBytes)
    var end = 0
    madeNameEnds = unnamed.map { function in
      end += function.name.utf8.count
      return end
    }
  }

  deinit {
    madeNames.deallocate()
  }

  /// The linkage name, as UTF-8 bytes, of the function holding each of `addresses` (the
  /// innermost); nil for none. The bytes stay valid while this index lives.
  ///
  /// - Parameter order: the positions of `addresses` in address order
  ///   (`AddressRanges.sortedPositions`): the names are found in that order, which is
  ///   nearly the string table's, so that its pages are read in turn.
  func names(containing addresses: [UInt64], order: [Int]) -> [UnsafeBufferPointer<UInt8>?] {
    let positions = ranges.positions(containing: addresses, order: order)
    var found = [UnsafeBufferPointer<UInt8>?](repeating: nil, count: addresses.count)
    for query in order where positions[query] >= 0 {
      let reference = names[positions[query]]
      if reference >= 0 {
        found[query] = strings.name(at: reference)
      } else {
        let start = ~reference == 0 ? 0 : madeNameEnds[~reference - 1]
        found[query] = UnsafeBufferPointer(rebasing: madeNames[start..<madeNameEnds[~reference]])
      }
    }
    return found
  }
}

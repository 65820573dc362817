import OrderfileOrdering
import OrderfileSymbolization
import OrderfileTrace

/// The pages of read-only data a launch touches at one page size: in the binary as it is,
/// and under an order that places the launch's data (`record --data`, `generate`).
public struct DataPageCounts: Codable, Sendable, Equatable {
  public var pageSize: UInt64
  /// Distinct pages of the module's read-only data the trace saw touched.
  public var current: Int
  /// The same with the order's data placed first in its output sections; nil without a
  /// link map of the binary, which says where each input section lies.
  public var ordered: Int?
}

/// Counts the launch's read-only data pages from a trace's data touches, and simulates them
/// under an order as lld lays the data out: in each output section, the input sections the
/// order names first, in its order, then every other one in its present order, each at its
/// alignment from the section's start. A merged section an lld script names for some
/// objects counts as moved whole, as it is when those are all the objects that have one. A touch outside the link map's data sections (the
/// ELF header, symbol tables, `.eh_frame`, `.got`) stays on its page.
public enum DataPages {
  /// - Parameter order: the orderfile's format and entry lines, as `OrderfileFormat.lines`
  ///   writes them.
  public static func count(
    touches: [DataTouch], binary: ELFSymbolizer, order: (format: OrderfileFormat, lines: [String]),
    pageSizes: [UInt64]
  ) -> [DataPageCounts] {
    guard !touches.isEmpty else { return [] }
    let current = touches.map(\.address)
    let moved = binary.linkMap.map { Self.moved(current, map: $0, objects: binary.dataObjects, order: order) }
    return pageSizes.map { pageSize in
      DataPageCounts(
        pageSize: pageSize, current: Set(current.map { $0 / pageSize }).count,
        ordered: moved.map { Set($0.map { $0 / pageSize }).count })
    }
  }

  /// Each address once the order's input sections lead their output sections.
  static func moved(
    _ addresses: [UInt64], map: LinkMap, objects: [DataObject], order: (format: OrderfileFormat, lines: [String])
  ) -> [UInt64] {
    var rank: [String: Int] = [:]
    // A merged section (`<internal>`: literals, constants) moves where an lld script first
    // names that section of an object: the objects' pieces merge there (see `LaunchData`).
    var mergedRank: [String: Int] = [:]
    for (index, line) in order.lines.enumerated() {
      if rank[line] == nil { rank[line] = index }
      if order.format == .lldScript, let input = InputSection(description: String(line.drop { $0 == "*" })),
        mergedRank[input.section] == nil
      {
        mergedRank[input.section] = index
      }
    }
    var start: [UInt64: UInt64] = [:]
    for (outputSection, placements) in Dictionary(grouping: map.dataPlacements, by: \.outputSection) {
      guard let first = placements.first, let section = DataSection(outputSection: outputSection) else { continue }
      // The earliest line that names the input section, by its own name or by a symbol in it.
      func position(_ placement: LinkMap.Placement) -> Int? {
        if placement.input.object == "<internal>" { return mergedRank[placement.input.section] }
        let range = placement.address..<(placement.address + placement.size)
        let names = LaunchData.objects(in: objects, within: range).map(\.name)
        let pieces =
          [LaunchDataPiece(name: nil, input: placement.input, outputSection: section, size: placement.size)]
          + names.map { LaunchDataPiece(name: $0, input: nil, outputSection: section, size: 0) }
        return pieces.flatMap(order.format.lines(for:)).compactMap { rank[$0] }.min()
      }
      let positions = placements.map(position)
      let leading = zip(placements, positions).compactMap { placement, position in position.map { (placement, $0) } }
        .sorted { $0.1 < $1.1 }.map(\.0)
      let rest = zip(placements, positions).filter { $0.1 == nil }.map(\.0)
      var address = first.address
      for placement in leading + rest {
        address = (address + placement.alignment - 1) / placement.alignment * placement.alignment
        start[placement.address] = address
        address += placement.size
      }
    }
    return addresses.map { address in
      guard let placement = map.dataPlacement(containing: address), let moved = start[placement.address] else {
        return address
      }
      return moved + (address - placement.address)
    }
  }
}

import OrderfileSymbolization
import OrderfileTrace

/// One piece of the launch's read-only data: a named object, an input section of the link
/// map, or both (a named object's own section under `-fdata-sections`).
public struct LaunchDataPiece: Sendable, Equatable {
  /// The data object's symbol, when it has one: a symbol orderfile places it by this name.
  public var name: String?
  /// Its input section, when the link map names one: an lld script places it by this, named
  /// or not (a jump table in `.rodata.<function>`, a Swift metadata piece).
  public var input: InputSection?
  /// The output section it lies in.
  public var outputSection: DataSection
  public var size: UInt64

  public init(name: String?, input: InputSection?, outputSection: DataSection, size: UInt64) {
    self.name = name
    self.input = input
    self.outputSection = outputSection
    self.size = size
  }

  /// The input section an lld script names it by: the map's, else the one `-fdata-sections`
  /// gives a named object, in whichever object holds it.
  public var scriptInput: InputSection? {
    input ?? name.map { InputSection(object: "", section: outputSection.name + "." + $0) }
  }
}

/// The read-only data a launch touched in one module, as orderfile entries: the object or
/// input section holding each address the launch touched first, in first-touch order, each
/// once; a sparse piece (larger than a page, under a quarter of its bytes in touched
/// granules) goes last.
public struct LaunchData: Sendable, Equatable {
  public var pieces: [LaunchDataPiece]
  /// Pages of the module's read-only data the launch touched (`Trace.dataTouches`).
  public var touchedPages: Int
  /// The linker's own merged sections the launch touched (`<internal>`: string literals,
  /// constants): neither a symbol nor an object names them, so no orderfile moves them.
  public var mergedSections: [String]

  public init(pieces: [LaunchDataPiece] = [], touchedPages: Int = 0, mergedSections: [String] = []) {
    self.pieces = pieces
    self.touchedPages = touchedPages
    self.mergedSections = mergedSections
  }

  /// The pieces a symbol orderfile can name.
  public var named: [LaunchDataPiece] { pieces.filter { $0.name != nil } }

  /// The launch data of module `module` in `trace`, found in `objects` (sorted by address)
  /// and, when given, the link map's data input sections. A touch in neither (the ELF
  /// header, the symbol tables, unwind tables) is no data an orderfile places.
  ///
  /// The linker merges literals and constants (`.rodata.str1.1`, `.rodata.cst16`) of every
  /// object into one section the map calls `<internal>`, so a touch there names no object.
  /// For each such section the launch touched, that section of each of `launchObjects` (the
  /// objects whose code ran, in link order) stands where the launch first read the kind:
  /// lld puts its one merged piece of that kind where a script names the first of them.
  public static func touched(
    in trace: Trace, module: Int, objects: [DataObject], linkMap: LinkMap?, launchObjects: [String] = []
  ) -> LaunchData {
    let touches = trace.dataTouches.filter { $0.module == module }.sorted { $0.timeNanoseconds < $1.timeNanoseconds }
    var pieces: [LaunchDataPiece] = []
    var seen = Set<UInt64>()
    var merged: [String] = []
    var pieceStarts: [UInt64] = []
    // A touch stands for its whole granule: a piece that starts later inside it (a string
    // right after the one read first) may be read too, and its own touch is not recorded.
    let objectStarts = objects.map(\.address)
    let inputStarts = linkMap?.dataPlacements.map(\.address) ?? []
    let starts = touches.lazy.flatMap { touch in
      let rest = (touch.address + 1)..<touch.granule.upperBound
      return [touch.address] + Self.starts(in: objectStarts, within: rest) + Self.starts(in: inputStarts, within: rest)
    }
    for address in starts {
      let object = Self.object(in: objects, containing: address)
      if let placement = linkMap?.dataPlacement(containing: address),
        let output = DataSection(outputSection: placement.outputSection)
      {
        guard placement.input.object != "<internal>" else {
          // The merged piece of one kind stands in the order where the launch first read
          // it; the objects' sections that make it up replace it below.
          if !merged.contains(placement.input.section) {
            merged.append(placement.input.section)
            pieces.append(
              LaunchDataPiece(name: nil, input: placement.input, outputSection: output, size: placement.size))
            pieceStarts.append(placement.address)
          }
          continue
        }
        guard seen.insert(placement.address).inserted else { continue }
        // A named object's own section (-fdata-sections) goes by its name too.
        let owner = object.flatMap { placement.address == $0.address ? $0 : nil }
        pieces.append(
          LaunchDataPiece(name: owner?.name, input: placement.input, outputSection: output, size: placement.size))
        pieceStarts.append(placement.address)
      } else if let object, let output = DataSection(outputSection: object.sectionName),
        seen.insert(object.address).inserted
      {
        pieces.append(LaunchDataPiece(name: object.name, input: nil, outputSection: output, size: object.size))
        pieceStarts.append(object.address)
      }
    }
    // In first-touch order, but a sparse piece last: a large table or merged literal piece
    // read at a few places would otherwise stand between pieces the launch reads whole, each
    // of them then on read-ahead windows of its own.
    let pageSize = touches.first?.pageSize ?? 4096
    let granule = touches.first.map { $0.granule.upperBound - $0.granule.lowerBound } ?? 16
    let touchedGranules = Set(touches.map(\.granule.lowerBound)).sorted()
    let isSparse = pieces.indices.map { index in
      let size = pieces[index].size
      let read = Self.starts(in: touchedGranules, within: pieceStarts[index]..<(pieceStarts[index] + size)).count
      return size > pageSize && UInt64(read) * granule * 4 < size
    }
    let ordered = pieces.indices.filter { !isSparse[$0] } + pieces.indices.filter { isSparse[$0] }
    pieces = ordered.flatMap { index -> [LaunchDataPiece] in
      guard let input = pieces[index].input, input.object == "<internal>" else { return [pieces[index]] }
      return launchObjects.map {
        LaunchDataPiece(
          name: nil, input: InputSection(object: $0, section: input.section),
          outputSection: pieces[index].outputSection,
          size: 0)
      }
    }
    return LaunchData(pieces: pieces, touchedPages: Set(touches.map(\.page)).count, mergedSections: merged)
  }

  /// The addresses of `sorted` (ascending) inside `range`, in order.
  static func starts(in sorted: [UInt64], within range: Range<UInt64>) -> [UInt64] {
    guard !range.isEmpty else { return [] }
    let low = sorted.partitioningIndex { $0 >= range.lowerBound }
    let high = sorted.partitioningIndex { $0 >= range.upperBound }
    return Array(sorted[low..<max(low, high)])
  }

  /// The objects that start inside `range`, in address order.
  public static func objects(in objects: [DataObject], within range: Range<UInt64>) -> ArraySlice<DataObject> {
    let low = objects.partitioningIndex { $0.address >= range.lowerBound }
    let high = objects.partitioningIndex { $0.address >= range.upperBound }
    return objects[low..<max(low, high)]
  }

  /// The object whose bytes hold `address`.
  static func object(in objects: [DataObject], containing address: UInt64) -> DataObject? {
    let after = objects.partitioningIndex { $0.address > address }
    guard after > 0 else { return nil }
    let object = objects[after - 1]
    return object.range.contains(address) ? object : nil
  }
}

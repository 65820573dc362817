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
/// once.
public struct LaunchData: Sendable, Equatable {
  public var pieces: [LaunchDataPiece]
  /// Pages of the module's read-only data the launch touched (`Trace.dataTouches`).
  public var touchedPages: Int
  /// The linker's own merged sections the launch touched (`<internal>`: string literals,
  /// constants): neither a symbol nor an object names them, so no orderfile moves them.
  public var mergedSections: [String]
  /// How many of `pieces`, at the end, are those merged sections of the objects whose code
  /// ran, which go after the data the launch touched (see `touched(in:module:objects:linkMap:launchObjects:)`).
  public var mergedLiteralPieces: Int

  public init(
    pieces: [LaunchDataPiece] = [], touchedPages: Int = 0, mergedSections: [String] = [], mergedLiteralPieces: Int = 0
  ) {
    self.pieces = pieces
    self.touchedPages = touchedPages
    self.mergedSections = mergedSections
    self.mergedLiteralPieces = mergedLiteralPieces
  }

  /// The pieces the launch touched, in first-touch order: all but the merged literals.
  public var touchedPieces: ArraySlice<LaunchDataPiece> { pieces.dropLast(mergedLiteralPieces) }
  /// The merged literal sections of the objects that ran, placed after the touched pieces.
  public var literalPieces: ArraySlice<LaunchDataPiece> { pieces.suffix(mergedLiteralPieces) }

  /// The pieces a symbol orderfile can name.
  public var named: [LaunchDataPiece] { pieces.filter { $0.name != nil } }

  /// The launch data of module `module` in `trace`, found in `objects` (sorted by address)
  /// and, when given, the link map's data input sections. A touch in neither (the ELF
  /// header, the symbol tables, unwind tables) is no data an orderfile places.
  ///
  /// The linker merges literals and constants (`.rodata.str1.1`, `.rodata.cst16`) of every
  /// object into one section the map calls `<internal>`, so a touch there names no object.
  /// For each such section the launch touched, the pieces end with that section of each of
  /// `launchObjects` (the objects whose code ran, in link order): an lld script then merges
  /// those objects' literals apart from the others', after the launch's data.
  public static func touched(
    in trace: Trace, module: Int, objects: [DataObject], linkMap: LinkMap?, launchObjects: [String] = []
  ) -> LaunchData {
    let touches = trace.dataTouches.filter { $0.module == module }.sorted { $0.timeNanoseconds < $1.timeNanoseconds }
    var pieces: [LaunchDataPiece] = []
    var seen = Set<UInt64>()
    var merged: [String] = []
    for touch in touches {
      let object = Self.object(in: objects, containing: touch.address)
      if let placement = linkMap?.dataPlacement(containing: touch.address),
        let output = DataSection(outputSection: placement.outputSection)
      {
        guard placement.input.object != "<internal>" else {
          if !merged.contains(placement.input.section) { merged.append(placement.input.section) }
          continue
        }
        guard seen.insert(placement.address).inserted else { continue }
        // A named object's own section (-fdata-sections) goes by its name too.
        let owner = object.flatMap { placement.address == $0.address ? $0 : nil }
        pieces.append(
          LaunchDataPiece(name: owner?.name, input: placement.input, outputSection: output, size: placement.size))
      } else if let object, let output = DataSection(outputSection: object.sectionName),
        seen.insert(object.address).inserted
      {
        pieces.append(LaunchDataPiece(name: object.name, input: nil, outputSection: output, size: object.size))
      }
    }
    let touched = pieces.count
    for section in merged {
      pieces += launchObjects.map {
        LaunchDataPiece(name: nil, input: InputSection(object: $0, section: section), outputSection: .readOnly, size: 0)
      }
    }
    return LaunchData(
      pieces: pieces, touchedPages: Set(touches.map(\.page)).count, mergedSections: merged,
      mergedLiteralPieces: pieces.count - touched)
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

import CLibdw
import OrderfileSupport

/// Address ranges of the compile units of a module's DWARF, to find line info without
/// `.debug_aranges`.
///
/// `dwfl_module_getsrc` finds the compile unit through `.debug_aranges` alone, which clang,
/// swiftc and lld do not emit, so it finds nothing in their binaries. This table is built
/// from every unit's `DW_AT_low_pc`/`DW_AT_high_pc`/`DW_AT_ranges` instead (DWARF 4 and 5),
/// then `dwarf_getsrc_die` reads the unit's line program.
///
/// The DIEs point into the module's `Dwarf`: one from a `Dwfl` module is owned by the `Dwfl`,
/// which a table must not outlive; one opened from an `ELFFile` is the table's own.
final class LineTable {
  private struct UnitRange {
    var start: Dwarf_Addr
    var end: Dwarf_Addr
    var unit: Dwarf_Die
    /// The unit's position in the DWARF, which is the linker's input order.
    var unitNumber: Int
    /// `DW_AT_comp_dir`, which relative file names in the unit's line table are relative to.
    var directory: String?
  }

  /// Sorted by start.
  private let ranges: [UnitRange]
  /// The largest end of `ranges[0...i]`, to bound the walk back over overlapping units.
  private let reach: [Dwarf_Addr]
  /// The last range before `i` that ends after `ranges[i]` starts, or -1: the walk back from
  /// a range that starts at or before an address goes from one to the next, skipping only
  /// ranges that end before the address.
  private let previousReaching: [Int]
  /// ELF virtual address + this = DWARF address.
  private let adjustment: UInt64
  /// The `DW_AT_producer` of every unit with code, once each, in unit order.
  let producers: [String]

  /// Reads the unit ranges of `module`; an empty table when it has no DWARF.
  ///
  /// - Parameter bias: the main file's bias from `dwfl_module_getelf`.
  convenience init(module: OpaquePointer, bias: UInt64) {
    var dwarfBias: Dwarf_Addr = 0
    let dwarf = dwfl_module_getdwarf(module, &dwarfBias)
    // module address = ELF address + bias; DWARF address = module address - DWARF bias.
    self.init(dwarf: dwarf, adjustment: dwarf == nil ? 0 : bias &- dwarfBias)
  }

  /// The DWARF of `file` itself, opened without libdwfl (whose module would index the
  /// symbol table too); nil when the file has no DWARF of its own.
  convenience init?(file: ELFFile) {
    guard let dwarf = dwarf_begin_elf(file.elf, DWARF_C_READ, nil) else { return nil }
    self.init(dwarf: dwarf, adjustment: 0)
    owned = (dwarf, file)
  }

  deinit {
    if let owned { dwarf_end(owned.dwarf) }
  }

  /// The `Dwarf` this table opened itself and ends with it, and the file under it.
  private var owned: (dwarf: OpaquePointer, file: ELFFile)?

  /// - Parameter adjustment: what turns an ELF virtual address into one of `dwarf`'s.
  private init(dwarf: OpaquePointer?, adjustment: UInt64) {
    guard let dwarf else {
      ranges = []
      reach = []
      previousReaching = []
      self.adjustment = 0
      producers = []
      return
    }
    self.adjustment = adjustment
    var collected = [UnitRange]()
    var producers: [String] = []
    var unitNumber = 0
    var unit: OpaquePointer?
    while true {
      var next: OpaquePointer?
      var version: Dwarf_Half = 0
      var unitType: UInt8 = 0
      var unitDie = Dwarf_Die()
      var splitDie = Dwarf_Die()
      guard dwarf_get_units(dwarf, unit, &next, &version, &unitType, &unitDie, &splitDie) == 0
      else { break }
      unit = next
      if Int32(unitType) == DW_UT_type || Int32(unitType) == DW_UT_split_type { continue }
      let directory = Self.compilationDirectory(of: &unitDie)
      if let producer = Self.stringAttribute(UInt32(DW_AT_producer), of: &unitDie), !producers.contains(producer) {
        producers.append(producer)
      }
      unitNumber += 1
      var offset = 0
      var base: Dwarf_Addr = 0
      var start: Dwarf_Addr = 0
      var end: Dwarf_Addr = 0
      while true {
        offset = dwarf_ranges(&unitDie, offset, &base, &start, &end)
        guard offset > 0 else { break }
        if end > start {
          collected.append(
            UnitRange(start: start, end: end, unit: unitDie, unitNumber: unitNumber, directory: directory))
        }
      }
    }
    collected.sort { $0.start < $1.start }
    ranges = collected
    self.producers = producers
    var running: Dwarf_Addr = 0
    reach = collected.map { range in
      running = max(running, range.end)
      return running
    }
    previousReaching = Self.previousReaching(starts: collected.map(\.start), ends: collected.map(\.end))
  }

  /// For each range `i` of ranges sorted by start, the last range before it that ends after
  /// `starts[i]`, or -1. A range that ends no later than a later one is never the answer once
  /// that one is seen, nor is one that ends before a start, since starts only grow: what is
  /// left, on a stack, ends ever earlier.
  static func previousReaching(starts: [Dwarf_Addr], ends: [Dwarf_Addr]) -> [Int] {
    var stack: [Int] = []
    return starts.indices.map { index in
      while let top = stack.last, ends[top] <= starts[index] { stack.removeLast() }
      let found = stack.last ?? -1
      while let top = stack.last, ends[top] <= ends[index] { stack.removeLast() }
      stack.append(index)
      return found
    }
  }

  /// How the compile units' code lies in address order (see `CompileUnitLayout`).
  var unitLayout: CompileUnitLayout {
    var units = Set<Int>()
    var runs = 0
    var descents = 0
    var previous: Int?
    for range in ranges {
      units.insert(range.unitNumber)
      guard range.unitNumber != previous else { continue }
      runs += 1
      if let previous, range.unitNumber < previous { descents += 1 }
      previous = range.unitNumber
    }
    return CompileUnitLayout(units: units.count, runs: runs, descents: descents)
  }

  /// The line-table row for `address` (an ELF virtual address), if a unit covers it.
  func location(for address: UInt64) -> SourceLocation? {
    let target = address &+ adjustment
    var index = ranges.partitioningIndex { $0.start > target } - 1
    while index >= 0 {
      if target < ranges[index].end, let location = Self.lookUp(target, in: ranges[index]) {
        return location
      }
      guard index > 0, reach[index - 1] > target else { return nil }
      index = previousReaching[index]
    }
    return nil
  }

  private static func lookUp(_ address: Dwarf_Addr, in range: UnitRange) -> SourceLocation? {
    var die = range.unit
    guard let line = dwarf_getsrc_die(&die, address) else { return nil }
    var number: Int32 = 0
    guard dwarf_lineno(line, &number) == 0, number > 0,
      let name = dwarf_linesrc(line, nil, nil)
    else { return nil }
    var file = String(cString: name)
    if !file.hasPrefix("/"), let directory = range.directory, !directory.isEmpty {
      file = directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }
    return SourceLocation(file: file, line: Int(number))
  }

  private static func compilationDirectory(of unit: inout Dwarf_Die) -> String? {
    stringAttribute(UInt32(DW_AT_comp_dir), of: &unit)
  }

  private static func stringAttribute(_ name: UInt32, of unit: inout Dwarf_Die) -> String? {
    var attribute = Dwarf_Attribute()
    guard dwarf_attr(&unit, name, &attribute) != nil, let text = dwarf_formstring(&attribute) else { return nil }
    return String(cString: text)
  }
}

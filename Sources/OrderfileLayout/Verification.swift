import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// Whether a linked binary follows an orderfile, and if not, the likely reason.
public struct Verification: Codable, Sendable, Equatable {
  /// Why the order did not take, as far as the binary tells.
  public enum Cause: String, Codable, Sendable {
    /// The orderfile is in gold's section format but the linker reads symbol names.
    case sectionFormatForSymbolLinker
    /// The orderfile has Mach-O (underscored) names but the binary is ELF.
    case machONamesForELF
    /// Entries are missing: the release build names its functions differently.
    case renamedSymbols
    /// Entries are missing and nothing of a similar name is there: the release build inlined
    /// them (an instrumented gcc build keeps inline functions out of line).
    case inlinedInRelease
    /// Entries are present but each source file's functions stayed together.
    case noFunctionSections
    /// Entries are present and out of order although every compile unit had one section
    /// per function (its DWARF producer says so): the link did not use this orderfile.
    case notLinkedWithOrder
    /// Entries are present but out of order for a reason the binary does not show.
    case orderNotApplied
    /// An lld script's entries for code without a symbol are missing because the binary has
    /// no link map beside it, which alone names that code.
    case noLinkMap
  }

  /// An entry that is not where the order puts it.
  public struct Misplacement: Codable, Sendable, Equatable {
    /// 1-based line of the orderfile.
    public var rank: Int
    public var name: String
    /// The entry that should come right before it.
    public var expectedAfter: String?
    /// The function that does.
    public var actualAfter: String?
  }

  public var binary: String
  public var order: String
  public var orderFormat: OrderfileFormat
  /// The linker named in the binary's .comment section, when it says.
  public var linker: String?
  public var entries: Int
  public var present: Int
  /// Present entries that directly follow the entry before them (the first: that starts the block).
  public var inOrder: Int
  public var presentShare: Double
  public var inOrderShare: Double
  /// The `min-in-order` gate: the least `presentShare` and `inOrderShare` that pass.
  public var minInOrder: Double
  public var passed: Bool
  /// Up to ten entries not found in the binary.
  public var missing: [String]
  /// Up to ten present entries out of place, in orderfile order.
  public var firstMisplaced: [Misplacement]
  public var cause: Cause?
  /// The cause in words, with what to do about it.
  public var diagnosis: String?
  /// The binary's code outside `.text` (`.init`, `.fini`, PLT stubs), which no orderfile
  /// moves: its pages are touched wherever the linker put them.
  public var fixedCode: FixedCode? = nil
  /// The tables the dynamic loader reads from the binary at launch.
  public var loaderTables: LoaderTables? = nil
  /// Link options that cut those tables, which the binary's linker and loader support and
  /// its link did not use.
  public var missingLoaderOptions: [MissingLoaderOption]? = nil

  /// A link option the ordered release build should have had.
  public struct MissingLoaderOption: Codable, Sendable, Equatable {
    /// Its name, as `flags` lists it (`relr`, `gnu-hash`).
    public var option: String
    /// The compiler driver's flags to add.
    public var flags: [String]
    /// Why it applies to this binary.
    public var reason: String

    public init(option: String, flags: [String], reason: String) {
      self.option = option
      self.flags = flags
      self.reason = reason
    }
  }
}

/// Checks a binary's function layout against an orderfile.
public struct LayoutVerifier {
  /// The `min-in-order` gate: both shares must reach it.
  public var minInOrder: Rate

  /// The gate when none is given (`verify`, `regenerate`).
  public static let defaultMinInOrder = Rate(0.95)

  public init(minInOrder: Rate = LayoutVerifier.defaultMinInOrder) {
    self.minInOrder = minInOrder
  }

  /// `names` without the binary's data objects: a symbol orderfile names the launch's data
  /// after its functions (`record --data`), which no function layout checks.
  static func withoutData(_ names: NameTable, of symbolizer: any Symbolizer) -> NameTable {
    guard let elf = symbolizer as? ELFSymbolizer else { return names }
    let data = Set(elf.dataObjects.compactMap { names.index(of: $0.name) })
    guard !data.isEmpty else { return names }
    return NameTable((0..<names.count).lazy.filter { !data.contains($0) }.map { names[$0] })
  }

  public func verify(
    order: Orderfile, symbolizer: any Symbolizer, linker: String?
  ) -> Verification {
    verify(order: OrderfileNames(order), symbolizer: symbolizer, linker: linker)
  }

  /// Checks the binary against the orderfile's names, read as a stream
  /// (`OrderfileNames.read(path:)`): an orderfile of millions of lines stays in its name
  /// table, and only entries found in the binary, or shown in the report, become strings.
  public func verify(
    order: OrderfileNames, symbolizer: any Symbolizer, linker: String?
  ) -> Verification {
    let functions = symbolizer.functions.filter { $0.size > 0 }
    // An lld script names input sections: with the binary's link map, each line is matched
    // to the very section it names, so local functions that share a name in several objects
    // are told apart.
    let readsInputSections = order.format == .lldScript && functions.contains(where: { $0.inputSection != nil })
    var names = Self.withoutData(order.names, of: symbolizer)
    if readsInputSections {
      let positions = Self.namePositions(functions, inputSections: true)
      names = NameTable(
        order.scriptLines.map { line in
          let pattern = String(line.drop(while: { $0 == "*" }))
          return positions[pattern] != nil ? pattern : order.format.functionName(inLine: line)
        })
    }
    var present: [(rank: Int, name: String, positions: [Int])] = []
    // Numbers in `names`, not strings: in an unrelated binary nearly every entry is missing.
    var missingIndices: [Int32] = []
    // The names are distinct already: no second set of millions of names. Each of the
    // binary's names is looked up in the orderfile's table where it is, without a table of
    // its own (a quarter of a million names, each with an array, in a large binary).
    var hits: [(index: Int, position: Int)] = []
    func look(_ name: String, at position: Int) {
      if let index = names.index(of: name) { hits.append((index, position)) }
    }
    for position in functions.indices {
      look(functions[position].name, at: position)
      for alias in functions[position].aliases { look(alias, at: position) }
    }
    if readsInputSections {
      for position in functions.indices {
        if let input = functions[position].inputSection { look(input.description, at: position) }
      }
    }
    // By entry, and within one in the order found: names by address, then input sections.
    var found: [(index: Int, positions: [Int])] = []
    for hit in hits.enumerated().sorted(by: { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }) {
      if found.last?.index == hit.element.index {
        found[found.count - 1].positions.append(hit.element.position)
      } else {
        found.append((hit.element.index, [hit.element.position]))
      }
    }
    var next = 0
    for index in 0..<names.count {
      if next < found.count && found[next].index == index {
        present.append((index + 1, names[index], found[next].positions))
        next += 1
      } else {
        missingIndices.append(Int32(index))
      }
    }
    let missing = missingIndices.lazy.map { names[Int($0)] }

    // An entry is in place when it starts right after the previous entry's last function.
    var inOrder = 0
    var misplaced: [Verification.Misplacement] = []
    // Binary positions of every misplaced entry's first function, for the diagnosis.
    var misplacedPositions: [Int] = []
    for (offset, entry) in present.enumerated() {
      let first = entry.positions[0]
      let ok: Bool
      var actual: String?
      if offset == 0 {
        ok = !present.dropFirst().contains { $0.positions.contains { $0 < first } }
      } else {
        let previousLast = present[offset - 1].positions.last ?? 0
        ok = first == previousLast + 1
        actual = first > 0 ? functions[first - 1].name : nil
      }
      if ok {
        inOrder += 1
        continue
      }
      misplacedPositions.append(first)
      if misplaced.count < 10 {
        misplaced.append(
          .init(
            rank: entry.rank, name: entry.name, expectedAfter: offset > 0 ? present[offset - 1].name : nil,
            actualAfter: actual))
      }
    }

    let unique = names.count
    let presentShare = unique == 0 ? 1 : Double(present.count) / Double(unique)
    let inOrderShare = present.isEmpty ? 0 : Double(inOrder) / Double(present.count)
    let passed = unique > 0 && presentShare >= minInOrder.value && inOrderShare >= minInOrder.value
    var result = Verification(
      binary: symbolizer.path, order: order.path, orderFormat: order.format, linker: linker, entries: unique,
      present: present.count, inOrder: inOrder, presentShare: presentShare, inOrderShare: inOrderShare,
      minInOrder: minInOrder.value, passed: passed, missing: Array(missing.prefix(10)), firstMisplaced: misplaced,
      cause: nil, diagnosis: nil)
    if !passed {
      (result.cause, result.diagnosis) = diagnose(
        order: order, missing: missing, misplaced: misplacedPositions, functions: functions,
        readsInputSections: readsInputSections, symbolizer: symbolizer, linker: linker, presentShare: presentShare)
    }
    return result
  }

  /// Each name of `functions` (and with `inputSections`, each input section they came
  /// from) and where it is: names first, by address, then input sections.
  static func namePositions(_ functions: [FunctionSymbol], inputSections: Bool) -> [String: [Int]] {
    var positions: [String: [Int]] = [:]
    // Sized once for every function's name: grown step by step, a large binary's table was
    // rehashed over and over. Each function is read in place, its names without an array.
    positions.reserveCapacity(functions.count)
    for index in functions.indices {
      positions[functions[index].name, default: []].append(index)
      for alias in functions[index].aliases { positions[alias, default: []].append(index) }
    }
    if inputSections {
      for index in functions.indices {
        if let input = functions[index].inputSection { positions[input.description, default: []].append(index) }
      }
    }
    return positions
  }

  func diagnose(
    order: OrderfileNames, missing: some Collection<String>, misplaced: [Int], functions: [FunctionSymbol],
    readsInputSections: Bool, symbolizer: any Symbolizer, linker: String?, presentShare: Double
  ) -> (Verification.Cause?, String?) {
    // Where each of the binary's names is, built only for a question that needs it: an
    // entry out of order needs none.
    lazy var positions = Self.namePositions(functions, inputSections: readsInputSections)
    let linkerName = linker.map { " (\($0))" } ?? ""
    // Each question below is one pass over the missing names, counting, keeping only the
    // few names the message shows.
    if order.format == .lldScript, !functions.contains(where: { $0.inputSection != nil }) {
      let unnamed = missing.lazy.filter { $0.contains("(.text..L") }
      if let first = unnamed.first {
        return (
          .noLinkMap,
          "\(unnamed.count) entries name code without a symbol (\(first)), which only a link map of this binary shows: link it with -Wl,-Map=\(symbolizer.path).map (swiftc: -Xlinker -Map=\(symbolizer.path).map) and verify again"
        )
      }
    }
    let readsSections = linker?.lowercased().contains("gold") == true
    if order.format == .gold && !readsSections {
      return (
        .sectionFormatForSymbolLinker,
        "the orderfile is in gold's section format (.text.<name> lines), but this binary's linker\(linkerName) reads symbol names with --symbol-ordering-file and matched none of them: generate it with --format lld"
      )
    }
    let missingCount = missing.count
    let underscored = missing.lazy.filter { $0.hasPrefix("_") && positions[String($0.dropFirst())] != nil }.count
    if missingCount > 0 && underscored * 2 >= missingCount {
      return (
        .machONamesForELF,
        "\(underscored) entries are Mach-O names (a leading underscore, as ld64's -order_file wants) of functions this ELF binary has without it: generate it with --format lld"
      )
    }
    if presentShare < minInOrder.value {
      var byBase: [String: String] = [:]
      for name in positions.keys {
        let base = CloneName(name)?.base ?? name
        if let known = byBase[base], known.utf8.lexicographicallyPrecedes(name.utf8) { continue }
        byBase[base] = name
      }
      // One pass: each missing name is either renamed (a function of the same base name
      // is there) or inlined. Only a name with a dot can be a clone's.
      var renamed = 0
      var hints: [String] = []
      var inlined: [String] = []
      for name in missing {
        let base = name.utf8.contains(UInt8(ascii: ".")) ? CloneName(name)?.base ?? name : name
        if let now = byBase[base] {
          renamed += 1
          if hints.count < 5 { hints.append("\(name) is now \(now)") }
        } else if inlined.count < 3 {
          inlined.append(name)
        }
      }
      if renamed * 2 < missingCount {
        return (
          .inlinedInRelease,
          "\(missingCount - renamed) entries are not in the binary, and no function of a similar name is: the release build inlined them (an instrumented gcc build keeps inline functions out of line, as -finstrument-functions instruments before inlining), e.g. \(inlined.map(Demangler.demangle).joined(separator: ", ")). Regenerate with 'orderfile generate --release-binary \(symbolizer.path)', which leaves them out and reports the match rate against this binary, or record the release binary itself ('orderfile record --no-rebuild')"
        )
      }
      let hint = hints.isEmpty ? "" : " (\(hints.joined(separator: "; ")))"
      return (
        .renamedSymbols,
        "\(missingCount) entries are not in the binary: its functions are named differently from the instrumented build's\(hint). Regenerate the orderfile from a trace of the same sources, and keep inlining and LTO settings the same in both builds"
      )
    }
    // Present but out of order. The DWARF producers may say how the code was compiled:
    // with one section per function everywhere, the linker could have moved each entry,
    // so it was not given this orderfile.
    let producers = CompilerProducers(symbolizer.compilerProducers())
    let compiler = producers.language == .rust ? "rustc" : producers.language == .swift ? "swiftc" : "the compiler"
    switch producers.functionSections {
    case .all:
      return (
        .notLinkedWithOrder,
        "every compile unit has one section per function (\(producers.language == .rust ? "rustc makes them" : "its DWARF producer lists -ffunction-sections")), so the linker could move each entry but did not: this binary was not linked with this orderfile. Check that the link line has \(producers.orderingFlag), naming this file"
      )
    case .missing:
      return (
        .noFunctionSections,
        "the DWARF producer of the binary's compile units lists their options without -ffunction-sections, so each object file's functions can only move together: compile the release build with \(producers.functionSectionsFlag)"
      )
    case .unknown:
      break
    }
    // Without one section per function a function can only move with the rest of its
    // object file, so a misplaced entry keeps a neighbour from its own source file in
    // front of it.
    var known = 0
    var sameFile = 0
    for position in misplaced where position > 0 {
      guard let file = symbolizer.sourceLocation(for: functions[position].address)?.file,
        let before = symbolizer.sourceLocation(for: functions[position - 1].address)?.file
      else { continue }
      known += 1
      if file == before { sameFile += 1 }
    }
    guard known > 0 else {
      return (
        .orderNotApplied,
        "the entries are present but out of order, and the binary has no line information to tell why: check that the release build was compiled with \(producers.functionSectionsFlag) and linked with \(producers.orderingFlag)"
      )
    }
    if sameFile * 2 >= known {
      return (
        .noFunctionSections,
        "\(sameFile) of \(known) misplaced entries still follow a function of their own source file, so the linker moved whole object files, not functions: the release build was most likely compiled without \(producers.functionSectionsFlag), or not linked with this orderfile (\(compiler) did not record its options to tell)"
      )
    }
    return (
      .orderNotApplied,
      "the entries are present and the linker moved single functions, but not in this order: was the binary linked with this orderfile?"
    )
  }
}

import OrderfileSymbolization

/// What an lld script moves besides the launch's code and the data a trace recorded: pieces
/// every launch reads that lld's default layout leaves on read-ahead windows of their own,
/// decided from the recorded binary's section headers and link map (`ScriptMoves.of`).
public struct ScriptMoves: Sendable, Equatable {
  /// The output section that holds the launch objects' literals (`literals`).
  public static let literalSectionName = ".rodata.launch"

  /// `.got.plt` goes in front of `.data`, right after `.got` in the file. The loader writes it
  /// at every launch (its first entries, and each entry's load bias in a lazily bound PIE),
  /// as it writes `.got`; lld puts it behind `.data` (and, in a Swift program, behind the
  /// writable `.rodata`, megabytes on), where it took a major fault of its own on a Vapor
  /// server. Moved whenever the binary has both, already in front or not: a binary relinked
  /// with the script and recorded again keeps the block.
  public var gotPltBeforeData: Bool
  /// The string literals of each object whose code the launch ran, in an output section of
  /// their own in front of `.rodata`, when `.rodata` is writable: Swift's protocol
  /// conformance descriptors are writable `.rodata` inputs, so lld makes the whole output
  /// section writable, and the recorder, which watches read-only pages only, cannot see
  /// which literals the launch reads. lld merges every object's literals of one kind into one
  /// piece in an order of its own; those of the launch's objects, merged apart from the rest,
  /// are a fraction of it (on a Vapor server 42 KB of 112 KB: 2 major faults instead of 4).
  public var literals: [InputSection]

  public init(gotPltBeforeData: Bool = false, literals: [InputSection] = []) {
    self.gotPltBeforeData = gotPltBeforeData
    self.literals = literals
  }

  /// The moves for a binary with `sections` (its section headers) and `linkMap`, whose
  /// launch ran code of `launchObjects` (in link order).
  public static func of(sections: [FileSection], linkMap: LinkMap?, launchObjects: [String]) -> ScriptMoves {
    func section(_ name: String) -> FileSection? { sections.first { $0.name == name } }
    var moves = ScriptMoves()
    moves.gotPltBeforeData = section(".got.plt") != nil && section(".data") != nil
    if let rodata = section(".rodata"), rodata.isWritable, let linkMap {
      var kinds: [String] = []
      for placement in linkMap.dataPlacements
      where placement.outputSection == ".rodata" && placement.input.object == "<internal>"
        && placement.input.section.hasPrefix(".rodata.str") && !kinds.contains(placement.input.section)
      {
        kinds.append(placement.input.section)
      }
      moves.literals = kinds.flatMap { kind in launchObjects.map { InputSection(object: $0, section: kind) } }
    }
    return moves
  }

  /// The moves of several runs of one binary: `.got.plt` moved if any run moved it, the
  /// literals of every run's launch objects, each once, in the order the runs first name them.
  public static func merged(_ runs: [ScriptMoves]) -> ScriptMoves {
    var seen = Set<InputSection>()
    return ScriptMoves(
      gotPltBeforeData: runs.contains { $0.gotPltBeforeData },
      literals: runs.flatMap(\.literals).filter { seen.insert($0).inserted })
  }

  /// The lld script blocks that make these moves.
  func scriptBlocks(lines: (InputSection) -> String) -> String {
    (literals.isEmpty
      ? "" : OrderfileFormat.outputSection(Self.literalSectionName, literals.map(lines), insert: "BEFORE .rodata"))
      + (gotPltBeforeData ? OrderfileFormat.outputSection(".got.plt", ["*(.got.plt)"], insert: "BEFORE .data") : "")
  }
}

import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// Code of the estimated binary that runs at launch but that the trace's function names do
/// not cover.
///
/// The trace names the functions the recorded build called. The release build runs more
/// under other names: gcc's copies of a recorded function (`foo.part.0`, `foo.isra.0`,
/// `foo.constprop.0`), which run in its place or for part of it; the static initializers,
/// which run before `main` whether or not the compiler instrumented them; and cold parts
/// (`foo.cold`) that the trace saw run. An estimate that leaves them out counts too few pages
/// and its lower bound too few bytes.
///
/// Cold parts the trace did not see are listed but not counted: the compiler splits them off
/// because it expects them not to run, and on the bundled example none of 15 did, so counting
/// them would add pages no launch touches.
public struct ReleaseLaunchCode: Codable, Sendable, Equatable {
  /// A piece of a recorded function under a name of its own.
  public struct Piece: Codable, Sendable, Equatable {
    /// The binary's name for it.
    public var name: String
    /// The recorded function it belongs to, by its name without the clone suffixes.
    public var of: String
    /// What the compiler made of it, outermost last.
    public var kinds: [CloneName.Kind]
  }

  /// Counted pieces of recorded functions: copies, and cold parts the trace recorded, in the
  /// binary's address order.
  public var pieces: [Piece]
  /// Counted static initializers the trace did not record, in the order the loader runs them.
  public var staticInitializers: [String]
  /// Cold parts of recorded functions that the trace did not see run: not counted.
  public var uncountedColdParts: [Piece]

  /// Every counted name, initializers first.
  public var names: [String] { staticInitializers + pieces.map(\.name) }

  /// What the counted code is, in the words `generate` uses for the same code: static
  /// initializers the trace did not record, and pieces of recorded functions under names of
  /// their own (copies, and cold parts the trace recorded).
  public static func countedSummary(_ code: ReleaseLaunchCode) -> String {
    "launch code under names the trace's order does not list: \(TextFormatting.count(code.staticInitializers.count, "static initializer")) the trace did not record, \(TextFormatting.count(code.pieces.count, "piece")) of recorded functions (copies, and cold parts the trace recorded)"
  }

  /// - Parameters:
  ///   - launch: the recorded launch functions' names.
  ///   - recordedColdParts: cold parts the trace recorded (`ModuleOrder.coldParts`).
  ///   - functions: the estimated binary's functions.
  ///   - initializers: its static initializers, in run order.
  public init(
    launch: [String], recordedColdParts: [String] = [], functions: [FunctionSymbol], initializers: [StaticInitializer]
  ) {
    let recorded = Set(launch)
    let ranCold = Set(recordedColdParts)
    let bases = Set(launch.map { CloneName($0)?.base ?? $0 })
    var pieces: [Piece] = []
    var uncounted: [Piece] = []
    /// The first of a function's names that is a clone of a recorded function's.
    func clone(_ name: String) -> CloneName? {
      CloneName(name).flatMap { bases.contains($0.base) ? $0 : nil }
    }
    // Each function is read in place and its names tested for a clone first: nearly every
    // name of a large binary fails that test at once, without being hashed.
    for index in functions.indices where functions[index].size > 0 {
      guard let clone = clone(functions[index].name) ?? functions[index].aliases.lazy.compactMap(clone).first,
        !functions[index].isNamed(anyOf: recorded)
      else { continue }
      let function = functions[index]
      let piece = Piece(name: function.name, of: clone.base, kinds: clone.kinds)
      if !clone.isCold || function.allNames.contains(where: ranCold.contains) {
        pieces.append(piece)
      } else {
        uncounted.append(piece)
      }
    }
    self.pieces = pieces
    uncountedColdParts = uncounted
    var seen = Set<String>()
    staticInitializers = initializers.compactMap(\.function).filter { function in
      function.size > 0 && !function.allNames.contains(where: recorded.contains)
        && !InitializerPlacement.isInstrumentationConstructor(function.name) && seen.insert(function.name).inserted
    }.map(\.name)
  }
}

import OrderfileSymbolization
import OrderfileTrace

/// One function of the launch order, with what the trace said about its first call.
public struct OrderedFunction: Sendable, Equatable {
  public var symbol: FunctionSymbol
  /// Nanoseconds from process start to the first call.
  public var firstCallNanoseconds: UInt64
  public var threadID: UInt32
  /// The position of its first record in the trace; -1 for a static initializer the trace
  /// did not record (see `InitializerPlacement`).
  public var recordIndex: Int
  /// Where the function is defined, when asked for and known.
  public var source: SourceLocation?

  public init(
    symbol: FunctionSymbol, firstCallNanoseconds: UInt64, threadID: UInt32, recordIndex: Int,
    source: SourceLocation? = nil
  ) {
    self.symbol = symbol
    self.firstCallNanoseconds = firstCallNanoseconds
    self.threadID = threadID
    self.recordIndex = recordIndex
    self.source = source
  }
}

/// A local (static) function name that more than one function in the binary carries.
///
/// Symbol ordering files match by name, so the linker places every function
/// of that name where the entry stands, not only the one that ran.
public struct AmbiguousName: Sendable, Equatable, Codable {
  public var name: String
  /// Addresses of all functions with this name, ascending.
  public var addresses: [UInt64]

  public init(name: String, addresses: [UInt64]) {
    self.name = name
    self.addresses = addresses
  }
}

/// The launch order of one module and everything that did not make it in.
public struct ModuleOrder: Sendable {
  public var module: TraceModule
  /// The binary the addresses were resolved against.
  public var binaryPath: String
  /// The launch functions in first-call order, one entry per function.
  public var functions: [OrderedFunction]
  /// Launch records of this module in the trace (one per distinct address the runtime saw).
  public var recordCount: Int
  /// Records that resolved to a function already listed: several entry
  /// addresses inside one function, or the same function recorded twice.
  public var duplicateRecords: Int
  /// Recorded addresses that no function symbol covers.
  public var unresolvedAddresses: [UInt64]
  /// Cold split parts that were recorded but kept out of the order.
  public var coldParts: [String]
  /// Cold split parts that were recorded and placed after the other entries, in the order
  /// they first ran (they are in `functions` too).
  public var placedColdParts: [String] = []
  /// Recorded functions no orderfile can move, kept out of the order and of the match rate:
  /// stubs without a size (the C runtime's crt code) and code outside `.text` (`_init` in
  /// `.init`). A recorder that sees every function of the binary records them.
  public var unplaceable: [String] = []
  /// Recorded code without a symbol that this order leaves out, since its format names
  /// symbols (see `FunctionSymbol.hasSymbol`): kept out of the order and of the match rate,
  /// and reported with its bytes. The `lld-script` format places it.
  public var withoutSymbol: [String] = []
  public var withoutSymbolBytes: UInt64 = 0
  /// What leaving `withoutSymbol` out costs, per page size, as `estimate` simulates it;
  /// empty when nothing was left out or the cost was not assessed.
  public var withoutSymbolCost: [CodeWithoutSymbolCost] = []
  /// Emitted local names that other functions in the binary share.
  public var ambiguousNames: [AmbiguousName]
  /// Names folded into an entry because they alias the same address.
  public var foldedAliases: Int
  /// The entries checked against the release binary, when one was given.
  public var release: ReleaseComparison? = nil
  /// The static initializers placed first, in the order the loader runs them.
  public var staticInitializers: [String] = []
  /// Of those, the ones the trace did not record: entries, but not matches of recorded functions.
  public var unrecordedInitializers = 0
  /// Set when the order would make the launch touch more pages than the default layout.
  public var worseLayout: WorseLayout? = nil
  /// Recorded functions left out because lld would refuse their entries: names that resolve
  /// to a shared library's symbol when the binary is linked (see `SharedLibrarySymbols`).
  public var refusedByLinker: [String] = []
  /// Entries lld warns about ("unable to order shared symbol") but places: the binary's own
  /// copy of a name a library also exports with a version (see `SharedLibrarySymbols`).
  public var warnedByLinker: [String] = []
  /// The read-only data the launch touched, when the trace recorded it (`record --data`).
  public var data = LaunchData()
  /// The program's `main`, when its main thread ends by a forced unwind through it
  /// (`MainThreadEnd`: Swift's async `main`) and the format places code by input section: an
  /// lld script puts it after every other function, so that libgcc's lookup of its frame
  /// description, which reads the table's first and last entries before any binary search,
  /// stops at the last one.
  public var unwoundMain: FunctionSymbol? = nil
  /// What an lld script moves besides the launch's code and recorded data (`ScriptMoves.of`),
  /// when the format places code by input section and the binary is an ELF file.
  public var scriptMoves = ScriptMoves()

  /// Distinct functions the trace recorded in this module: what the match rate is measured against.
  public var recordedFunctions: Int {
    let leftOut = release.map { $0.keptAbsent ? 0 : $0.absent.count } ?? 0
    return functions.count - unrecordedInitializers - placedCopies + unresolvedAddresses.count + coldParts.count
      + leftOut + refusedByLinker.count
  }

  /// Entries that name a function of the binary that will be linked: the release binary's
  /// when one was given, otherwise the binary the trace recorded.
  public var matchedFunctions: Int {
    functions.count - unrecordedInitializers - placedCopies
      - (release.map { $0.keptAbsent ? $0.absent.count : 0 } ?? 0)
  }

  /// Release-only copies of launch functions placed beside them, and their cold parts placed
  /// last (see `ReleaseComparison`): entries the trace did not record.
  private var placedCopies: Int { (release?.placedCopies.count ?? 0) + (release?.placedColdParts.count ?? 0) }

  /// The share of recorded functions that became entries the linker will find, 0...1 (1 when
  /// nothing was recorded).
  public var matchRate: Double {
    recordedFunctions == 0 ? 1 : Double(matchedFunctions) / Double(recordedFunctions)
  }
}

/// The launch pages of an order that leaves code without a symbol where it is, beside the
/// pages if that code were placed too (as the `lld-script` format places it).
public struct CodeWithoutSymbolCost: Codable, Sendable, Equatable {
  public var pageSize: UInt64
  /// Launch pages under the order as written.
  public var ordered: Int
  /// Launch pages with the code without a symbol placed after the other entries.
  public var placed: Int

  public init(pageSize: UInt64, ordered: Int, placed: Int) {
    self.pageSize = pageSize
    self.ordered = ordered
    self.placed = placed
  }
}

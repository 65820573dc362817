import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// Page counts of the launch at one page size.
public struct PageCounts: Codable, Sendable, Equatable {
  public var pageSize: UInt64
  /// Distinct pages the launch functions touch in the binary as it is.
  public var current: Int
  /// The same for the simulated ordered layout.
  public var ordered: Int
  /// The fewest pages the launch functions could fit in, beside the fixed code the launch
  /// runs where the linker put it.
  public var lowerBound: Int
  /// Area under the pages-touched curve in launch order, as it is and ordered.
  public var currentCurveArea: Int
  public var orderedCurveArea: Int
  /// Of the pages above, those of fixed code (`.init`, PLT stubs: `Estimate.fixedCode`), now
  /// and ordered alike, since an orderfile does not move it.
  public var fixedCode: Int = 0
}

/// What the runtime measured at the end of the launch window, when the trace has it.
public struct MeasuredFaults: Codable, Sendable, Equatable {
  public var minorFaults: UInt64?
  public var majorFaults: UInt64?
  /// Resident bytes of the module's text mapping.
  public var textResidentBytes: UInt64?
}

/// The estimate for one binary: what the launch touches now and under the order.
public struct Estimate: Codable, Sendable, Equatable {
  public var binary: String
  public var trace: String?
  public var order: String?
  /// Launch functions in first-call order that the estimate considered.
  public var launchFunctions: Int
  /// Those found in the binary.
  public var matchedFunctions: Int
  /// Launch functions the binary does not have, by name: never silently dropped.
  public var missingFunctions: [String]
  /// Total bytes of the matched launch functions.
  public var launchBytes: UInt64
  public var pages: [PageCounts]
  /// The Linux fault-around window: one fault maps this aligned window.
  public var faultAroundBytes: UInt64
  public var currentFaults: Int
  public var orderedFaults: Int
  public var measured: MeasuredFaults?
  /// Per launch function, in first-call order: where it is now and where the order puts it.
  public var placements: [Placement]
  /// The span of the binary's text functions, for pictures of the layout.
  public var textStart: UInt64
  public var textEnd: UInt64
  /// Set when the ordered count may be optimistic (see `ReorderedBinaryCaution`).
  public var reorderedBinary: ReorderedBinaryCaution? = nil
  /// Set for a binary whose launch functions are split into hot and cold parts (BOLT,
  /// gcc): the pages counted above are the entry parts', and this adds the bound for
  /// whole functions (see `LaunchFragments`).
  public var fragments: LaunchFragments? = nil
  /// Launch code of the binary the trace does not name, counted in the pages and the bytes.
  public var releaseOnly: ReleaseLaunchCode? = nil
  /// Set when the orderfile makes the launch touch more pages than the binary's layout now.
  public var worseThanDefault: WorseLayout? = nil
  /// Whether the trace was recorded from this very binary (same build-id): its launch is then
  /// counted at the recorded addresses; otherwise by name, one function per name.
  public var countedByAddress: Bool = false
  /// Whether the trace came from an instrumented build (its runtime wrote it) rather than
  /// from a release binary recorded as it is: what a trace of another build-id was.
  public var tracedInstrumentedBuild: Bool = false
  /// Local names of launch functions that several functions of the binary carry: by name,
  /// only one of each is counted.
  public var sharedNames: Int = 0
  /// The pages the binary really touched, counted by the page probe (`--measure`).
  public var measurement: PageMeasurement? = nil
  /// What a cold launch read of the program's files, by section (`--measure-cold`).
  public var coldLaunch: ColdLaunch? = nil
  /// The binary's code outside `.text` and what the launch runs of it, counted in the pages
  /// above (not in `launchBytes`).
  public var fixedCode: FixedCode? = nil
  /// The read-only data pages the launch touches, now and under the order, when the trace
  /// recorded them (`record --data`) from this very binary.
  public var dataPages: [DataPageCounts] = []

  public struct Placement: Codable, Sendable, Equatable {
    public var name: String
    public var currentAddress: UInt64
    public var orderedAddress: UInt64
    public var size: UInt64
  }
}

/// Computes the estimate from a binary's real layout and a launch order.
public struct Estimator {
  public var pageSizes: [UInt64]
  public var faultAroundBytes: UInt64
  public var simulator: LayoutSimulator

  public init(
    pageSizes: [UInt64] = [4096, 16384, 65536], faultAroundBytes: UInt64 = 65536,
    simulator: LayoutSimulator = LayoutSimulator()
  ) {
    self.pageSizes = pageSizes
    self.faultAroundBytes = faultAroundBytes
    self.simulator = simulator
  }

  /// - Parameters:
  ///   - launch: launch function names in first-call order.
  ///   - functions: the binary's functions sorted by address (`Symbolizer.functions`).
  ///   - order: the orderfile's names; the launch order itself when nil.
  ///   - additional: more code that runs at launch (see `ReleaseLaunchCode`): counted in the
  ///     pages and bytes, not in the launch functions.
  ///   - launchAddresses: the entries of the code that ran, when the trace was recorded from
  ///     this very binary: counted instead of the names, so that of several functions sharing
  ///     a name only the one that ran counts.
  ///   - fixedCode: reads the binary's code outside `.text` that the launch code (its address
  ///     ranges) runs (`FixedCode.read`): counted where it is, now and ordered.
  ///
  /// By name, each distinct name counts one function, the first of that name by address:
  /// a local name several functions carry (gcc's `foo.isra.0` in many units) ran once per
  /// recorded function, not once per copy.
  public func estimate(
    launch: [String], functions: [FunctionSymbol], order: [String]?, binary: String, trace: String?,
    orderPath: String?, measured: MeasuredFaults?, additional: [String] = [], launchAddresses: [UInt64]? = nil,
    fixedCode: ((_ launch: [Range<UInt64>]) throws -> FixedCode)? = nil
  ) rethrows -> Estimate {
    // One pass over the binary's names finds the launch's and the order's: each pass hashes
    // a quarter of a million names in a large binary.
    let counted = launch + additional
    let positions = functions.positions(named: counted + (order ?? []))
    var byName: [String: Int] = [:]
    for name in counted { if let first = positions[name]?.first { byName[name] = first } }
    let starts = functions.map { $0.address }
    /// The first function starting at `address`: `functions` is sorted by address.
    func function(at address: UInt64) -> Int? {
      let index = starts.partitioningIndex { $0 >= address }
      return index < starts.count && starts[index] == address ? index : nil
    }
    let newAddresses = simulator.layout(functions, order: order ?? launch, positions: positions)

    var seen = Set<Int>()
    var current: [Span] = []
    var ordered: [Span] = []
    var placements: [Estimate.Placement] = []
    func count(_ index: Int, as name: String) {
      guard seen.insert(index).inserted else { return }
      let address = starts[index]
      let size = functions[index].size
      current.append(Span(address: address, size: size))
      ordered.append(Span(address: newAddresses[index], size: size))
      placements.append(.init(name: name, currentAddress: address, orderedAddress: newAddresses[index], size: size))
    }
    let missing = launch.filter { byName[$0] == nil }
    let matched = launch.count - missing.count
    if let launchAddresses {
      for address in launchAddresses {
        if let index = function(at: address) { count(index, as: functions[index].name) }
      }
    }
    for name in (launchAddresses == nil ? launch : []) + additional {
      if let index = byName[name] { count(index, as: name) }
    }
    let bytes = current.reduce(UInt64(0)) { $0 + $1.size }
    var sizedStart: UInt64?
    var textEnd: UInt64 = 0
    for index in functions.indices {
      let size = functions[index].size
      if size > 0 { sizedStart = min(sizedStart ?? starts[index], starts[index]) }
      textEnd = max(textEnd, starts[index] + size)
    }
    let textStart = sizedStart ?? 0
    let fixed = try fixedCode?(current.map { $0.address..<$0.address + $0.size })
    let fixedSpans = fixed?.touched.map { Span(address: $0.address, size: $0.size) } ?? []
    let pages = pageSizes.map { size in
      PageCounts(
        pageSize: size, current: PageMath.distinctPages(fixedSpans + current, pageSize: size),
        ordered: PageMath.distinctPages(fixedSpans + ordered, pageSize: size),
        lowerBound: PageMath.lowerBound(bytes: bytes, pageSize: size, fixed: fixedSpans, textStart: textStart),
        // The curves compare orders of the code an orderfile moves; fixed code would add
        // the same to both.
        currentCurveArea: PageMath.curveArea(current, pageSize: size),
        orderedCurveArea: PageMath.curveArea(ordered, pageSize: size),
        fixedCode: PageMath.distinctPages(fixedSpans, pageSize: size))
    }
    var estimate = Estimate(
      binary: binary, trace: trace, order: orderPath, launchFunctions: launch.count, matchedFunctions: matched,
      missingFunctions: missing, launchBytes: bytes, pages: pages, faultAroundBytes: faultAroundBytes,
      currentFaults: PageMath.distinctPages(fixedSpans + current, pageSize: faultAroundBytes),
      orderedFaults: PageMath.distinctPages(fixedSpans + ordered, pageSize: faultAroundBytes),
      measured: measured, placements: placements, textStart: textStart, textEnd: textEnd)
    estimate.fixedCode = fixed
    return estimate
  }
}

/// Why an estimate's ordered layout may look better than a fresh link would give: the binary
/// already follows an orderfile (its compile units are split up), and launch functions the
/// simulated order leaves out keep the places that orderfile gave them instead of going
/// back to link order.
public struct ReorderedBinaryCaution: Codable, Sendable, Equatable {
  public var compileUnits: Int
  /// Runs of consecutive code from one unit: about one per unit in a link in input order.
  public var compileUnitRuns: Int
  /// Returns to an earlier unit, walking the code by address: none in a link in input order
  /// (a few with GNU ld's section groups).
  public var compileUnitDescents: Int
  /// Launch functions in the binary that the simulated order does not name.
  public var launchFunctionsOutsideOrder: Int
  /// The simulated orderfile.
  public var orderfile: String

  public init(
    compileUnits: Int, compileUnitRuns: Int, compileUnitDescents: Int, launchFunctionsOutsideOrder: Int,
    orderfile: String
  ) {
    self.compileUnits = compileUnits
    self.compileUnitRuns = compileUnitRuns
    self.compileUnitDescents = compileUnitDescents
    self.launchFunctionsOutsideOrder = launchFunctionsOutsideOrder
    self.orderfile = orderfile
  }

  /// One line for people, naming the binary and the orderfile.
  public func message(binary: String) -> String {
    "\(binary) looks already reordered, by an orderfile or a call-graph sort (its code returns to an earlier compile unit \(compileUnitDescents) times): the \(launchFunctionsOutsideOrder) launch functions \(orderfile) leaves out keep their places there, so its ordered count may be optimistic; estimate on a build linked in input order"
  }
}

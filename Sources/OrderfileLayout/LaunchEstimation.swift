import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Estimates a binary's launch pages from a trace.
///
/// When the binary is the very build the trace recorded (same build-id: a trace recorded
/// without a rebuild from the release binary), the recorded addresses say exactly which
/// functions ran. Otherwise (a trace of the instrumented build) the two share names, not
/// addresses, and each recorded name counts one function of the binary.
public struct LaunchEstimation {
  public var tracePath: String
  public var binaryPath: String
  public var orderPath: String?
  /// The trace module to use (path or file name); by default the one with the binary's
  /// build-id, else its real file, else a file name in common (`ModuleFile`), else the main executable when the binary
  /// holds at least half of its launch functions by name; otherwise an error.
  public var module: String?
  /// Where to look for the instrumented binary the trace recorded.
  public var searchPaths: [String]
  public var estimator: Estimator

  public init(
    tracePath: String, binaryPath: String, orderPath: String? = nil, module: String? = nil,
    searchPaths: [String] = [], estimator: Estimator = Estimator()
  ) {
    self.tracePath = tracePath
    self.binaryPath = binaryPath
    self.orderPath = orderPath
    self.module = module
    self.searchPaths = searchPaths
    self.estimator = estimator
  }

  /// The estimate under `orderPath`.
  public func run() throws -> Estimate {
    try run(orders: [orderPath])[0]
  }

  /// One estimate per orderfile of `orders` (nil: the order generate writes by default), of
  /// one launch and one binary: the trace, the binary and what the launch ran in it are read
  /// and worked out once, and only the layout is simulated per order.
  public func run(orders: [String?]) throws -> [Estimate] {
    let launch = try Launch(self)
    return try orders.map { try estimate(launch, order: $0) }
  }

  /// What every order's estimate shares: the launch in the binary, before any order.
  struct Launch {
    var trace: Trace
    var binary: ELFSymbolizer
    var moduleIndex: Int
    var traceModule: TraceModule
    var sameBuild: Bool
    var recorded: any Symbolizer
    var order: ModuleOrder
    var names: [String]
    var releaseOnly: ReleaseLaunchCode
    var exactAddresses: [UInt64]?
    var defaultOrder: [String]
    var measured: MeasuredFaults?
    var fragments: LaunchFragments?
    /// Paired by a name (or by --trace-module) only, with another build-id and no name in common.
    var pairedWithAnotherProgram: Bool
    var fixedCode: FixedCodeOnce

    init(_ estimation: LaunchEstimation) throws {
      fixedCode = FixedCodeOnce(path: estimation.binaryPath)
      trace = try TraceReader.read(path: estimation.tracePath)
      binary = try ELFSymbolizer.withSymbols(path: estimation.binaryPath)
      moduleIndex = try estimation.selectModule(trace)
      traceModule = trace.modules[moduleIndex]
      sameBuild = binary.buildID.map { [traceModule] in $0.bytes == traceModule.buildID } ?? false
      if sameBuild {
        recorded = binary
      } else {
        recorded = try BinaryResolver(searchPaths: estimation.searchPaths).symbolizer(
          recordedPath: traceModule.path, buildID: traceModule.buildID)
      }
      // Code without a symbol runs and takes pages like any other: it is counted.
      order = OrderBuilder(placeCodeWithoutSymbol: true).order(
        trace: trace, module: moduleIndex, symbolizer: recorded)
      let measured = MeasuredFaults(
        minorFaults: trace.header.minorFaults, majorFaults: trace.header.majorFaults,
        textResidentBytes: traceModule.textResidentBytes)
      // A recorder that planted breakpoints (in-process) wrote into the text and faulted on
      // its own: the runtime's counts in such a trace are not the program's, so none are shown.
      let hasMeasurements =
        trace.header.recorderTime == nil && (measured.minorFaults != nil || measured.textResidentBytes != nil)
      self.measured = hasMeasurements ? measured : nil
      names = order.functions.map(\.symbol.name)
      releaseOnly = ReleaseLaunchCode(
        launch: names, recordedColdParts: order.coldParts, functions: binary.functions,
        initializers: try binary.staticInitializers())
      // Recorded from this binary, the trace has every piece that ran at its own address
      // (cold parts included); copies that share a recorded name did not run.
      exactAddresses = sameBuild ? LaunchEstimation.recordedEntries(trace, module: moduleIndex, binary: binary) : nil
      if exactAddresses != nil {
        releaseOnly.pieces = []
        releaseOnly.uncountedColdParts = []
      } else if (try? BinaryLocator.isInstrumented(fileAt: recorded.path)) == false {
        // Recorded without a rebuild from another build: every copy that ran was recorded
        // under its own name; only its cold parts are kept out of the launch names.
        let ranCold = Set(order.coldParts)
        releaseOnly.pieces = releaseOnly.pieces.filter { ranCold.contains($0.name) }
      }
      // Without an orderfile, the order generate writes by default: the initializers, then the
      // launch functions that have a symbol (a symbol orderfile cannot place the others).
      defaultOrder = releaseOnly.staticInitializers + order.functions.filter(\.symbol.hasSymbol).map(\.symbol.name)
      fragments = LaunchFragments(
        launch: names, functions: binary.functions, pageSizes: estimation.estimator.pageSizes)
      pairedWithAnotherProgram =
        binary.buildID != nil && !traceModule.buildID.isEmpty && !sameBuild
        && !ModuleFile.isAnotherBuild(
          functions: recorded.functions.map(\.name), otherFunctions: binary.functions.map(\.name))
    }
  }

  /// The binary's fixed code that the launch reaches (`FixedCode.read`), read once for all
  /// orders: where the launch's code is now does not depend on the order.
  final class FixedCodeOnce {
    let path: String
    private var last: (launch: [Range<UInt64>], code: FixedCode)?

    init(path: String) {
      self.path = path
    }

    func read(launch: [Range<UInt64>]) throws -> FixedCode {
      if let last, last.launch == launch { return last.code }
      let code = try FixedCode.read(path: path, launch: launch)
      last = (launch, code)
      return code
    }
  }

  /// The estimate of `launch` under the orderfile at `orderPath`.
  func estimate(_ launch: Launch, order orderPath: String?) throws -> Estimate {
    let binary = launch.binary
    let launchNames = launch.names
    let order = try orderPath.map { try Orderfile.read(path: $0) }
    // .init and the PLT stubs the launch code calls run too, where the linker put them.
    var estimate = try estimator.estimate(
      launch: launchNames, functions: binary.functions, order: order?.names ?? launch.defaultOrder,
      binary: binaryPath, trace: tracePath, orderPath: orderPath, measured: launch.measured,
      additional: launch.releaseOnly.names, launchAddresses: launch.exactAddresses,
      fixedCode: launch.fixedCode.read)
    if module == nil, !Self.matchesByIdentity(launch.traceModule, path: binaryPath),
      launchNames.count > 0, (launchNames.count - estimate.missingFunctions.count) * 2 < launchNames.count
    {
      // Matched by neither build-id, real file nor file name, and most names missing: another program.
      throw OrderingError.binaryMatchesNoModule(
        binary: binaryPath, trace: launch.trace.path, modules: launch.trace.modules.map(\.path))
    }
    if launch.pairedWithAnotherProgram {
      // Paired by a name (or by --trace-module) only: no name in common makes another program the module.
      throw OrderingError.anotherProgram(
        binary: ModuleFile(path: binaryPath).described, module: launch.traceModule.file.described,
        trace: launch.trace.path)
    }
    estimate.releaseOnly = launch.releaseOnly
    let touches = launch.trace.dataTouches.filter { $0.module == launch.moduleIndex }
    if launch.sameBuild && !touches.isEmpty {
      // Without an orderfile, the data generate places by default, in a symbol orderfile.
      let dataOrder =
        order.map { ($0.format, $0.lines) }
        ?? (.lld, launch.order.data.pieces.flatMap(OrderfileFormat.lld.lines(for:)))
      estimate.dataPages = DataPages.count(
        touches: touches, binary: binary, order: dataOrder, pageSizes: estimator.pageSizes)
    }
    estimate.countedByAddress = launch.exactAddresses != nil
    estimate.tracedInstrumentedBuild = launch.trace.header.isFromRuntime
    estimate.sharedNames = launch.order.ambiguousNames.count
    if order != nil {
      estimate.worseThanDefault = LayoutRegressionCheck.worseLayout(estimate.pages, binary: binaryPath)
    }
    estimate.fragments = launch.fragments
    if let order {
      estimate.reorderedBinary = Self.caution(
        launch: launchNames, missing: estimate.missingFunctions, order: order, binary: binary)
    }
    return estimate
  }

  /// The entries of the functions the launch ran, in first-call order, from a trace of `binary` itself.
  static func recordedEntries(_ trace: Trace, module: Int, binary: ELFSymbolizer) -> [UInt64] {
    var seen = Set<UInt64>()
    return trace.records.compactMap { record in
      guard record.module == module, record.phase == .launch,
        let function = binary.function(containing: record.address), seen.insert(function.address).inserted
      else { return nil }
      return function.address
    }
  }

  /// The simulation keeps functions outside the order in the binary's present order. That
  /// is link order only in a binary linked without an orderfile; in one linked with another
  /// orderfile, the launch functions this order leaves out keep that orderfile's places.
  static func caution(launch: [String], missing: [String], order: Orderfile, binary: ELFSymbolizer)
    -> ReorderedBinaryCaution?
  {
    let named = Set(order.names)
    let absent = Set(missing)
    let outside = launch.filter { !named.contains($0) && !absent.contains($0) }.count
    guard outside > 0, let layout = binary.compileUnitLayout(), layout.looksReordered else { return nil }
    return ReorderedBinaryCaution(
      compileUnits: layout.units, compileUnitRuns: layout.runs, compileUnitDescents: layout.descents,
      launchFunctionsOutsideOrder: outside, orderfile: order.path)
  }

  /// True when `module` is the binary at `path` by build-id, real file or file name.
  static func matchesByIdentity(_ module: TraceModule, path: String) -> Bool {
    ModuleFile(path: path).match(module.file) != nil
  }

  func selectModule(_ trace: Trace) throws -> Int {
    if let module {
      guard let match = trace.modules.first(where: { $0.isNamed(module) }) else {
        throw OrderingError.noSuchModule(name: module, trace: trace.path, available: trace.modules.map(\.path))
      }
      return match.index
    }
    // The SONAME link, the real file and an installed copy all match (`ModuleFile`).
    if let match = ModuleFile(path: binaryPath).firmest(in: trace.modules.map(\.file)).first {
      return trace.modules[match].index
    }
    // Neither build-id, nor real file, nor file name: the main executable, if the binary then turns out to
    // hold most of its launch functions (a relinked or BOLTed build of it; see run()).
    if let main = trace.modules.first(where: \.isMainExecutable) { return main.index }
    throw OrderingError.binaryMatchesNoModule(
      binary: binaryPath, trace: trace.path, modules: trace.modules.map(\.path))
  }
}

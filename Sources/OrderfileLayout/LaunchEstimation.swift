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
  /// The trace and the binary read already (`read()`), for estimating several orders of one
  /// launch without reading a large binary's symbols again each time.
  public var inputs: Inputs?

  /// The trace at `tracePath` and the binary at `binaryPath` with its symbols.
  public struct Inputs {
    public let trace: Trace
    public let binary: ELFSymbolizer
  }

  public init(
    tracePath: String, binaryPath: String, orderPath: String? = nil, module: String? = nil,
    searchPaths: [String] = [], estimator: Estimator = Estimator(), inputs: Inputs? = nil
  ) {
    self.inputs = inputs
    self.tracePath = tracePath
    self.binaryPath = binaryPath
    self.orderPath = orderPath
    self.module = module
    self.searchPaths = searchPaths
    self.estimator = estimator
  }

  /// Reads the trace and the binary, for `inputs`.
  public func read() throws -> Inputs {
    Inputs(trace: try TraceReader.read(path: tracePath), binary: try ELFSymbolizer.withSymbols(path: binaryPath))
  }

  public func run() throws -> Estimate {
    let read = try inputs ?? read()
    let trace = read.trace
    let binary = read.binary
    let moduleIndex = try selectModule(trace)
    let traceModule = trace.modules[moduleIndex]

    let recorded: any Symbolizer
    let sameBuild = binary.buildID.map { $0.bytes == traceModule.buildID } ?? false
    if sameBuild {
      recorded = binary
    } else {
      recorded = try BinaryResolver(searchPaths: searchPaths).symbolizer(
        recordedPath: traceModule.path, buildID: traceModule.buildID)
    }
    // Code without a symbol runs and takes pages like any other: it is counted.
    let launch = OrderBuilder(placeCodeWithoutSymbol: true).order(
      trace: trace, module: moduleIndex, symbolizer: recorded)
    let order = try orderPath.map { try Orderfile.read(path: $0) }
    let measured = MeasuredFaults(
      minorFaults: trace.header.minorFaults, majorFaults: trace.header.majorFaults,
      textResidentBytes: traceModule.textResidentBytes)
    // A recorder that planted breakpoints (in-process) wrote into the text and faulted on
    // its own: the runtime's counts in such a trace are not the program's, so none are shown.
    let hasMeasurements =
      trace.header.recorderTime == nil && (measured.minorFaults != nil || measured.textResidentBytes != nil)
    let launchNames = launch.functions.map(\.symbol.name)
    var releaseOnly = ReleaseLaunchCode(
      launch: launchNames, recordedColdParts: launch.coldParts, functions: binary.functions,
      initializers: try binary.staticInitializers())
    // Recorded from this binary, the trace has every piece that ran at its own address
    // (cold parts included); copies that share a recorded name did not run.
    let exactAddresses = sameBuild ? Self.recordedEntries(trace, module: moduleIndex, binary: binary) : nil
    if exactAddresses != nil {
      releaseOnly.pieces = []
      releaseOnly.uncountedColdParts = []
    } else if (try? BinaryLocator.isInstrumented(fileAt: recorded.path)) == false {
      // Recorded without a rebuild from another build: every copy that ran was recorded
      // under its own name; only its cold parts are kept out of the launch names.
      let ranCold = Set(launch.coldParts)
      releaseOnly.pieces = releaseOnly.pieces.filter { ranCold.contains($0.name) }
    }
    // Without an orderfile, the order generate writes by default: the initializers, then the
    // launch functions that have a symbol (a symbol orderfile cannot place the others).
    let defaultOrder = releaseOnly.staticInitializers + launch.functions.filter(\.symbol.hasSymbol).map(\.symbol.name)
    // .init and the PLT stubs the launch code calls run too, where the linker put them.
    var estimate = try estimator.estimate(
      launch: launchNames, functions: binary.functions, order: order?.names ?? defaultOrder,
      binary: binaryPath, trace: tracePath, orderPath: orderPath, measured: hasMeasurements ? measured : nil,
      additional: releaseOnly.names, launchAddresses: exactAddresses,
      fixedCode: { [binaryPath] in try FixedCode.read(path: binaryPath, launch: $0) })
    if module == nil, !Self.matchesByIdentity(traceModule, path: binaryPath),
      launchNames.count > 0, (launchNames.count - estimate.missingFunctions.count) * 2 < launchNames.count
    {
      // Matched by neither build-id, real file nor file name, and most names missing: another program.
      throw OrderingError.binaryMatchesNoModule(
        binary: binaryPath, trace: trace.path, modules: trace.modules.map(\.path))
    }
    if binary.buildID != nil, !traceModule.buildID.isEmpty, !sameBuild,
      !ModuleFile.isAnotherBuild(
        functions: recorded.functions.map(\.name), otherFunctions: binary.functions.map(\.name))
    {
      // Paired by a name (or by --trace-module) only: no name in common makes another program the module.
      throw OrderingError.anotherProgram(
        binary: ModuleFile(path: binaryPath).described, module: traceModule.file.described, trace: trace.path)
    }
    estimate.releaseOnly = releaseOnly
    let touches = trace.dataTouches.filter { $0.module == moduleIndex }
    if sameBuild && !touches.isEmpty {
      // Without an orderfile, the data generate places by default, in a symbol orderfile.
      let dataOrder =
        order.map { ($0.format, $0.lines) }
        ?? (.lld, launch.data.pieces.flatMap(OrderfileFormat.lld.lines(for:)))
      estimate.dataPages = DataPages.count(
        touches: touches, binary: binary, order: dataOrder, pageSizes: estimator.pageSizes)
    }
    estimate.countedByAddress = exactAddresses != nil
    estimate.tracedInstrumentedBuild = trace.header.isFromRuntime
    estimate.sharedNames = launch.ambiguousNames.count
    if order != nil {
      estimate.worseThanDefault = LayoutRegressionCheck.worseLayout(estimate.pages, binary: binaryPath)
    }
    estimate.fragments = LaunchFragments(
      launch: launchNames, functions: binary.functions, pageSizes: estimator.pageSizes)
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

import Foundation
import OrderfileSymbolization
import OrderfileTrace

/// Which modules of a trace get an orderfile.
public enum ModuleSelection: Sendable, Equatable {
  /// Every module with launch records.
  case all
  /// The main executable.
  case mainExecutable
  /// The module whose path or file name is this.
  case named(String)

  /// Whether this selection takes `module` of `trace`. A trace without a main executable
  /// (one recorded from a library's constructor only) has all of its modules taken as main.
  public func includes(_ module: TraceModule, of trace: Trace) -> Bool {
    switch self {
    case .all: return true
    case .mainExecutable: return module.isMainExecutable || !trace.modules.contains(where: \.isMainExecutable)
    case .named(let name): return module.isNamed(name)
    }
  }
}

extension TraceModule {
  /// Whether `name`, as the user gives a module, names this one: its path, a file name it goes
  /// by (its path's, its real file's, its SONAME), a link to it or a copy of it
  /// (`ModuleFile.match`).
  public func isNamed(_ name: String) -> Bool {
    path == name || ModuleFile(path: name).match(file) != nil
  }

  /// The recorded module as a file: its recorded build-id, and the real path and SONAME of the
  /// file at its path, when there is one here.
  public var file: ModuleFile { ModuleFile(recordedPath: path, buildID: buildID) }
}

/// The result of turning a trace into launch orders.
public struct Generation: Sendable {
  public var trace: Trace
  /// Orders for the selected modules, in the trace's module order.
  public var orders: [ModuleOrder]
  /// Recorded modules left out by the selection: reported, not emitted.
  public var skipped: [SkippedModule]

  /// Match rate over all emitted modules: entries / distinct recorded functions.
  public var matchRate: Double {
    let recorded = orders.reduce(0) { $0 + $1.recordedFunctions }
    let matched = orders.reduce(0) { $0 + $1.matchedFunctions }
    return recorded == 0 ? 1 : Double(matched) / Double(recorded)
  }
}

/// Resolves each recorded module to its binary, symbolizes it and builds its order.
public struct Generator {
  public var selection: ModuleSelection
  /// Finds and opens each module's binary.
  public var binaries: BinaryResolver
  public var builder: OrderBuilder
  /// The binaries that will be linked, to check each order against.
  public var release: ReleaseBinaries?
  /// Reads a binary's static initializers, which go first in its order; tests pass a fake.
  public var initializers: (any Symbolizer) throws -> [StaticInitializer]
  /// Compares an order's launch pages with the default layout of the binary it will be
  /// linked into; nil skips the comparison.
  public var assessLayout: ((ModuleOrder, any Symbolizer) -> WorseLayout?)?
  /// Simulates what the code without a symbol an order leaves out costs in the binary the
  /// trace recorded; nil skips it.
  public var assessCodeWithoutSymbol: ((ModuleOrder, any Symbolizer) -> [CodeWithoutSymbolCost])? = nil

  public init(
    selection: ModuleSelection = .all, binaries: BinaryResolver = BinaryResolver(),
    builder: OrderBuilder = OrderBuilder(),
    release: ReleaseBinaries? = nil,
    initializers: @escaping (any Symbolizer) throws -> [StaticInitializer] = Generator.staticInitializers,
    assessLayout: ((ModuleOrder, any Symbolizer) -> WorseLayout?)? = nil
  ) {
    self.assessLayout = assessLayout
    self.selection = selection
    self.binaries = binaries
    self.builder = builder
    self.release = release
    self.initializers = initializers
  }

  /// The initializer tables of an ELF binary; none for anything else.
  public static func staticInitializers(of binary: any Symbolizer) throws -> [StaticInitializer] {
    try (binary as? ELFSymbolizer)?.staticInitializers() ?? []
  }

  /// Whether `trace` has a record an order is built from: one in the launch window, or any
  /// with `includePostWindow`. A trace without one (a system program the launch started, a
  /// window closed before the first call) gives no order.
  public func hasLaunchRecords(_ trace: Trace) -> Bool {
    trace.records.contains { $0.phase == .launch || builder.includePostWindow }
  }

  public func generate(_ trace: Trace) throws -> Generation {
    var launchRecords = [Int](repeating: 0, count: trace.modules.count)
    for record in trace.records where record.phase == .launch || builder.includePostWindow {
      launchRecords[record.module] += 1
    }
    guard hasLaunchRecords(trace) else {
      throw OrderingError.emptyTrace(trace: trace.path, instrumented: trace.header.isFromRuntime)
    }

    let selected = try selectedModules(trace, launchRecords: launchRecords)
    var orders: [ModuleOrder] = []
    var skipped: [SkippedModule] = []
    for module in trace.modules where launchRecords[module.index] > 0 {
      guard selected.contains(module.index) else {
        skipped.append(SkippedModule(path: module.path, launchRecords: launchRecords[module.index]))
        continue
      }
      // Every module is asked for, not this one by name: a system library is left out.
      if selection == .all && module.isSystemLibrary {
        skipped.append(
          SkippedModule(path: module.path, launchRecords: launchRecords[module.index], reason: .systemLibrary))
        continue
      }
      let symbolizer = try binaries.symbolizer(recordedPath: module.path, buildID: module.buildID)
      if builder.placeCodeWithoutSymbol, let elf = symbolizer as? ELFSymbolizer, elf.linkMap == nil {
        throw OrderingError.noLinkMap(binary: elf.path, problem: elf.linkMapProblem?.localizedDescription)
      }
      let order = builder.order(trace: trace, module: module.index, symbolizer: symbolizer)
      let compared = try release?.compare(order, placeColdParts: trace.header.isFromRuntime) ?? order
      // The initializers of the binary that will be linked: its names are the ones lld looks up.
      let linked = try release?.symbolizer(for: module) ?? symbolizer
      var placed = Self.leavingOutRefused(
        InitializerPlacement.apply(try initializers(linked), to: compared), linked: linked)
      placed.worseLayout = assessLayout?(placed, linked)
      if !placed.withoutSymbol.isEmpty { placed.withoutSymbolCost = assessCodeWithoutSymbol?(placed, symbolizer) ?? [] }
      orders.append(placed)
    }
    return Generation(trace: trace, orders: orders, skipped: skipped)
  }

  /// `order` without the entries lld would refuse when linking `linked` again, so that a
  /// fresh orderfile links without a warning (a warning then means a stale orderfile).
  static func leavingOutRefused(_ order: ModuleOrder, linked: any Symbolizer) -> ModuleOrder {
    guard linked is ELFSymbolizer, let shared = try? SharedLibrarySymbols(binary: linked.path) else { return order }
    var result = order
    result.functions = order.functions.filter { function in
      guard function.symbol.allNames.contains(where: shared.resolvesToSharedLibrary) else {
        if shared.warnsButPlaces(function.symbol.name) { result.warnedByLinker.append(function.symbol.name) }
        return true
      }
      result.refusedByLinker.append(function.symbol.name)
      return false
    }
    return result
  }

  func selectedModules(_ trace: Trace, launchRecords: [Int]) throws -> Set<Int> {
    let selected = trace.modules.filter { selection.includes($0, of: trace) }
    if case .named(let name) = selection, selected.isEmpty {
      throw OrderingError.noSuchModule(
        name: name, trace: trace.path, available: trace.modules.filter { launchRecords[$0.index] > 0 }.map(\.path))
    }
    return Set(selected.map(\.index))
  }
}

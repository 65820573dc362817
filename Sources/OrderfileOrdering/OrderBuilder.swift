import OrderfileSymbolization
import OrderfileTrace

/// Turns one module's first calls into its launch order.
///
/// Records are taken in first-call order. Each address is resolved to the
/// function symbol that contains it; functions seen more than once (several
/// threads, several addresses in one function) keep their first position;
/// aliases at one address become one entry under the symbolizer's primary
/// name. Addresses outside every function are reported.
///
/// Cold split parts (`foo.cold`, `foo.cold.1`) that the trace saw run go after every other
/// entry, in the order they first ran: the launch touches their pages, so they belong in
/// the launch region, but after the hot code so that they do not split it up. Cold parts
/// that did not run are never in a trace, so they stay where the compiler put them.
public struct OrderBuilder {
  public var includePostWindow: Bool
  /// Look up each entry's file:line (builds the binary's line tables once).
  public var resolveSourceLocations: Bool
  /// Whether code without a symbol (`FunctionSymbol.hasSymbol`) becomes entries: only an
  /// orderfile that names input sections can place it. When false, it is listed in
  /// `ModuleOrder.withoutSymbol` instead.
  public var placeCodeWithoutSymbol: Bool

  public init(
    includePostWindow: Bool = false, resolveSourceLocations: Bool = false, placeCodeWithoutSymbol: Bool = false
  ) {
    self.includePostWindow = includePostWindow
    self.resolveSourceLocations = resolveSourceLocations
    self.placeCodeWithoutSymbol = placeCodeWithoutSymbol
  }

  public func order(
    trace: Trace, module moduleIndex: Int, symbolizer: any Symbolizer
  ) -> ModuleOrder {
    let module = trace.modules[moduleIndex]
    let start = trace.header.processStartNanoseconds
    var functions: [OrderedFunction] = []
    var seenAddresses = Set<UInt64>()
    var unresolved: [UInt64] = []
    var unresolvedSeen = Set<UInt64>()
    var cold: [OrderedFunction] = []
    var unplaceable: [String] = []
    var withoutSymbol: [FunctionSymbol] = []
    var duplicates = 0
    var recordCount = 0

    for (index, record) in trace.records.enumerated()
    where record.module == moduleIndex && (record.phase == .launch || includePostWindow) {
      recordCount += 1
      guard let symbol = symbolizer.function(containing: record.address) else {
        if unresolvedSeen.insert(record.address).inserted { unresolved.append(record.address) }
        continue
      }
      guard seenAddresses.insert(symbol.address).inserted else {
        duplicates += 1
        continue
      }
      if !Self.isPlaceable(symbol) {
        unplaceable.append(symbol.name)
        continue
      }
      if !symbol.hasSymbol && !placeCodeWithoutSymbol {
        withoutSymbol.append(symbol)
        continue
      }
      let function = OrderedFunction(
        symbol: symbol,
        firstCallNanoseconds: record.timeNanoseconds >= start ? record.timeNanoseconds - start : 0,
        threadID: record.threadID, recordIndex: index,
        source: resolveSourceLocations ? symbolizer.sourceLocation(for: symbol.address) : nil)
      if symbol.hasSymbol && CloneName(symbol.name)?.isCold == true {
        cold.append(function)
      } else {
        functions.append(function)
      }
    }
    functions += cold

    var order = ModuleOrder(
      module: module, binaryPath: symbolizer.path, functions: functions, recordCount: recordCount,
      duplicateRecords: duplicates, unresolvedAddresses: unresolved, coldParts: [],
      placedColdParts: cold.map(\.symbol.name), unplaceable: unplaceable, withoutSymbol: withoutSymbol.map(\.name),
      withoutSymbolBytes: withoutSymbol.reduce(0) { $0 + $1.size },
      ambiguousNames: Self.ambiguousNames(of: functions, in: symbolizer),
      foldedAliases: functions.reduce(0) { $0 + $1.symbol.aliases.count })
    if placeCodeWithoutSymbol, MainThreadEnd.unwindsMain(programAt: symbolizer.path) {
      order.unwoundMain = symbolizer.functions.first { $0.allNames.contains("main") }
    }
    guard let elf = symbolizer as? ELFSymbolizer else { return order }
    let launchObjects = Self.objectsInLinkOrder(functions, linkMap: elf.linkMap)
    if trace.dataTouches.contains(where: { $0.module == moduleIndex }) {
      order.data = LaunchData.touched(
        in: trace, module: moduleIndex, objects: elf.dataObjects, linkMap: elf.linkMap, launchObjects: launchObjects)
    }
    if placeCodeWithoutSymbol, let sections = try? FileSection.read(path: elf.path) {
      order.scriptMoves = ScriptMoves.of(sections: sections, linkMap: elf.linkMap, launchObjects: launchObjects)
    }
    return order
  }

  /// The objects that hold `functions`, in link order (where each object's data or code first
  /// lies), as lld merged their literals before: the literals keep their places among one
  /// another.
  static func objectsInLinkOrder(_ functions: [OrderedFunction], linkMap: LinkMap?) -> [String] {
    var first: [String: UInt64] = [:]
    for placement in (linkMap?.dataPlacements ?? []) + (linkMap?.placements ?? [])
    where first[placement.input.object] == nil {
      first[placement.input.object] = placement.address
    }
    return Set(functions.compactMap(\.symbol.inputSection?.object))
      .sorted { (first[$0] ?? .max, $0) < (first[$1] ?? .max, $1) }
  }

  /// Whether a linker can move the function by an orderfile entry: it has a size, and it sits
  /// in a text section (`.text`, `.text.NAME`, `.text.hot`…) rather than `.init` or `.fini`.
  /// An unknown section (a fake symbolizer's) counts as text.
  static func isPlaceable(_ symbol: FunctionSymbol) -> Bool {
    symbol.size > 0 && (symbol.sectionName.isEmpty || symbol.sectionName.hasPrefix(".text"))
  }

  /// Local names of `functions` that more than one function of the binary carries.
  static func ambiguousNames(of functions: [OrderedFunction], in symbolizer: any Symbolizer) -> [AmbiguousName] {
    let locals = Set(functions.filter { $0.symbol.binding == .local }.map(\.symbol.name))
    guard !locals.isEmpty else { return [] }
    var addresses: [String: [UInt64]] = [:]
    // Each of a large binary's functions read in place, its names without an array of their own.
    let binary = symbolizer.functions
    let sieve = NameSieve(locals)
    func isLocal(_ name: String) -> Bool { sieve.mayContain(name) && locals.contains(name) }
    for index in binary.indices {
      let address = binary[index].address
      if isLocal(binary[index].name) { addresses[binary[index].name, default: []].append(address) }
      for alias in binary[index].aliases where isLocal(alias) {
        addresses[alias, default: []].append(address)
      }
    }
    return addresses.filter { $0.value.count > 1 }
      .map { AmbiguousName(name: $0.key, addresses: $0.value.sorted()) }
      .sorted { $0.name < $1.name }
  }
}

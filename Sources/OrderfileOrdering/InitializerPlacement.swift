import OrderfileSymbolization

/// Puts a module's static initializers at the head of its order.
///
/// Every function in a binary's initializer tables runs at every launch, before `main`,
/// whatever the compiler instrumented: clang's after-inlining instrumentation leaves
/// `_GLOBAL__sub_I_*` out, so a recorded order alone would leave them scattered. They are
/// read from the binary that will be linked (the release binary when one was given), so the
/// names are the ones the linker will look for, and they keep the order the loader runs them.
public enum InitializerPlacement {
  /// `order` with `initializers` first, in run order. A recorded initializer moves to the
  /// head with its record; one the trace lacks is added and counted apart from the match
  /// rate. Initializers no orderfile can move (`_init` in `.init`, symbols without a size)
  /// and cold parts are skipped: a cold part the trace saw run stays with the others that
  /// ran, after the launch functions (see `OrderBuilder`).
  public static func apply(_ initializers: [StaticInitializer], to order: ModuleOrder) -> ModuleOrder {
    var head: [OrderedFunction] = []
    var headNames = Set<String>()
    // Where each name of the recorded functions is, in launch order: a large program's
    // thousand initializers each looked for among thousands of launch functions name by
    // name was most of what generate spent on them.
    var recordedAt: [String: [Int]] = [:]
    for index in order.functions.indices {
      for name in order.functions[index].symbol.allNames { recordedAt[name, default: []].append(index) }
    }
    var moved = [Bool](repeating: false, count: order.functions.count)
    var unrecorded = 0
    for initializer in initializers {
      guard let function = initializer.function, OrderBuilder.isPlaceable(function),
        CloneName(function.name)?.isCold != true, !isInstrumentationConstructor(function.name),
        headNames.insert(function.name).inserted
      else { continue }
      // The first launch function not moved yet that carries one of its names.
      let recorded = function.allNames.compactMap { name in recordedAt[name]?.first { !moved[$0] } }.min()
      if let recorded {
        moved[recorded] = true
        head.append(order.functions[recorded])
      } else {
        // Not recorded: it runs before the runtime could see anything, or was not instrumented.
        head.append(OrderedFunction(symbol: function, firstCallNanoseconds: 0, threadID: 0, recordIndex: -1))
        unrecorded += 1
      }
    }
    let rest = order.functions.indices.filter { !moved[$0] }.map { order.functions[$0] }
    var result = order
    result.functions = head + rest
    result.staticInitializers = head.map(\.symbol.name)
    result.unrecordedInitializers = unrecorded
    return result
  }

  /// Whether `name` is a constructor of the recording build only, which names nothing the
  /// release build has and would make lld warn: one the compiler adds for its instrumentation
  /// (`sancov.module_ctor_trace_pc_guard`, `asan.module_ctor`), or one of the runtime's own
  /// (`of_check_binding`, when its static archive is linked in).
  public static func isInstrumentationConstructor(_ name: String) -> Bool {
    if name.hasPrefix("of_") || name.hasPrefix("orderfile_") { return true }
    guard let dot = name.firstIndex(of: "."), dot != name.startIndex else { return false }
    return name[name.index(after: dot)...].hasPrefix("module_ctor")
  }
}

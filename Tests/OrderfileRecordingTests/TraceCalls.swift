import OrderfileSymbolization
import OrderfileTrace

/// The first calls of a trace in the module whose path ends in `suffix`, with their names
/// from the module's own symbols, in first-call order: what the recorder tests check.
func calls(in trace: Trace, module suffix: String) throws -> [(name: String, call: FirstCall)] {
  guard let module = trace.modules.first(where: { $0.path.hasSuffix(suffix) }) else { return [] }
  let symbolizer = try ELFSymbolizer(path: module.path)
  return trace.records.filter { $0.module == module.index }.map {
    (symbolizer.function(containing: $0.address)?.name ?? "?", $0)
  }
}

/// The names of those first calls, of one launch phase when `phase` is given.
func names(in trace: Trace, module suffix: String, phase: Phase? = nil) throws -> [String] {
  try calls(in: trace, module: suffix).filter { phase == nil || $0.call.phase == phase }.map(\.name)
}

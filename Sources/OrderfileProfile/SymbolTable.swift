import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// Names for a trace's addresses, from whichever of its binaries could be found.
///
/// A profile is still useful when a library's binary is gone, so a module that
/// cannot be symbolized is named `<file>+0x<address>` and reported, not fatal.
public final class SymbolTable {
  private var symbolizers: [Int: any Symbolizer] = [:]
  /// Static initializers by module, read from the binary on first use.
  private var initializers: [Int: [StaticInitializer]] = [:]
  /// What the loader does for each module, read from the binary on first use; nil inside
  /// when the binary is unknown or unreadable.
  private var loading: [Int: ModuleLoading?] = [:]
  /// Modules whose binary could not be opened, with the reason.
  public private(set) var unavailable: [(module: String, reason: String)] = []

  public init(trace: Trace, binaries: BinaryResolver) {
    for module in trace.modules {
      do {
        symbolizers[module.index] = try binaries.symbolizer(recordedPath: module.path, buildID: module.buildID)
      } catch {
        unavailable.append((module.path, (error as? LocalizedError)?.errorDescription ?? "\(error)"))
      }
    }
  }

  /// A table over symbolizers already open, by module index (for tools that found the binaries themselves, and tests).
  public init(
    symbolizers: [Int: any Symbolizer], initializers: [Int: [StaticInitializer]] = [:],
    loading: [Int: ModuleLoading] = [:]
  ) {
    self.symbolizers = symbolizers
    self.initializers = initializers
    self.loading = loading.mapValues { $0 }
  }

  /// The module's `DT_SONAME`, `DT_NEEDED` names and relocations; nil when its binary is
  /// unknown or cannot be read (the profile then cannot place it in the load order).
  public func moduleLoading(module: Int) -> ModuleLoading? {
    if let known = loading[module] { return known }
    let read = (symbolizers[module] as? ELFSymbolizer).flatMap { try? $0.moduleLoading() }
    loading[module] = .some(read)
    return read
  }

  /// The module's static initializers in the order the loader runs them; empty when its
  /// binary is unknown or its tables cannot be read (the profile then just cannot name them).
  public func staticInitializers(module: Int) -> [StaticInitializer] {
    if let known = initializers[module] { return known }
    let read = (symbolizers[module] as? ELFSymbolizer).flatMap { try? $0.staticInitializers() } ?? []
    initializers[module] = read
    return read
  }

  /// The function containing `address` in `module`, when its binary is known.
  public func function(module: Int, address: UInt64) -> FunctionSymbol? {
    symbolizers[module]?.function(containing: address)
  }

  /// A readable name: the demangled function name, or `<file>+0x<address>`.
  public func name(module: Int, address: UInt64, in trace: Trace) -> String {
    if let symbol = function(module: module, address: address) { return Demangler.demangle(symbol.name) }
    let file = PathName.base(of: trace.modules[module].path)
    return "\(file)+0x\(String(address, radix: 16))"
  }

  /// The function's start address, so that several addresses inside one function count once.
  public func functionStart(module: Int, address: UInt64) -> UInt64 {
    function(module: module, address: address)?.address ?? address
  }
}

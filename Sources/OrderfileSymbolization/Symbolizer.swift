/// What the ordering code needs from a binary. `ELFSymbolizer` reads a real file; tests can
/// supply a fake.
///
/// All addresses are ELF virtual addresses (`st_value` space), never load addresses.
public protocol Symbolizer: AnyObject {
  /// The file the symbols come from.
  var path: String { get }
  /// The file's GNU build-id, if it has one.
  var buildID: BuildID? { get }
  /// Every function symbol (`STT_FUNC` and `STT_GNU_IFUNC`), one entry per address with the
  /// aliases folded in, sorted by address.
  ///
  /// A symbol without a size is kept unless a sized function covers its address (then it is
  /// an alias when it starts at the same address, or dropped when it lies inside).
  var functions: [FunctionSymbol] { get }
  /// The function whose `[address, address + size)` holds `address`; for a function without
  /// a size, the one that starts exactly at `address`. When functions nest, the innermost.
  func function(containing address: UInt64) -> FunctionSymbol?
  /// The source file and line of `address` from the DWARF line table; nil without line info.
  func sourceLocation(for address: UInt64) -> SourceLocation?
  /// The compilers that made the binary's code, as its DWARF compile units name them
  /// (`DW_AT_producer`: gcc lists its options there), once each; empty without DWARF.
  func compilerProducers() -> [String]
}

extension Symbolizer {
  public func compilerProducers() -> [String] { [] }
}

/// A function that the dynamic loader (or the C runtime's start code) runs before `main`, read
/// from the binary rather than from a recording: every one of them runs at every launch.
///
/// C++ `_GLOBAL__sub_I_*` functions, `__attribute__((constructor))` functions, Rust's and Swift's
/// image initializers and the C runtime's own `frame_dummy` all end up in one of the tables
/// below, whatever the compiler instrumented.
public struct StaticInitializer: Hashable, Sendable {
  /// Where the binary lists the function. The cases are in the order glibc runs them within one
  /// module: `DT_PREINIT_ARRAY` (executables only), `DT_INIT`, the legacy `.ctors` list (called
  /// by `DT_INIT`'s code), then `DT_INIT_ARRAY`.
  public enum Source: String, Sendable, Codable, Comparable, CaseIterable {
    case preinitArray = ".preinit_array"
    case initFunction = "DT_INIT"
    case ctors = ".ctors"
    case initArray = ".init_array"

    public static func < (lhs: Source, rhs: Source) -> Bool {
      allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
  }

  public var source: Source
  /// The function's ELF virtual address, as the table gives it after relocation.
  public var address: UInt64
  /// The function symbol at that address; nil when the symbol table has none (a stripped
  /// binary, or a function without a symbol).
  public var function: FunctionSymbol?

  public init(source: Source, address: UInt64, function: FunctionSymbol? = nil) {
    self.source = source
    self.address = address
    self.function = function
  }
}

extension ELFSymbolizer {
  /// The binary's static initializers in the order the loader runs them, each resolved to the
  /// function that contains its address.
  ///
  /// - Throws: `SymbolizationError` when the file can no longer be read.
  public func staticInitializers() throws -> [StaticInitializer] {
    try ELFFile(path: path).initializerAddresses().map { source, address in
      StaticInitializer(source: source, address: address, function: function(containing: address))
    }
  }
}

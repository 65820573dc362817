import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// What the dynamic loader does for one module before its code runs, read from the binary:
/// the libraries it names, and the relocations it applies.
///
/// A trace holds when each module's code first ran, never when the loader mapped or
/// relocated it; these counts say where the loader's work goes.
public struct ModuleLoading: Codable, Sendable, Equatable {
  /// Its `DT_SONAME`, when it has one.
  public var soname: String?
  /// Its `DT_NEEDED` names, in order: the loader loads them breadth first after it.
  public var needed: [String]
  public var relocations: Relocations

  /// Dynamic relocations by the work they cost the loader.
  public struct Relocations: Codable, Sendable, Equatable {
    /// Relative relocations (RELA and RELR): the load base added, no symbol looked up.
    public var relative: Int
    /// Relocations against a symbol (GOT entries, data pointers, TLS, copies): a symbol
    /// lookup each at load time.
    public var symbolic: Int
    /// Procedure-linkage (jump-slot) relocations: looked up at the first call of each
    /// function, unless `bindNow` has the loader do them all before the module runs.
    public var procedureLinkage: Int
    /// `DF_BIND_NOW` or `DF_1_NOW`: the procedure-linkage relocations are done at load time.
    public var bindNow: Bool

    public init(relative: Int, symbolic: Int, procedureLinkage: Int, bindNow: Bool) {
      self.relative = relative
      self.symbolic = symbolic
      self.procedureLinkage = procedureLinkage
      self.bindNow = bindNow
    }

    /// The ones the loader applies before the module's constructors run.
    public var atLoad: Int { relative + symbolic + (bindNow ? procedureLinkage : 0) }
  }

  public init(soname: String?, needed: [String], relocations: Relocations) {
    self.soname = soname
    self.needed = needed
    self.relocations = relocations
  }
}

extension ELFSymbolizer {
  /// The module's `DT_SONAME`, `DT_NEEDED` names and dynamic relocations.
  ///
  /// - Throws: `SymbolizationError` when the file can no longer be read.
  public func moduleLoading() throws -> ModuleLoading {
    let file = try ELFFile(path: path)
    return ModuleLoading(
      soname: file.dynamicString(Int64(DT_SONAME)), needed: file.dynamicDependencies().needed,
      relocations: file.dynamicRelocationCounts())
  }
}

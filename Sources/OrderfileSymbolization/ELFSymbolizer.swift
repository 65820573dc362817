import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// Symbols and line info of one ELF executable or shared library, read with libdw.
///
/// The file is checked and its function symbols indexed once, in `init`; lookups then
/// binary-search that index. The DWARF compile-unit table for `sourceLocation(for:)` is built
/// on its first call. A separate debug file is used when the binary lacks symbols or DWARF
/// and one is found locally (see `DebugInfoFinder`); no network lookups.
///
/// Addresses are ELF virtual addresses. libdwfl places the file at a bias of its own choosing
/// (nonzero for a shared library or PIE); the bias is read back and removed internally.
///
/// Not thread-safe: libdw state is not safe to share between threads, and the line table is
/// filled lazily. Use one instance per thread.
public final class ELFSymbolizer: Symbolizer {
  public let path: String
  public let buildID: BuildID?
  /// Where the function symbols came from.
  public let symbolSource: SymbolSource
  public var functions: [FunctionSymbol] { index.functions }

  private let session: OpaquePointer  // Dwfl
  private let module: OpaquePointer  // Dwfl_Module
  /// libdwfl keeps a pointer to its callbacks, so they live exactly as long as the session.
  private let callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
  /// Module address = ELF virtual address + bias.
  private let bias: UInt64
  private let index: FunctionIndex
  private var lineTable: LineTable?

  /// Opens the ELF executable or shared library at `path` and indexes its function symbols.
  ///
  /// - Throws: `SymbolizationError` when the file is missing or unreadable, not ELF, cut
  ///   short, an object or core file, or refused by libdw.
  public init(path: String) throws {
    self.path = path
    let file = try ELFFile(path: path)
    buildID = try file.buildID()
    let hasSymbolTable = file.hasSection(ofType: SHT_SYMTAB)

    let callbacks = UnsafeMutablePointer<Dwfl_Callbacks>.allocate(capacity: 1)
    callbacks.initialize(to: Dwfl_Callbacks())
    // The file is given by path, so libdwfl never needs to look for the main ELF file; this
    // refuses rather than let libdwfl's own finder consult debuginfod.
    callbacks.pointee.find_elf = { _, _, _, _, _, _ in
      errno = ENOENT
      return -1
    }
    callbacks.pointee.find_debuginfo = { module, _, _, _, fileName, debuglink, _, foundPath in
      DebugInfoFinder.open(
        module: module, fileName: fileName, debuglink: debuglink, foundPath: foundPath)
    }
    callbacks.pointee.section_address = dwfl_offline_section_address
    func fail(_ call: String, _ session: OpaquePointer?) -> SymbolizationError {
      let message = dwfl_errmsg(-1).map { String(cString: $0) } ?? "unknown libdwfl error"
      if let session { dwfl_end(session) }
      callbacks.deallocate()
      return .library(path: path, call: call, message: message)
    }
    guard let session = dwfl_begin(callbacks) else { throw fail("dwfl_begin", nil) }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let module = dwfl_report_offline(session, name, path, -1) else {
      throw fail("dwfl_report_offline", session)
    }
    guard dwfl_report_end(session, nil, nil) == 0 else { throw fail("dwfl_report_end", session) }
    var bias: GElf_Addr = 0
    guard dwfl_module_getelf(module, &bias) != nil else {
      throw fail("dwfl_module_getelf", session)
    }
    self.callbacks = callbacks
    self.session = session
    self.module = module
    self.bias = bias
    index = FunctionIndex(SymbolTableReader.functionSymbols(of: module, bias: bias))
    symbolSource = Self.source(of: module, hasSymbolTable: hasSymbolTable, found: !index.functions.isEmpty)
  }

  /// Opens the binary at `path` to name the functions a trace recorded in it: as
  /// `init(path:)`, but a binary without any function symbols is an error rather than one
  /// in which nothing matches.
  ///
  /// - Throws: `SymbolizationError.noSymbolTable` when `symbolSource` is `.none`.
  public static func withSymbols(path: String) throws -> ELFSymbolizer {
    let symbolizer = try ELFSymbolizer(path: path)
    guard symbolizer.symbolSource != .none else {
      throw SymbolizationError.noSymbolTable(path: path, buildID: symbolizer.buildID)
    }
    return symbolizer
  }

  /// libdwfl reads `.symtab` from the file, else from a separate debug file, else `.dynsym`.
  private static func source(of module: OpaquePointer, hasSymbolTable: Bool, found: Bool) -> SymbolSource {
    if hasSymbolTable { return .symbolTable }
    var debugFile: UnsafePointer<CChar>?
    _ = dwfl_module_info(module, nil, nil, nil, nil, nil, nil, &debugFile)
    if let debugFile { return .debugFile(String(cString: debugFile)) }
    return found ? .dynamicSymbols : .none
  }

  deinit {
    lineTable = nil
    dwfl_end(session)
    callbacks.deallocate()
  }

  public func function(containing address: UInt64) -> FunctionSymbol? {
    index.function(containing: address)
  }

  public func sourceLocation(for address: UInt64) -> SourceLocation? {
    loadedLineTable().location(for: address)
  }

  /// How the compile units' code is laid out (see `CompileUnitLayout`); nil without DWARF.
  public func compileUnitLayout() -> CompileUnitLayout? {
    let layout = loadedLineTable().unitLayout
    return layout.units == 0 ? nil : layout
  }

  public func compilerProducers() -> [String] {
    loadedLineTable().producers
  }

  private func loadedLineTable() -> LineTable {
    if let lineTable { return lineTable }
    let table = LineTable(module: module, bias: bias)
    lineTable = table
    return table
  }
}

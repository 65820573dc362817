import CLibdw
import Foundation
import OrderfileSupport

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
  /// The sized data objects of the symbol table (`STT_OBJECT`), sorted by address.
  public let dataObjects: [DataObject]
  /// The link map that names this binary's input sections, when one was found
  /// (`BINARY.map`, or the one given) and it describes this very link.
  public let linkMap: LinkMap?
  /// Why a link map that was given or found beside the binary was not used.
  public let linkMapProblem: SymbolizationError?

  private let session: OpaquePointer  // Dwfl
  private let module: OpaquePointer  // Dwfl_Module
  /// libdwfl keeps a pointer to its callbacks, so they live exactly as long as the session.
  private let callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
  /// Module address = ELF virtual address + bias.
  private let bias: UInt64
  private var index: FunctionIndex
  private var lineTable: LineTable?

  /// Opens the ELF executable or shared library at `path` and indexes its functions: its
  /// function symbols and, when it has a full symbol table, the code its call-frame
  /// information lists that no symbol names (see `FunctionSymbol.hasSymbol`).
  ///
  /// - Parameter linkMap: the lld link map of this link; by default `path + ".map"` (or the
  ///   real file's, for a link) when it exists. It names every function's input section, and code without a symbol after it.
  /// - Throws: `SymbolizationError` when the file is missing or unreadable, not ELF, cut
  ///   short, an object or core file, or refused by libdw.
  public init(path: String, linkMap: String? = nil) throws {
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
    let name = PathName.base(of: path)
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
    // The file's own table is read from the mapping; libdwfl finds the others (a debug
    // file's, .dynsym with .gnu_debugdata).
    let (symbols, untyped, objects) =
      (hasSymbolTable ? MappedSymbolTable.read(file) : nil)
      ?? SymbolTableReader.symbols(of: module, bias: bias)
    dataObjects = objects.map {
      DataObject(name: $0.name, address: $0.address, size: $0.size, binding: $0.binding, sectionName: $0.sectionName)
    }.sorted { ($0.address, $0.name) < ($1.address, $1.name) }
    let named = FunctionIndex(symbols)
    symbolSource = Self.source(of: module, hasSymbolTable: hasSymbolTable, found: !named.functions.isEmpty)
    let map = Self.readLinkMap(
      linkMap ?? Self.defaultLinkMap(of: path), required: linkMap != nil, binary: path, functions: named.functions)
    self.linkMap = map.map
    linkMapProblem = map.problem
    switch symbolSource {
    case .symbolTable, .debugFile:
      // With a full symbol table, a function without a symbol is one the compiler made none
      // for; with only .dynsym, every local function would look like one.
      let unnamed = Self.functionsWithoutSymbol(
        in: file, untyped: untyped, linkMap: map.map, covered: { named.function(containing: $0) != nil },
        before: { named.function(before: $0).map { ($0.name, $0.address) } })
      index = unnamed.isEmpty ? named : FunctionIndex(symbols + unnamed)
    case .dynamicSymbols, .none:
      index = named
    }
    if let map = map.map { index = index.withInputSections(from: map) }
  }

  /// The functions `.eh_frame` lists whose start no function symbol covers: under the
  /// untyped symbol at their start when there is one (clang names the cold parts it splits
  /// off so), else named after their input section when the link map gives it, else after
  /// the nearest named function before them.
  ///
  /// - Parameters:
  ///   - covered: whether a named function holds an address.
  ///   - before: the name and start of the last named function that starts before an address.
  static func functionsWithoutSymbol(
    in file: ELFFile, untyped: [RawFunctionSymbol], linkMap: LinkMap?, covered: (UInt64) -> Bool,
    before: (UInt64) -> (name: String, address: UInt64)?
  ) -> [RawFunctionSymbol] {
    let text = file.executableSections().filter { $0.name.hasPrefix(".text") }
    var labels: [UInt64: RawFunctionSymbol] = [:]
    for symbol in untyped where labels[symbol.address] == nil { labels[symbol.address] = symbol }
    var unnamed: [RawFunctionSymbol] = []
    for range in FrameDescriptions.ranges(in: file) where !covered(range.start) {
      guard let section = text.first(where: { $0.range.contains(range.start) }) else { continue }
      if var label = labels[range.start] {
        label.size = range.length
        unnamed.append(label)
        continue
      }
      let name: String
      if let placement = linkMap?.placement(containing: range.start) {
        // A section that holds several functions (no -ffunction-sections) names each by offset.
        let offset = range.start - placement.address
        name = placement.input.description + (offset == 0 ? "" : "+0x" + String(offset, radix: 16))
      } else if let before = before(range.start) {
        name = "\(before.name)+0x\(String(range.start - before.address, radix: 16))"
      } else {
        name = "\(section.name)+0x\(String(range.start - section.range.lowerBound, radix: 16))"
      }
      unnamed.append(
        RawFunctionSymbol(
          name: name, address: range.start, size: range.length, binding: .local, sectionName: section.name,
          sectionAlignment: section.alignment, hasSymbol: false))
    }
    return unnamed
  }

  /// The map at `path` when it describes this link; a missing map that was only looked
  /// for is no problem.
  /// `path + ".map"`, else the map beside the real file when `path` is a link to it (a
  /// library given by its SONAME link, linked with `-Map=libapp.so.0.0.0.map`).
  public static func defaultLinkMap(of path: String) -> String {
    let beside = path + ".map"
    guard !FileManager.default.fileExists(atPath: beside), let real = ModuleFile.resolved(path),
      FileManager.default.fileExists(atPath: real + ".map")
    else { return beside }
    return real + ".map"
  }

  private static func readLinkMap(_ path: String, required: Bool, binary: String, functions: [FunctionSymbol])
    -> (map: LinkMap?, problem: SymbolizationError?)
  {
    if !required && !FileManager.default.fileExists(atPath: path) { return (nil, nil) }
    do {
      let map = try LinkMap.read(path: path)
      if let wrong = map.firstDisagreement(with: functions) {
        return (
          nil,
          .staleLinkMap(
            path: path, binary: binary, symbol: wrong.name, mapAddress: wrong.map, binaryAddress: wrong.binary)
        )
      }
      return (map, nil)
    } catch let error as SymbolizationError {
      return (nil, error)
    } catch {
      return (nil, .cannotRead(path: path, reason: error.localizedDescription))
    }
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

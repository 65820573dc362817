/// One data object of a binary's symbol table (`STT_OBJECT` with a size): a named table, a
/// constant, a variable. Compiled with `-fdata-sections`, each is an input section of its own,
/// which lld's `--symbol-ordering-file` places by this name as it places functions.
public struct DataObject: Hashable, Sendable {
  /// The name exactly as in the symbol table.
  public var name: String
  /// The ELF virtual address (`st_value`).
  public var address: UInt64
  /// The size in bytes (`st_size`), never 0.
  public var size: UInt64
  public var binding: SymbolBinding
  /// The output section that holds it (`.rodata`, `.data.rel.ro`).
  public var sectionName: String

  public init(name: String, address: UInt64, size: UInt64, binding: SymbolBinding, sectionName: String) {
    self.name = name
    self.address = address
    self.size = size
    self.binding = binding
    self.sectionName = sectionName
  }

  /// Its addresses.
  public var range: Range<UInt64> { address..<(address + size) }
}

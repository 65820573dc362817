import OrderfileSymbolization
import Testing

/// An lld map's read-only data: `.rodata` with a jump table, a named table and merged
/// literals, `.data.rel.ro`, then code and writable data, which are no launch data.
private let map = """
               VMA              LMA     Size Align Out     In      Symbol
               ec0              ec0      940    16 .rodata
               ec0              ec0       40     4         build/app.o:(.rodata.classify)
               f00              f00      400    16         build/app.o:(.rodata.table_7)
               f00              f00      400     1                 table_7
              1300             1300       33     1         <internal>:(.rodata.str1.1)
             1b2b0            1b2b0      300    16 .data.rel.ro
             1b2b0            1b2b0      300    16         lib/libx.a(x.o):(.data.rel.ro.tables)
             1c010            1c010       40    16 .text
             1c010            1c010       40    16         build/app.o:(.text.main)
             1d000            1d000       10     8 .data
             1d000            1d000       10     8         build/app.o:(.data.counter)
  """

@Suite("The link map's read-only data input sections")
struct LinkMapDataTests {
  @Test("data input sections keep their object, output section and alignment; code and .data stay apart")
  func dataPlacements() throws {
    let linkMap = try LinkMap(path: "app.map", text: map)
    let placed = linkMap.dataPlacements.map { "\($0.outputSection) \($0.input.description) \($0.alignment)" }
    #expect(
      placed == [
        ".rodata app.o(.rodata.classify) 4", ".rodata app.o(.rodata.table_7) 16",
        ".rodata <internal>(.rodata.str1.1) 1", ".data.rel.ro libx.a:x.o(.data.rel.ro.tables) 16",
      ])
    #expect(linkMap.placements.map(\.input.section) == [".text.main"])
    #expect(linkMap.dataPlacement(containing: 0xf10)?.input.section == ".rodata.table_7")
    #expect(linkMap.dataPlacement(containing: 0x1340) == nil)
    #expect(DataSection(outputSection: "swift5_typeref") == .swiftMetadata("swift5_typeref"))
    #expect(DataSection(outputSection: ".data") == nil)
    // Lists the Swift runtime scans whole stay in link order (see `DataSection.scannedInOrder`).
    #expect(DataSection(outputSection: "swift5_protocol_conformances") == nil)
    #expect(DataSection(outputSection: "swift5_types") == nil)
  }
}

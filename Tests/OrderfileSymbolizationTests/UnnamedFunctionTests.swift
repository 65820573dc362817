import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

/// A program whose function `hidden` has no symbol in the linked binary (its symbol is
/// stripped from the object, as Swift never gives its `.text..L` functions one), linked by
/// lld with a map.
struct UnnamedProgram {
  let work: TemporaryDirectory
  let binary: String
  let map: String
  /// `hidden`'s address and size, from the map's input section `.text.hidden`.
  let hidden: (address: UInt64, size: UInt64)

  init() throws {
    work = try TemporaryDirectory("orderfile-unnamed")
    let object = try unnamedFixtureObject(in: work)
    binary = work.file("app")
    map = work.file("link.map")
    try Self.link(object, to: binary, map: map)
    let line = try #require(
      try FileReading.text(atPath: map).split(separator: "\n").first { $0.hasSuffix("unnamed.o:(.text.hidden)") })
    let fields = line.split(separator: " ")
    hidden = (try #require(UInt64(fields[0], radix: 16)), try #require(UInt64(fields[2], radix: 16)))
  }

  static func link(_ object: String, to binary: String, map: String, extra: [String] = []) throws {
    try runChecked(
      Toolchain.clang, [object, "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + map, "-o", binary] + extra,
      environment: Toolchain.environment)
  }
}

@Suite("Code without a symbol: found by .eh_frame, named by the link map")
struct UnnamedFunctionTests {
  @Test("every sized function nm lists in .text has a frame description with its start and length")
  func frameDescriptionsMatchSymbols() throws {
    let program = try UnnamedProgram()
    let symbolizer = try ELFSymbolizer(path: program.binary)
    let named = try NMSymbol.functions(of: program.binary).filter { $0.size > 0 && $0.section == ".text" }
    #expect(named.count >= 2)
    for symbol in named {
      let found = symbolizer.functions.first { $0.address == symbol.address }
      #expect(found?.size == symbol.size, "\(symbol.name)")
    }
  }

  @Test("without a map, the function is found and named after the nearest symbol before it")
  func withoutMap() throws {
    let program = try UnnamedProgram()
    #expect(!(try NMSymbol.functions(of: program.binary).contains { $0.name == "hidden" }))
    let symbolizer = try ELFSymbolizer(path: program.binary)
    let found = try #require(symbolizer.function(containing: program.hidden.address + 1))
    #expect(found.address == program.hidden.address)
    #expect(found.size == program.hidden.size)
    #expect(!found.hasSymbol)
    #expect(found.sectionName == ".text")
    let before = try #require(symbolizer.functions.last { $0.hasSymbol && $0.address < program.hidden.address })
    #expect(found.name == "\(before.name)+0x\(String(program.hidden.address - before.address, radix: 16))")
    #expect(symbolizer.linkMap == nil && symbolizer.linkMapProblem == nil)
  }

  @Test("with the map beside the binary, it is named by its object and input section")
  func withMap() throws {
    let program = try UnnamedProgram()
    try FileManager.default.copyItem(atPath: program.map, toPath: program.binary + ".map")
    let symbolizer = try ELFSymbolizer(path: program.binary)
    let found = try #require(symbolizer.function(containing: program.hidden.address))
    #expect(found.name == "unnamed.o(.text.hidden)")
    #expect(found.inputSection == InputSection(object: "unnamed.o", section: ".text.hidden"))
    #expect(symbolizer.functions.first { $0.name == "main" }?.inputSection?.section == ".text.main")
  }

  @Test("a map of another link is not used, and says which symbol moved")
  func staleMap() throws {
    let program = try UnnamedProgram()
    let order = program.work.file("order")
    try "main\n".write(toFile: order, atomically: true, encoding: .utf8)
    let relinked = program.work.file("relinked")
    try UnnamedProgram.link(
      program.work.file("unnamed.o"), to: relinked, map: program.work.file("relinked.map"),
      extra: ["-Wl,--symbol-ordering-file=" + order])
    let symbolizer = try ELFSymbolizer(path: relinked, linkMap: program.map)
    #expect(symbolizer.linkMap == nil)
    guard case .staleLinkMap(let path, _, _, _, _)? = symbolizer.linkMapProblem else {
      Issue.record("expected a stale map, got \(String(describing: symbolizer.linkMapProblem))")
      return
    }
    #expect(path == program.map)
  }

  @Test("lld's map format: input sections, archive members as a script names them, short unique object names")
  func parsesMap() throws {
    let text = """
                   VMA              LMA     Size Align Out     In      Symbol
                  1000             1000      100    16 .text
                  1000             1000       20    16         /b/x/App.build/main.swift.o:(.text.main)
                  1000             1000        0     1                 main
                  1020             1020       10    16         /b/x/App.build/main.swift.o:(.text..L__unnamed_3)
                  1030             1030       10    16         /b/y/Lib.build/main.swift.o:(.text..L__unnamed_3)
                  1040             1040       30    16         /usr/lib/libfoo.a(bar.o):(.text.bar)
                  2000             2000       10     8 .data
                  2000             2000       10     8         /b/x/App.build/main.swift.o:(.data)
      """
    let map = try LinkMap(path: "m", text: text)
    #expect(
      map.placements.map(\.input.description) == [
        "App.build/main.swift.o(.text.main)", "App.build/main.swift.o(.text..L__unnamed_3)",
        "Lib.build/main.swift.o(.text..L__unnamed_3)", "libfoo.a:bar.o(.text.bar)",
      ])
    #expect(map.inputSection(containing: 0x1025)?.description == "App.build/main.swift.o(.text..L__unnamed_3)")
    #expect(map.inputSection(containing: 0x1070) == nil)
    #expect(map.inputSection(containing: 0x2000) == nil)
    #expect(map.addresses(ofSymbol: "main") == [0x1000])
    #expect(throws: SymbolizationError.self) { try LinkMap(path: "m", text: "not a map\n") }
  }
}

import Foundation
import OrderfileOrdering
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("Writing orderfiles")
struct OrderfileWritingTests {
  let symbols = [
    symbol("main", 0x1000), symbol("_ZN3app4initEv", 0x1040), symbol("helper.isra.0", 0x5000, binding: .local),
    symbol("parse", 0x1080, binding: .local), symbol("parse", 0x2000, binding: .local),
  ]

  @Test("lld: one linkage name a line, clones verbatim, a shared local name once")
  func lld() {
    #expect(OrderfileFormat.lld.render(symbols) == "main\n_ZN3app4initEv\nhelper.isra.0\nparse\n")
  }

  @Test("gold: each function's .text, .text.hot and .text.startup sections, a shared local name once")
  func gold() {
    #expect(
      OrderfileFormat.gold.render(symbols)
        == """
        .text.main
        .text.hot.main
        .text.startup.main
        .text._ZN3app4initEv
        .text.hot._ZN3app4initEv
        .text.startup._ZN3app4initEv
        .text.helper.isra.0
        .text.hot.helper.isra.0
        .text.startup.helper.isra.0
        .text.parse
        .text.hot.parse
        .text.startup.parse

        """)
  }

  @Test("gold: an input section name kept in the binary is used as it is")
  func goldKeepsRealSectionName() {
    var main = symbol("main", 0x1000)
    main.sectionName = ".text.startup.main"
    #expect(OrderfileFormat.gold.lines(for: main) == [".text.startup.main"])
    main.sectionName = ".text.other"
    #expect(OrderfileFormat.gold.lines(for: main).count == 3)
  }

  @Test("ld64: Mach-O names with a leading underscore")
  func ld64() {
    #expect(OrderfileFormat.ld64.render(symbols) == "_main\n__ZN3app4initEv\n_helper.isra.0\n_parse\n")
  }

  @Test("lld-script: one input section a line, in a section before .text; code without a symbol only here")
  func lldScript() {
    var main = symbol("main", 0x1000)
    main.inputSection = InputSection(object: "App.build/main.swift.o", section: ".text.main")
    let unnamed = FunctionSymbol(
      name: "App.build/main.swift.o(.text..L__unnamed_3)", address: 0x1100, size: 0x10, binding: .local,
      sectionName: ".text", hasSymbol: false,
      inputSection: InputSection(object: "App.build/main.swift.o", section: ".text..L__unnamed_3"))
    var crt = symbol("_start", 0x900)
    crt.inputSection = InputSection(object: "Scrt1.o", section: ".text")
    let helper = symbol("helper", 0x2000)
    #expect(
      OrderfileFormat.lldScript.render([crt, main, unnamed, helper])
        == """
        SECTIONS {
          .text.launch : {
            *App.build/main.swift.o(.text.main)
            *App.build/main.swift.o(.text..L__unnamed_3)
            *(.text.helper)
          }
        } INSERT BEFORE .text;

        """)
    #expect(OrderfileFormat.lld.render([main, unnamed, helper]) == "main\nhelper\n")
    #expect(OrderfileFormat.gold.lines(for: unnamed).isEmpty)
    let file = Orderfile(path: "a.ld", text: OrderfileFormat.lldScript.render([main, unnamed, helper]))
    #expect(file.format == .lldScript)
    #expect(file.names == ["main", "App.build/main.swift.o(.text..L__unnamed_3)", "helper"])
  }

  @Test("lld-script: a character a linker script would read as syntax or a glob matches as any one character")
  func lldScriptPatterns() {
    var odd = symbol("f", 0x1000)
    odd.inputSection = InputSection(object: "my dir/a[1].o", section: ".text.f*")
    #expect(OrderfileFormat.lldScript.lines(for: odd) == ["*my?dir/a?1?.o(.text.f?)"])
  }

  @Test("an empty order renders as an empty file")
  func empty() {
    #expect(OrderfileFormat.lld.render([]) == "")
  }
}

@Suite("Reading orderfiles back")
struct OrderfileReadingTests {
  @Test func lld() {
    let file = Orderfile(path: "a", text: "main\n_ZN1a1bEv\n\nfoo.part.0\n")
    #expect(file.format == .lld)
    #expect(file.names == ["main", "_ZN1a1bEv", "foo.part.0"])
  }

  @Test func gold() {
    let file = Orderfile(path: "a", text: ".text.main\n.text.startup.init\n.text.foo.isra.0\n.text.unlikely.cold\n")
    #expect(file.format == .gold)
    #expect(file.names == ["main", "init", "foo.isra.0", "cold"])
  }

  @Test("a gold file's lines for one function's possible sections read as one name")
  func goldSectionsOfOneFunction() {
    let file = Orderfile(path: "a", text: ".text.main\n.text.hot.main\n.text.startup.main\n.text.a\n.text.hot.a\n")
    #expect(file.format == .gold)
    #expect(file.names == ["main", "a"])
  }

  @Test("comments and surrounding blanks are not entries")
  func comments() {
    let file = Orderfile(path: "a", text: "# generated\n  main  \n\n\tparse\n")
    #expect(file.lines == ["main", "parse"])
  }
}

@Suite("Orderfiles round-trip")
struct OrderfileRoundTripTests {
  /// Functions whose names look like section prefixes, clones and Mach-O names, to catch a
  /// reader that strips what the writer did not add.
  let symbols = [
    symbol("main", 0x1000), symbol("hot", 0x1040), symbol("startup", 0x1080), symbol("_underscored", 0x10c0),
    symbol("helper.isra.0", 0x1100, binding: .local), symbol("unlikely", 0x1140),
  ]

  @Test(
    "what lld and gold files are written with reads back as the same functions in the same order",
    arguments: [OrderfileFormat.lld, .gold])
  func detected(format: OrderfileFormat) {
    let file = Orderfile(path: "x", text: format.render(symbols))
    #expect(file.format == format)
    #expect(file.names == symbols.map(\.name))
  }

  @Test("every line of every format names the function it was written for", arguments: OrderfileFormat.allCases)
  func eachLine(format: OrderfileFormat) {
    for symbol in symbols {
      for line in format.lines(for: symbol) {
        #expect(format.functionName(inLine: line) == symbol.name, "\(format): \(line)")
      }
    }
  }
}

extension OrderfileReadingTests {
  /// The entries as Swift's Unicode string functions find them: the definition the byte-level
  /// reader must match.
  static func unicodeEntries(_ text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
  }

  @Test("lines are split, trimmed and filtered as Unicode says, for random mixes of names, spaces and line ends")
  func matchesUnicodeRules() {
    var generator = SplitMix64(seed: 22)
    let pieces = [
      "main", "_ZN3app4initEv", "f", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "# comment", "#",
      "\u{85}", "\u{2028}", "\u{A0}", "\u{3000}", "é", "名前", ".text.hot.main", "x y",
    ]
    for _ in 0..<2_000 {
      let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
        pieces[Int.random(in: 0..<pieces.count, using: &generator)]
      }.joined()
      #expect(Orderfile(path: "a.order", text: text).lines == Self.unicodeEntries(text), "\(text.debugDescription)")
    }
  }
}

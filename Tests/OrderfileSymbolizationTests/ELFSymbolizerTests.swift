import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("ELFSymbolizer on C fixtures built by clang and gcc")
struct ELFSymbolizerTests {
  @Test(
    "every function nm lists is found at its address, with its size and section",
    arguments: FixtureVariant.all)
  func agreesWithNM(variant: FixtureVariant) throws {
    let path = try FixtureBinaries.path(for: variant)
    let symbolizer = try ELFSymbolizer(path: path)
    let expected = try NMSymbol.functions(of: path)
    #expect(expected.count > 5)
    let alignments = try BinutilsFacts.sectionAlignments(of: path)
    for symbol in expected {
      let found = symbolizer.function(containing: symbol.address)
      #expect(found?.allNames.contains(symbol.name) == true, "\(symbol.name) in \(variant)")
      #expect(found?.address == symbol.address, "\(symbol.name) in \(variant)")
      #expect(found?.size == symbol.size, "\(symbol.name) in \(variant)")
      #expect(found?.sectionName == symbol.section, "\(symbol.name) in \(variant)")
      if let found {
        #expect(
          alignments[found.sectionName]?.contains(found.sectionAlignment) == true,
          "\(symbol.name): alignment \(found.sectionAlignment) of \(found.sectionName)")
      }
      if symbol.size > 1 {
        #expect(
          symbolizer.function(containing: symbol.address + symbol.size / 2)?.address
            == symbol.address)
        #expect(
          symbolizer.function(containing: symbol.address + symbol.size - 1)?.address
            == symbol.address)
      }
    }
    // Nothing more than nm lists, one entry per address, sorted.
    let listed = Set(expected.map(\.name))
    for function in symbolizer.functions {
      #expect(function.allNames.allSatisfy(listed.contains), "\(function.allNames)")
    }
    let addresses = symbolizer.functions.map(\.address)
    #expect(addresses == addresses.sorted())
    #expect(Set(addresses).count == addresses.count)
    #expect(Set(addresses) == Set(expected.map(\.address)))
  }

  @Test("addresses outside every function find nothing", arguments: FixtureVariant.all)
  func outsideFunctions(variant: FixtureVariant) throws {
    let symbolizer = try ELFSymbolizer(path: try FixtureBinaries.path(for: variant))
    #expect(symbolizer.function(containing: 0) == nil)
    #expect(symbolizer.function(containing: UInt64.max) == nil)
    let last = try #require(symbolizer.functions.max { $0.address < $1.address })
    #expect(symbolizer.function(containing: last.address + max(last.size, 1)) == nil)
  }

  @Test("aliases fold into one function", arguments: FixtureVariant.all)
  func aliasesFold(variant: FixtureVariant) throws {
    let path = try FixtureBinaries.path(for: variant)
    let symbolizer = try ELFSymbolizer(path: path)
    let target = try #require(
      try NMSymbol.functions(of: path).first { $0.name == "aliased_target" })
    let function = try #require(symbolizer.function(containing: target.address))
    // Global before weak, then the shorter name.
    #expect(function.name == "aliased_alias")
    #expect(function.aliases == ["aliased_target", "aliased_weak"])
    #expect(function.binding == .global)
    #expect(symbolizer.functions.filter { $0.allNames.contains("aliased_weak") }.count == 1)
  }

  @Test("an indirect function folds with its resolver", arguments: FixtureVariant.all)
  func indirectFunction(variant: FixtureVariant) throws {
    let path = try FixtureBinaries.path(for: variant)
    let symbolizer = try ELFSymbolizer(path: path)
    let chosen = try #require(try NMSymbol.functions(of: path).first { $0.name == "chosen" })
    #expect(chosen.type == "IFUNC")
    let function = try #require(symbolizer.function(containing: chosen.address))
    #expect(function.name == "chosen")
    #expect(function.aliases == ["resolve_chosen"])
    #expect(symbolizer.functions.contains { $0.name == "chosen_impl" })
  }

  @Test(
    "static functions of the same name in two files are both present", arguments: FixtureVariant.all
  )
  func staticDuplicates(variant: FixtureVariant) throws {
    let symbolizer = try ELFSymbolizer(path: try FixtureBinaries.path(for: variant))
    let helpers = symbolizer.functions.filter { $0.name == "helper" }
    #expect(helpers.count == 2)
    #expect(Set(helpers.map(\.address)).count == 2)
    #expect(helpers.allSatisfy { $0.binding == .local })
  }

  @Test("build-id matches readelf", arguments: FixtureVariant.all)
  func buildID(variant: FixtureVariant) throws {
    let path = try FixtureBinaries.path(for: variant)
    let expected = try #require(try BinutilsFacts.buildID(of: path))
    #expect(try ELFSymbolizer(path: path).buildID?.description == expected)
    #expect(try BinaryLocator.buildID(ofFileAt: path)?.description == expected)
  }

  @Test(
    "-ffunction-sections names survive when the link keeps them apart",
    arguments: FixtureVariant.all)
  func sectionNames(variant: FixtureVariant) throws {
    let symbolizer = try ELFSymbolizer(path: try FixtureBinaries.path(for: variant))
    for name in ["located_function", "second_function", "other_entry"] {
      let function = try #require(symbolizer.functions.first { $0.name == name })
      #expect(function.sectionName == (variant.keepsFunctionSections ? ".text.\(name)" : ".text"))
    }
    for helper in symbolizer.functions where helper.name == "helper" {
      #expect(helper.sectionName == (variant.keepsFunctionSections ? ".text.helper" : ".text"))
    }
  }

  @Test(
    "source lines come from DWARF, with or without .debug_aranges", arguments: FixtureVariant.all)
  func sourceLines(variant: FixtureVariant) throws {
    let path = try FixtureBinaries.path(for: variant)
    #expect(try BinutilsFacts.dwarfVersions(of: path) == [variant.dwarfVersion])
    if variant.compiler == .clang {
      // The case dwfl_module_getsrc cannot handle.
      #expect(try !BinutilsFacts.sectionNames(of: path).contains(".debug_aranges"))
    }
    let symbolizer = try ELFSymbolizer(path: path)
    let opening = try FixtureBinaries.line(
      containing: "int located_function(int x) {", in: "located.c")
    let closing = opening + 3
    let function = try #require(symbolizer.functions.first { $0.name == "located_function" })

    let entry = try #require(symbolizer.sourceLocation(for: function.address))
    #expect(entry.file.hasSuffix("/symbolization/located.c"))
    if variant.unoptimized {
      #expect(entry.line == opening)
    } else {
      #expect((opening...closing).contains(entry.line))
    }
    let middle = try #require(symbolizer.sourceLocation(for: function.address + function.size / 2))
    #expect(middle.file == entry.file)
    #expect((opening...closing).contains(middle.line))

    let other = try #require(symbolizer.functions.first { $0.name == "other_entry" })
    let otherLine = try FixtureBinaries.line(containing: "int other_entry(int x) {", in: "other.c")
    let otherLocation = try #require(symbolizer.sourceLocation(for: other.address))
    #expect(otherLocation.file.hasSuffix("/symbolization/other.c"))
    #expect((otherLine...otherLine + 2).contains(otherLocation.line))
  }

  @Test(
    "source files compiled by relative path come back absolute",
    arguments: [
      (FixtureVariant.Compiler.clang, "-gdwarf-4"), (.clang, "-gdwarf-5"), (.gcc, "-gdwarf-4"),
      (.gcc, "-gdwarf-5"),
    ])
  func relativeSources(compiler: FixtureVariant.Compiler, dwarf: String) throws {
    let directory = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: directory.file("src"), withIntermediateDirectories: true)
    for name in ["main.c", "located.c", "other.c"] {
      try FileManager.default.copyItem(
        atPath: FixtureBinaries.sources + "/" + name, toPath: directory.file("src/" + name))
    }
    try runChecked(
      FixtureBinaries.compilerPath(compiler),
      ["-g", dwarf, "-O0", "src/main.c", "src/located.c", "src/other.c", "-o", "program"],
      currentDirectory: directory.path)
    let symbolizer = try ELFSymbolizer(path: directory.file("program"))
    let function = try #require(symbolizer.functions.first { $0.name == "located_function" })
    let location = try #require(symbolizer.sourceLocation(for: function.address))
    #expect(location.file.hasPrefix("/"))
    #expect(location.file.hasSuffix("/src/located.c"))
    #expect(FileManager.default.fileExists(atPath: location.file))
  }

  @Test("no line info gives nil, not an error")
  func noLineInfo() throws {
    let directory = try TemporaryDirectory()
    let output = directory.file("nodebug")
    try runChecked(
      Toolchain.clang,
      [
        "-O0", "-Wl,--build-id", FixtureBinaries.sources + "/main.c",
        FixtureBinaries.sources + "/located.c",
        FixtureBinaries.sources + "/other.c", "-o", output,
      ])
    let symbolizer = try ELFSymbolizer(path: output)
    let function = try #require(symbolizer.functions.first { $0.name == "located_function" })
    #expect(symbolizer.sourceLocation(for: function.address) == nil)
    #expect(symbolizer.sourceLocation(for: 0) == nil)
  }

  @Test("a stripped binary falls back to .dynsym")
  func strippedUsesDynamicSymbols() throws {
    let library = try FixtureBinaries.path(
      for: try #require(
        FixtureVariant.all.first { $0.name == "clang-shared-function-sections-dwarf4" }))
    let directory = try TemporaryDirectory()
    let stripped = directory.file("libstripped.so")
    try runChecked(ProcessRunner.resolve("strip"), ["--strip-all", library, "-o", stripped])
    let symbolizer = try ELFSymbolizer(path: stripped)
    let names = Set(symbolizer.functions.flatMap(\.allNames))
    #expect(
      names.isSuperset(of: ["located_function", "second_function", "other_entry", "aliased_target"])
    )
    #expect(!names.contains("helper"))
    let full = try ELFSymbolizer(path: library)
    for function in symbolizer.functions {
      #expect(full.function(containing: function.address)?.address == function.address)
    }
  }

  @Test("a separate debug file found through .gnu_debuglink supplies symbols and lines")
  func debugLink() throws {
    let variant = try #require(FixtureVariant.all.first { $0.name == "clang-pie-lld-dwarf5" })
    let original = try FixtureBinaries.path(for: variant)
    let directory = try TemporaryDirectory()
    let binary = directory.file("program")
    let debug = directory.file("program.debug")
    let objcopy = ProcessRunner.resolve("objcopy")
    try runChecked(objcopy, ["--only-keep-debug", original, debug])
    try runChecked(objcopy, ["--strip-all", "--add-gnu-debuglink=\(debug)", original, binary])
    let symbolizer = try ELFSymbolizer(path: binary)
    let function = try #require(symbolizer.functions.first { $0.name == "located_function" })
    #expect(symbolizer.functions.filter { $0.name == "helper" }.count == 2)
    #expect(
      try ELFSymbolizer(path: original).function(containing: function.address)?.name
        == function.name)
    #expect(symbolizer.sourceLocation(for: function.address)?.file.hasSuffix("located.c") == true)
  }

  @Test(
    "C++ names demangle and constructor variants fold",
    arguments: [FixtureVariant.Compiler.clang, .gcc])
  func cxx(compiler: FixtureVariant.Compiler) throws {
    let symbolizer = try ELFSymbolizer(path: try FixtureBinaries.widget(compiler))
    let poke = try #require(symbolizer.functions.first { $0.name == "_ZNK6shapes6Widget4pokeEi" })
    #expect(Demangler.demangle(poke.name) == "shapes::Widget::poke(int) const")
    let constructors = symbolizer.functions.filter {
      $0.allNames.contains("_ZN6shapes6WidgetC1Ei") || $0.allNames.contains("_ZN6shapes6WidgetC2Ei")
    }
    #expect(constructors.count == 1)
    #expect(
      constructors.first?.allNames.sorted() == ["_ZN6shapes6WidgetC1Ei", "_ZN6shapes6WidgetC2Ei"])
    #expect(constructors.first.map { Demangler.demangle($0.name) } == "shapes::Widget::Widget(int)")
  }
}

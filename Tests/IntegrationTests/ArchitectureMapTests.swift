import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// Docs/Architecture.md's module table against Package.swift, both ways.
///
/// The table is the map a maintainer reads first; a target added, removed or rewired in
/// Package.swift without its row fails here, with the row to write.
@Suite("Architecture map")
struct ArchitectureMapTests {
  /// A module as the table or the manifest gives it: its name and what it depends on.
  struct Module: Equatable {
    var name: String
    var dependencies: Set<String>
  }

  /// The non-test targets of Package.swift and their declared dependencies (targets and
  /// products by name), from `swift package dump-package`.
  static func manifestModules() throws -> [Module] {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    // A scratch path of its own: the build directory is locked by the `swift test` that
    // runs this, and dumping the manifest needs nothing from it.
    let result = try ProcessRunner.run(
      Toolchain.llvmBin + "/swift",
      ["package", "--package-path", PackagePaths.root, "--scratch-path", scratch.path, "dump-package"])
    try #require(result.status == 0, "swift package dump-package failed: \(result.standardError)")
    return try modules(fromManifestJSON: Data(result.standardOutput.utf8))
  }

  static func modules(fromManifestJSON data: Data) throws -> [Module] {
    struct Manifest: Decodable {
      struct Target: Decodable {
        var name: String
        var type: String
        var dependencies: [[String: [String?]]]
      }
      var targets: [Target]
    }
    return try JSONDecoder().decode(Manifest.self, from: data).targets.filter { $0.type != "test" }.map { target in
      // Each dependency is {"byName": [name, condition]}, {"target": [...]} or
      // {"product": [name, package, ...]}: the first string is the name.
      let names = target.dependencies.compactMap { $0.values.first?.first ?? nil }
      return Module(name: target.name, dependencies: Set(names))
    }
  }

  /// The rows of the table under "## Modules", in order. A dependency is written without
  /// the `Orderfile` prefix when it has one, and may carry a note in parentheses.
  static func documentedModules(markdown: String, targetNames: Set<String>) -> [Module] {
    var rows: [Module] = []
    var inModules = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("## ") { inModules = line == "## Modules" }
      guard inModules, line.hasPrefix("| ") else { continue }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 3, cells[1] != "module", !cells[1].hasPrefix("---") else { continue }
      let name = cells[1].replacingOccurrences(of: "`", with: "")
      let dependencies = cells[2].split(separator: ",").map { item -> String in
        var item = String(item)
        if let note = item.firstIndex(of: "(") { item = String(item[..<note]) }
        item = item.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces)
        return targetNames.contains("Orderfile" + item) ? "Orderfile" + item : item
      }.filter { !$0.isEmpty }
      rows.append(Module(name: name, dependencies: Set(dependencies)))
    }
    return rows
  }

  /// How a row of the table would read for `module`.
  static func row(for module: Module) -> String {
    let short = module.dependencies.sorted().map { $0.hasPrefix("Orderfile") ? String($0.dropFirst(9)) : $0 }
    return "| \(module.name) | \(short.joined(separator: ", ")) | … |"
  }

  /// Every way the table and the manifest disagree, one sentence each.
  static func disagreements(documented: [Module], manifest: [Module]) -> [String] {
    var problems: [String] = []
    let documentedByName = Dictionary(documented.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    let manifestByName = Dictionary(manifest.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    for module in manifest where documentedByName[module.name] == nil {
      problems.append(
        "Package.swift has the target \(module.name), which Docs/Architecture.md's module table does not list: add the row \(row(for: module)) below every module it depends on"
      )
    }
    for module in documented where manifestByName[module.name] == nil {
      problems.append(
        "Docs/Architecture.md lists the module \(module.name), which Package.swift has no target of: remove or rename its row"
      )
    }
    for module in documented {
      guard let declared = manifestByName[module.name] else { continue }
      let missing = declared.dependencies.subtracting(module.dependencies).sorted()
      let extra = module.dependencies.subtracting(declared.dependencies).sorted()
      if !missing.isEmpty {
        problems.append(
          "\(module.name) depends on \(missing.joined(separator: ", ")) in Package.swift, which its row in Docs/Architecture.md does not say"
        )
      }
      if !extra.isEmpty {
        problems.append(
          "Docs/Architecture.md says \(module.name) depends on \(extra.joined(separator: ", ")), which Package.swift does not declare"
        )
      }
    }
    // The layering rule: a module depends only on modules above it in the table.
    let position = Dictionary(documented.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    for (index, module) in documented.enumerated() {
      for dependency in module.dependencies.sorted() {
        if let above = position[dependency], above > index {
          problems.append(
            "Docs/Architecture.md lists \(module.name) above \(dependency), which it depends on: the table must list each module below what it depends on"
          )
        }
      }
    }
    return problems
  }

  @Test("the module table of Docs/Architecture.md is Package.swift's targets and dependencies")
  func tableMatchesManifest() throws {
    let manifest = try Self.manifestModules()
    let markdown = try String(contentsOfFile: PackagePaths.root + "/Docs/Architecture.md", encoding: .utf8)
    let documented = Self.documentedModules(markdown: markdown, targetNames: Set(manifest.map(\.name)))
    try #require(documented.count > 10, "no module table found under '## Modules' in Docs/Architecture.md")
    let problems = Self.disagreements(documented: documented, manifest: manifest)
    #expect(problems.isEmpty, "\(problems.count) disagreements:\n\(problems.joined(separator: "\n"))")
  }

  @Test("the executable imports OrderfileCommands and ArgumentParser, nothing else")
  func executableImports() throws {
    let folder = PackagePaths.root + "/Sources/orderfile"
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted()
    try #require(files.count > 5, "no Swift files in \(folder)")
    var imports: [String: [String]] = [:]
    for file in files {
      for line in try FileReading.text(atPath: folder + "/" + file).split(separator: "\n") {
        let words = line.split(separator: " ")
        // `import X`, `@testable import X`, `import struct X.Y`: the module is the last word's head.
        if let at = words.firstIndex(of: "import"), words.index(after: at) < words.endIndex,
          words[..<at].allSatisfy({
            $0.hasPrefix("@") || ["public", "internal", "private", "fileprivate"].contains($0)
          })
        {
          let module = String(words[words.endIndex - 1].split(separator: ".")[0])
          imports[module, default: []].append(file)
        }
      }
    }
    let others = imports.filter { !["OrderfileCommands", "ArgumentParser"].contains($0.key) }
    #expect(others.isEmpty, "Sources/orderfile imports more than its two modules: \(others.sorted { $0.key < $1.key })")
    #expect(imports["OrderfileCommands"] != nil && imports["ArgumentParser"] != nil)
  }

  /// The most lines a C file under Sources may have: a longer one does more than one job,
  /// and each job gets a file of its own, named for it.
  static let cFileLineLimit = 600

  @Test("no C file under Sources is longer than 600 lines")
  func cFilesStaySmall() throws {
    let sources = PackagePaths.root + "/Sources"
    let files = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
      .filter { $0.hasSuffix(".c") || $0.hasSuffix(".h") }.sorted()
    try #require(files.count > 20, "no C files found under \(sources)")
    var long: [String] = []
    for file in files {
      let lines = try FileReading.text(atPath: sources + "/" + file).utf8.filter { $0 == UInt8(ascii: "\n") }.count
      if lines > Self.cFileLineLimit { long.append("Sources/\(file): \(lines) lines") }
    }
    #expect(
      long.isEmpty, "split these by job, each at most \(Self.cFileLineLimit) lines:\n\(long.joined(separator: "\n"))")
  }

  /// Each `@Test` title with the files that give it; a title given in more than one file is
  /// one behaviour tested twice, or two behaviours under one name.
  static func testTitles(in files: [String: String]) -> [String: Set<String>] {
    let pattern = /@Test\(\s*"((?:[^"\\]|\\.)*)"/
    var titles: [String: Set<String>] = [:]
    for (file, text) in files {
      for match in text.matches(of: pattern) { titles[String(match.1), default: []].insert(file) }
    }
    return titles
  }

  @Test("no @Test title appears in two test files")
  func testTitlesAreUnique() throws {
    let tests = PackagePaths.root + "/Tests"
    let files = (FileManager.default.enumerator(atPath: tests)?.compactMap { $0 as? String } ?? [])
      .filter { $0.hasSuffix(".swift") }
    var texts: [String: String] = [:]
    for file in files { texts["Tests/" + file] = try FileReading.text(atPath: tests + "/" + file) }
    let titles = Self.testTitles(in: texts)
    try #require(titles.count > 300, "only \(titles.count) @Test titles found under \(tests)")
    let repeated = titles.filter { $0.value.count > 1 }.map {
      "\"\($0.key)\": \($0.value.sorted().joined(separator: ", "))"
    }
    #expect(repeated.isEmpty, "titles in more than one file:\n\(repeated.sorted().joined(separator: "\n"))")
    // The reading itself: a title split over lines is found, and a repeat is told.
    let sample = Self.testTitles(in: [
      "A.swift": "@Test(\"one\") func a() {}\n@Test(\n  \"two \\\"quoted\\\"\", arguments: [1])",
      "B.swift": "@Test(\"one\")",
    ])
    #expect(sample == ["one": ["A.swift", "B.swift"], "two \\\"quoted\\\"": ["A.swift"]])
  }

  @Test("a missing module, a wrong dependency and a row out of order are each named")
  func disagreementsAreNamed() {
    let manifest = [
      Module(name: "OrderfileSupport", dependencies: []),
      Module(name: "OrderfileTrace", dependencies: ["OrderfileSupport"]),
      Module(name: "OrderfileInProcess", dependencies: ["OrderfileSupport"]),
    ]
    let table = """
      ## Modules

      | module | depends on | holds |
      | --- | --- | --- |
      | OrderfileTrace | Support, Symbolization (a note) | the trace |
      | OrderfileSupport | | helpers |
      | OrderfileGone | Support | nothing |

      ## Tests

      | module | depends on |
      | OrderfileNotAModule | Support |
      """
    let documented = Self.documentedModules(
      markdown: table, targetNames: Set(manifest.map(\.name) + ["OrderfileSymbolization"]))
    #expect(documented.map(\.name) == ["OrderfileTrace", "OrderfileSupport", "OrderfileGone"])
    #expect(documented[0].dependencies == ["OrderfileSupport", "OrderfileSymbolization"])
    let problems = Self.disagreements(documented: documented, manifest: manifest)
    #expect(
      problems == [
        "Package.swift has the target OrderfileInProcess, which Docs/Architecture.md's module table does not list: add the row | OrderfileInProcess | Support | … | below every module it depends on",
        "Docs/Architecture.md lists the module OrderfileGone, which Package.swift has no target of: remove or rename its row",
        "Docs/Architecture.md says OrderfileTrace depends on OrderfileSymbolization, which Package.swift does not declare",
        "Docs/Architecture.md lists OrderfileTrace above OrderfileSupport, which it depends on: the table must list each module below what it depends on",
      ])
  }
}

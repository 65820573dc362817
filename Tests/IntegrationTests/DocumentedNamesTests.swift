import Foundation
import Testing
import _OrderfileTestSupport

/// What the package declares, read from its files: the names a document may spell in code.
private struct PackageNames {
  /// Swift types (`struct`, `enum`, `class`, `protocol`, `typealias`, `actor`) in Sources and
  /// Tests, and the targets (the folders directly under Sources and Tests).
  var types: Set<String> = []
  /// Swift functions, properties and enum cases.
  var members: Set<String> = []
  /// Every word of the C and Swift files under Sources: C functions, constants, environment variables.
  var words: Set<String> = []
  /// The package's files, by path from the root and by base name.
  var paths: Set<String> = []
  var baseNames: Set<String> = []

  static let package: PackageNames = read(root: PackagePaths.root)

  static func read(root: String) -> PackageNames {
    var names = PackageNames()
    for top in ["Sources", "Tests"] {
      let folders = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + top)) ?? []
      names.types.formUnion(folders)
    }
    for top in ["Sources", "Tests", "Scripts", "Docs", "Examples", "Benchmarks"] {
      for case let relative as String in FileManager.default.enumerator(atPath: root + "/" + top) ?? .init() {
        let path = top + "/" + relative
        names.paths.insert(path)
        names.baseNames.insert(String(path.split(separator: "/").last ?? ""))
        guard path.hasSuffix(".swift") || path.hasSuffix(".c") || path.hasSuffix(".h"),
          let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8)
        else { continue }
        if path.hasSuffix(".swift") { names.readDeclarations(text) }
        if top == "Sources" { names.words.formUnion(Self.tokens(text)) }
      }
    }
    return names
  }

  /// Identifiers, in order.
  static func tokens(_ text: String) -> [String] {
    // By bytes: the package's identifiers are ASCII, and Characters are slow to split by.
    text.utf8.split { byte in
      !(byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")))
    }.map { String(decoding: $0, as: UTF8.self) }
  }

  mutating func readDeclarations(_ text: String) {
    let typeKeywords: Set<String> = ["struct", "enum", "class", "protocol", "typealias", "actor"]
    let memberKeywords: Set<String> = ["func", "var", "let", "case"]
    var previous = ""
    for token in Self.tokens(text) {
      if typeKeywords.contains(previous) { types.insert(token) }
      if memberKeywords.contains(previous) { members.insert(token) }
      previous = token
    }
    // `case a, b, c`: every case of the line, not only the first.
    for line in text.split(separator: "\n") {
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("case "), trimmed.dropFirst(5).first?.isLetter == true else { continue }
      for piece in trimmed.dropFirst(5).split(separator: ",") {
        if let name = Self.tokens(String(piece)).first { members.insert(name) }
      }
    }
  }
}

/// Checks the spans of a Markdown document written in code (`…`): a Swift type, a member of
/// one, a file, a name of the C API. Spans of any other shape (commands, flags, ELF
/// sections, C library calls) are not the package's and are left alone.
private struct DocumentedNames {
  /// Code spans that name something outside the package though they look like its names:
  /// Swift's and ArgumentParser's types, a field of /proc's status file, another project's
  /// source file.
  static let outside: Set<String> = ["Codable", "LocalizedError", "ParsableCommand", "String", "Rss", "lua.c"]

  let names: PackageNames

  /// The code spans of `markdown`, fenced blocks left out.
  static func spans(_ markdown: String) -> [String] {
    var spans: [String] = []
    var fenced = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.drop(while: { $0 == " " }).hasPrefix("```") {
        fenced.toggle()
        continue
      }
      guard !fenced else { continue }
      let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
      spans += stride(from: 1, to: pieces.count - 1, by: 2).map { String(pieces[$0]) }
    }
    return spans
  }

  /// What a code span names, by its shape.
  enum Name: Equatable {
    /// `tracer.c`, `Sources/orderfile`-relative or bare.
    case file(String)
    /// `Regeneration.measuredPages`: a type and its members, nested types included.
    case type(String, members: [String])
    /// `lines(for:)`: a Swift function with its labels.
    case function(String)
    /// `oftr_record`, `ORDERFILE_RUNTIME_DIR`: a name of the C API or its environment.
    case cName(String)
  }

  /// The name `span` spells, or nil when it is no name of the package's kind (`SIGTERM`,
  /// `--until`, `record`, `.eh_frame`, `dlopen()`) or one of those outside it.
  static func name(_ span: String) -> Name? {
    guard !outside.contains(span) else { return nil }
    if span.wholeMatch(of: /[\w.\/-]+\.(swift|c|h|md)/) != nil { return .file(span) }
    // Upper camel case with a lowercase letter: `ELFMachine`, not `SIGTERM` or `ELF`.
    if let match = span.wholeMatch(of: /([A-Z][A-Za-z0-9]*)((?:\.[A-Za-z_]\w*(?:\([\w:]*\))?)*)/),
      match.1.contains(where: \.isLowercase)
    {
      return .type(String(match.1), members: match.2.matches(of: /\.(\w+)/).map { String($0.1) })
    }
    if let match = span.wholeMatch(of: /([a-z][A-Za-z0-9]*)\((?:\w+:)+\)/) { return .function(String(match.1)) }
    if let match = span.wholeMatch(of: /((?:orderfile|oftr|oft|ORDERFILE|OFTR|OFT)_\w+)(?:\(\))?/) {
      return .cName(String(match.1))
    }
    return nil
  }

  /// Why `span` names nothing in the package; nil when it does, or when it is no name of
  /// the package's kind.
  func missing(_ span: String) -> String? {
    switch Self.name(span) {
    case nil: return nil
    case .file(let path):
      let found =
        names.paths.contains(path) || (!path.contains("/") && names.baseNames.contains(path))
        || names.paths.contains { $0.hasSuffix("/" + path) }
      return found ? nil : "no such file"
    case .type(let type, let members):
      guard names.types.contains(type) else { return "no type \(type)" }
      return members.first { !names.members.contains($0) && !names.types.contains($0) }.map { "no member \($0)" }
    case .function(let function):
      return names.members.contains(function) ? nil : "no function \(function)"
    case .cName(let name):
      return names.words.contains(name) ? nil : "not in Sources"
    }
  }

  /// The spans of `markdown` that name nothing in the package, once each, with why.
  func stale(in markdown: String) -> [String] {
    var seen: Set<String> = []
    return Self.spans(markdown).filter { seen.insert($0).inserted }.compactMap { span in
      missing(span).map { "`\(span)`: \($0)" }
    }
  }
}

/// The documents to check: README.md and every page of Docs.
private let documents: [String] =
  ["README.md"]
  + ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Docs")) ?? [])
  .filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }

@Suite("The docs name only what the package has")
struct DocumentedNamesTests {
  @Test(
    "every Swift type, member, file and C API name a document spells in code exists in Sources or Tests",
    arguments: documents)
  func namesExist(document: String) throws {
    let text = try String(contentsOfFile: PackagePaths.root + "/" + document, encoding: .utf8)
    let stale = DocumentedNames(names: .package).stale(in: text)
    #expect(stale.isEmpty, "\(document) names what the package does not have:\n\(stale.joined(separator: "\n"))")
  }

  @Test("the check reads Architecture.md's names and finds a stale one among them")
  func checkFindsStaleNames() throws {
    let check = DocumentedNames(names: .package)
    let architecture = try String(contentsOfFile: PackagePaths.root + "/Docs/Architecture.md", encoding: .utf8)
    let checked = DocumentedNames.spans(architecture).compactMap(DocumentedNames.name)
    #expect(checked.count > 100, "only \(checked.count) spans of Architecture.md are checked")
    let sample = """
      `Regeneration.measuredPages`, `RegenerationReport.Module.measuredPages`, `lines(for:)`, `tracer.c`,
      `Tests/IntegrationTests`, `SIGTERM`, `--no-rebuild`, `record`, `.eh_frame`, `dlopen()`, `ORDERFILE_RUNTIME_DIR`
      ```
      `NotAType`
      ```
      `Regeneration.measurePages`, `Renderer.nothing(at:)`, `NoSuchType`, `vanished(with:)`, `gone.c`, `oftr_gone`
      """
    #expect(
      check.stale(in: sample) == [
        "`Regeneration.measurePages`: no member measurePages", "`Renderer.nothing(at:)`: no member nothing",
        "`NoSuchType`: no type NoSuchType", "`vanished(with:)`: no function vanished", "`gone.c`: no such file",
        "`oftr_gone`: not in Sources",
      ])
  }
}

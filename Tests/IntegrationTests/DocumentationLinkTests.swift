import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The documentation as pages that link to each other: README.md a front door a few screens
/// long, the long parts in Docs/, and every relative link between them landing on a file,
/// and on a heading where it names one. A page moved or a heading renamed fails here with
/// the page, the line and the link.
@Suite("Documentation links")
struct DocumentationLinkTests {
  /// README.md and every Markdown file of Docs/, relative to `root`.
  static func pages(root: String = PackagePaths.root) throws -> [String] {
    let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/Docs")
      .filter { $0.hasSuffix(".md") }.sorted()
    return ["README.md"] + docs.map { "Docs/" + $0 }
  }

  /// A link of a page: where it points, and the line it starts on.
  struct Link: Equatable {
    var target: String
    var line: Int
  }

  /// The page's lines, with those inside code fences blank: commands and program output
  /// hold brackets and `#` lines that are neither links nor headings.
  static func prose(_ markdown: String) -> [Substring] {
    var inFence = false
    return markdown.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inFence.toggle()
        return ""
      }
      return inFence ? "" : line
    }
  }

  /// The targets of the inline links `[text](target)` outside code fences and code spans
  /// (a code span may wrap onto the next line, so spans are followed across lines).
  static func links(in markdown: String) -> [Link] {
    var links: [Link] = []
    var inCode = false
    for (index, line) in prose(markdown).enumerated() {
      var previous: Character = " "
      var rest = line[...]
      while let character = rest.first {
        rest = rest.dropFirst()
        if character == "`" {
          inCode.toggle()
        } else if !inCode, previous == "]", character == "(",
          let close = rest.firstIndex(of: ")")
        {
          let target = rest[..<close].split(separator: " ").first.map(String.init) ?? ""
          links.append(Link(target: target, line: index + 1))
        }
        previous = character
      }
    }
    return links
  }

  /// The anchors GitHub gives a page's headings: lower case, every character but letters,
  /// digits, `-` and `_` dropped, spaces as `-`; a heading met again gets `-1`, `-2`, ….
  static func anchors(in markdown: String) -> Set<String> {
    var anchors: Set<String> = []
    var seen: [String: Int] = [:]
    for line in prose(markdown) {
      let level = line.prefix { $0 == "#" }.count
      guard (1...6).contains(level), line.dropFirst(level).first == " " else { continue }
      let title = line.dropFirst(level).trimmingCharacters(in: .whitespaces).lowercased()
      let slug = String(
        title.unicodeScalars.compactMap { scalar -> Character? in
          if scalar == " " { return "-" }
          let kept = CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_"
          return kept ? Character(scalar) : nil
        })
      let count = seen[slug, default: 0]
      seen[slug] = count + 1
      anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
    }
    return anchors
  }

  /// What is wrong with each relative link of `page` (a path relative to `root`): a file
  /// that does not exist, or an anchor no heading of the page it names gives.
  static func brokenLinks(of page: String, root: String) throws -> [String] {
    let text = try FileReading.text(atPath: root + "/" + page)
    let directory = URL(fileURLWithPath: root + "/" + page).deletingLastPathComponent()
    var broken: [String] = []
    for link in links(in: text) where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
      let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
      let path = String(parts[0])
      let anchor = parts.count > 1 ? String(parts[1]) : nil
      let file = path.isEmpty ? root + "/" + page : directory.appendingPathComponent(path).standardized.path
      guard FileManager.default.fileExists(atPath: file) else {
        broken.append("\(page):\(link.line): \(link.target): no file \(path)")
        continue
      }
      if let anchor, file.hasSuffix(".md"), !anchors(in: try FileReading.text(atPath: file)).contains(anchor) {
        broken.append("\(page):\(link.line): \(link.target): no heading gives #\(anchor)")
      }
    }
    return broken
  }

  @Test("README.md is a front door: at most 400 lines, the rest in Docs/")
  func readmeIsShort() throws {
    let lines = try FileReading.text(atPath: PackagePaths.root + "/README.md").split(
      separator: "\n", omittingEmptySubsequences: false
    ).count
    #expect(lines <= 400, "README.md has \(lines) lines: move the long parts to a page of Docs/ and link it")
  }

  @Test("every relative link of README.md and Docs/*.md lands on a file, and on a heading where it names one")
  func linksLand() throws {
    let pages = try Self.pages()
    #expect(pages.count > 5, "\(pages)")
    var checked = 0
    for page in pages {
      let text = try FileReading.text(atPath: PackagePaths.root + "/" + page)
      checked += Self.links(in: text).count
      for problem in try Self.brokenLinks(of: page, root: PackagePaths.root) {
        Issue.record("\(problem)")
      }
    }
    #expect(checked > 30, "only \(checked) links found: is the link reader broken?")
  }

  @Test("the link check names a missing file, a missing heading, and reads no link in code")
  func linkCheckFindsBrokenLinks() throws {
    let root = try TemporaryDirectory("orderfile-doc-links")
    defer { root.remove() }
    try FileManager.default.createDirectory(atPath: root.file("Docs"), withIntermediateDirectories: true)
    try """
    # Front

    See [the guide](Docs/Guide.md#wiring-it-into-a-build), [its twin](Docs/Guide.md#make-1),
    [gone](Docs/Gone.md), [a typo](Docs/Guide.md#wiring) and [here](#front).
    A [link that
    wraps](Docs/Guide.md) and `[code](Docs/Nowhere.md)` and `a span
    that wraps [code](Docs/Nowhere.md)` are fine.

    ```sh
    echo "[shell](Docs/Nowhere.md)"
    ```

    """.write(toFile: root.file("README.md"), atomically: true, encoding: .utf8)
    try """
    # Wiring it into a build

    ## Make
    ## Make
    ```text
    # not a heading
    ```
    Back to the [front door](../README.md#front) and [nowhere](../README.md#not-a-heading).

    """.write(toFile: root.file("Docs/Guide.md"), atomically: true, encoding: .utf8)

    #expect(try Self.pages(root: root.path) == ["README.md", "Docs/Guide.md"])
    #expect(
      try Self.brokenLinks(of: "README.md", root: root.path) == [
        "README.md:4: Docs/Gone.md: no file Docs/Gone.md",
        "README.md:4: Docs/Guide.md#wiring: no heading gives #wiring",
      ])
    #expect(
      try Self.brokenLinks(of: "Docs/Guide.md", root: root.path) == [
        "Docs/Guide.md:8: ../README.md#not-a-heading: no heading gives #not-a-heading"
      ])
  }

  @Test("each block the demo and the bench write is in one page of Docs/, none in README.md")
  func generatedBlocksLiveInDocs() throws {
    var seen: [String: String] = [:]
    var twice: [String] = []
    for page in try Self.pages() {
      let text = try FileReading.text(atPath: PackagePaths.root + "/" + page)
      for line in text.split(separator: "\n") where line.hasPrefix("<!-- demo:") || line.hasPrefix("<!-- bench:") {
        let block = String(line)
        if let other = seen[block] { twice.append("\(block) in \(other) and \(page)") }
        seen[block] = seen[block] ?? page
      }
    }
    let inReadme = seen.filter { $0.value == "README.md" }.keys.sorted()
    #expect(inReadme.isEmpty, "README.md holds \(inReadme): Scripts/demo and Scripts/bench write Docs/ only")
    #expect(twice.isEmpty, "blocks written twice: \(twice)")
    #expect(seen.count > 20, "\(seen.count) blocks found")
  }
}

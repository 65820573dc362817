import Foundation
import OrderfileOrdering
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Name tables")
struct NameTableTests {
  @Test("names keep their first-seen order, repeats are dropped, each is found by its bytes")
  func insertAndFind() {
    var names = (0..<5_000).map { "f\($0 % 3_000)" }
    names += ["", "é", "名前", "a\u{0}b"]
    let table = NameTable(names)
    var distinct: [String] = []
    var seen = Set<String>()
    for name in names where seen.insert(name).inserted { distinct.append(name) }
    #expect(table.count == distinct.count)
    #expect(table.names == distinct)
    for (index, name) in distinct.enumerated() { #expect(table.index(of: name) == index, "\(name)") }
    #expect(table.index(of: "f3000") == nil)
    #expect(table.index(of: "f") == nil)
    let other = NameTable(["f7", "nothing", "é"])
    #expect(table.index(ofNameAt: 0, in: other) == 7)
    #expect(table.index(ofNameAt: 1, in: other) == nil)
    #expect(table.index(ofNameAt: 2, in: other) == distinct.firstIndex(of: "é"))
  }
}

@Suite("Orderfile names, read as a stream")
struct OrderfileNamesTests {
  /// Writes `text` and reads it both ways: streamed, and through `Orderfile`.
  static func bothWays(_ text: String) throws -> (streamed: OrderfileNames, whole: Orderfile) {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("a.order")
    try AtomicFile.write(text, to: path)
    return (try OrderfileNames.read(path: path), try Orderfile.read(path: path))
  }

  @Test(
    "the names, format and entry count are Orderfile's, for every format and line ending",
    arguments: [
      "main\n_ZN1a1bEv\n\nfoo.part.0\nmain\n",
      "# generated\n  main  \r\n\r\n\tparse\r\nlast",
      ".text.main\n.text.hot.main\n.text.startup.main\n.text.a\n.text.hot.a\n",
      ".text.main\nplain\n",
      "SECTIONS {\n  .text.launch : {\n    *(.text.main)\n    *(.text.b)\n  }\n} INSERT BEFORE .text;\n",
      "caf\u{E9}\nmain\n\u{2028}x\n",
      "", "\n\n", "# only a comment", "solo",
    ])
  func matchesOrderfile(text: String) throws {
    let (streamed, whole) = try Self.bothWays(text)
    #expect(streamed.names.names == whole.names)
    #expect(streamed.format == whole.format)
    #expect(streamed.entryLines == whole.lines.count)
  }

  @Test("a long file is the same however its lines fall across read chunks")
  func chunkBoundaries() throws {
    var generator = SplitMix64(seed: 24)
    var text = ""
    for index in 0..<40_000 {
      let spaces = String(repeating: " ", count: Int.random(in: 0...2, using: &generator))
      let end = ["\n", "\r\n", "\r"][Int.random(in: 0...2, using: &generator)]
      text +=
        spaces + "fn_\(index % 30_000)_" + String(repeating: "x", count: Int.random(in: 0...40, using: &generator))
        + spaces + end
    }
    let (streamed, whole) = try Self.bothWays(text)
    #expect(streamed.names.count == whole.names.count)
    #expect(streamed.entryLines == whole.lines.count)
    // The first difference, not two arrays of 30,000 names.
    let names = streamed.names.names
    let first = zip(names, whole.names).enumerated().first { $0.element.0 != $0.element.1 }
    #expect(
      first == nil, "name \(first?.offset ?? 0): \(first?.element.0 ?? "") read whole is \(first?.element.1 ?? "")")
  }

  @Test("bad input gives Orderfile's errors: bytes that are not UTF-8, a FIFO, a missing file")
  func errors() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let bad = directory.file("bad.order")
    try Data([0x6D, 0x61, 0x69, 0x6E, 0x0A, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: bad))
    #expect(throws: SupportError.self) { try OrderfileNames.read(path: bad) }
    let fifo = directory.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: SupportError.notRegularFile(path: fifo, kind: "a FIFO")) { try OrderfileNames.read(path: fifo) }
    #expect(throws: SupportError.self) { try OrderfileNames.read(path: directory.file("missing")) }
  }
}

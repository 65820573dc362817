import OrderfileSupport
import OrderfileSymbolization

/// Sentences about a binary's fixed code (`FixedCode`), one wording for every report.
extension FixedCode {
  /// ".init 23 B, .fini 9 B, .plt 37.6 KiB (1,632 of 2,402 stubs called at launch)".
  public var sectionsSummary: String {
    // With IBT, .plt holds only the lazy-binding entries the stubs of .plt.sec jump to.
    let lazyOnly = sections.contains { $0.name == ".plt.sec" }
    return sections.map { section in
      if lazyOnly && section.name == ".plt" {
        return "\(section.name) \(formatBytes(section.size)) (lazy-binding entries of .plt.sec)"
      }
      let stubs = section.stubs.map { stubs in
        section.calledStubs.map { " (\($0) of \(stubs) stubs called at launch)" } ?? " (\(stubs) stubs)"
      }
      return "\(section.name) \(formatBytes(section.size))\(stubs ?? "")"
    }.joined(separator: ", ")
  }

  /// The pages of `pageSize` the launch's PLT stubs (and the lazy-binding header) run on;
  /// with `text`, only those outside its pages, which code of the text may share.
  public func stubPages(pageSize: UInt64, outside text: Span? = nil) -> Int {
    let stubSections = Set(stubSections.map(\.name))
    var pages = Set<UInt64>()
    for piece in touched where stubSections.contains(piece.section) {
      pages.formUnion(Span(address: piece.address, size: piece.size).pages(pageSize))
    }
    if let text { pages.subtract(text.pages(pageSize)) }
    return pages.count
  }

  /// The stubs the launch calls, in all PLT sections.
  public var calledStubs: Int { sections.compactMap(\.calledStubs).reduce(0, +) }

  /// What the estimate counted of the fixed code, and what `-fno-plt` would save; empty
  /// when the launch runs none of it.
  public func estimateLines(_ counts: PageCounts) -> [String] {
    guard !touched.isEmpty else { return [] }
    let pageSize = counts.pageSize
    var lines = [
      "fixed code, counted above where the linker put it (an orderfile does not move it): \(sectionsSummary); \(counts.fixedCode) of the \(counts.current) pages now at \(formatBytes(pageSize))"
    ]
    let stubPages = stubPages(pageSize: pageSize)
    // One page of stubs often shares its page with .init or the end of .text, and -fno-plt
    // makes every call a byte longer: it pays only where the stubs take pages of their own.
    if stubPages >= 2 {
      lines.append(
        "note: the launch runs \(calledStubs) PLT stubs on \(stubPages) pages at \(formatBytes(pageSize)); compiled with -fno-plt, calls to other libraries go through the GOT and run no stub. Measured with the page probe: \(Self.measuredNoPLT) (Docs/Reference.md, \"Fixed code\")"
      )
    }
    return lines
  }

  /// The effect of `-fno-plt` measured with the page probe at 4 KiB (`FixedCodePagesTests`'
  /// library; Lua 5.4 built by `Scripts/real-program`).
  static let measuredNoPLT =
    "a library running 1,632 stubs went from 23 to 14 pages at 4 KiB, Lua's executable (24 stubs, on one page) from 35 to 38, its code grown"
}

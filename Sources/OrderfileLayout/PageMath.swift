/// A function's bytes in some layout.
public struct Span: Sendable, Equatable {
  public var address: UInt64
  public var size: UInt64

  public init(address: UInt64, size: UInt64) {
    self.address = address
    self.size = size
  }

  /// The pages of `pageSize` this span's bytes fall on; a function without a size still touches its first byte.
  public func pages(_ pageSize: UInt64) -> ClosedRange<UInt64> {
    let last = address + max(size, 1) - 1
    return (address / pageSize)...(last / pageSize)
  }
}

/// Page counts of a sequence of spans taken in launch order.
public enum PageMath {
  /// Distinct pages the spans touch.
  public static func distinctPages(_ spans: [Span], pageSize: UInt64) -> Int {
    var pages = Set<UInt64>()
    for span in spans { pages.formUnion(span.pages(pageSize)) }
    return pages.count
  }

  /// The area under the pages-touched curve: after each function in launch order, how many
  /// distinct pages have been touched so far, summed. A good order grows slowly and scores low.
  public static func curveArea(_ spans: [Span], pageSize: UInt64) -> Int {
    var pages = Set<UInt64>()
    var area = 0
    for span in spans {
      pages.formUnion(span.pages(pageSize))
      area += pages.count
    }
    return area
  }

  /// The fewest pages `bytes` can occupy.
  public static func lowerBound(bytes: UInt64, pageSize: UInt64) -> Int {
    Int((bytes + pageSize - 1) / pageSize)
  }

  /// The fewest pages `bytes` of launch code placed from `textStart` on (where an orderfile
  /// puts it) can occupy beside `fixed` spans that stay where they are: the two share a page
  /// only where fixed code lies before the text (ld.bfd and gold put `.init` and `.plt`
  /// there), on the text's first page.
  public static func lowerBound(bytes: UInt64, pageSize: UInt64, fixed: [Span], textStart: UInt64) -> Int {
    var fixedPages = Set<UInt64>()
    for span in fixed { fixedPages.formUnion(span.pages(pageSize)) }
    let shared = bytes > 0 && fixedPages.contains(textStart / pageSize) ? 1 : 0
    return fixedPages.count + max(0, lowerBound(bytes: bytes, pageSize: pageSize) - shared)
  }
}

import Foundation
import OrderfileSupport

/// Draws the text segment as a strip of pages, before and after ordering, as SVG.
///
/// Each cell is one page of the binary's text. A page the launch touches is coloured by
/// when the launch first touched it (dark = early, light = late, in first-call order);
/// untouched pages are pale grey. The two strips cover the same address range, so the
/// scatter of the current layout and the packing of the ordered one read at a glance.
public struct PageStripRenderer: Renderer {
  public var pageSize: UInt64
  /// Cells per row before the strip wraps.
  public var columns: Int

  public init(pageSize: UInt64 = 4096, columns: Int = 64) {
    self.pageSize = pageSize
    self.columns = columns
  }

  /// Cell size in pixels: large for small binaries, small enough for big ones to fit.
  func cellSize(pages: Int) -> Int {
    switch pages {
    case ..<33: return 24
    case ..<129: return 16
    default: return 10
    }
  }

  /// First-touch rank of each touched page, from the placements in launch order.
  func firstTouch(_ spans: [(UInt64, UInt64)]) -> [UInt64: Int] {
    var ranks: [UInt64: Int] = [:]
    for (index, span) in spans.enumerated() {
      for page in Span(address: span.0, size: span.1).pages(pageSize) where ranks[page] == nil {
        ranks[page] = index
      }
    }
    return ranks
  }

  public func render(_ estimate: Estimate) -> String {
    let text = Span(
      address: estimate.textStart, size: estimate.textEnd - min(estimate.textEnd, estimate.textStart)
    ).pages(pageSize)
    let firstPage = text.lowerBound
    let pageCount = text.count
    let cell = cellSize(pages: pageCount)
    let columns = min(self.columns, pageCount)
    let rows = (pageCount + columns - 1) / columns
    let launchCount = max(estimate.placements.count, 1)
    let now = firstTouch(estimate.placements.map { ($0.currentAddress, $0.size) })
    let ordered = firstTouch(estimate.placements.map { ($0.orderedAddress, $0.size) })
    let counts = estimate.pages.first { $0.pageSize == pageSize }

    let stripWidth = columns * cell
    let stripHeight = rows * cell
    let margin = 20
    let titleHeight = 46
    let legendHeight = 56
    let blockHeight = 28 + stripHeight + 24
    let width = max(stripWidth, 420) + 2 * margin
    let height = titleHeight + 2 * blockHeight + legendHeight

    var svg: [String] = []
    svg.append(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">"
    )
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
    svg.append(
      "<text x=\"\(margin)\" y=\"24\" font-size=\"16\" font-weight=\"bold\">Launch pages of \(escape(PathName.base(of: estimate.binary))) (\(formatBytes(pageSize)) pages)</text>"
    )
    svg.append(
      "<text x=\"\(margin)\" y=\"40\" fill=\"#555\">\(estimate.matchedFunctions) launch functions, \(formatBytes(estimate.launchBytes)); text is \(pageCount) pages; lower bound \(counts?.lowerBound ?? 0) pages</text>"
    )
    func strip(_ title: String, _ ranks: [UInt64: Int], top: Int) {
      svg.append("<text x=\"\(margin)\" y=\"\(top + 18)\" font-weight=\"bold\">\(escape(title))</text>")
      for index in 0..<pageCount {
        let page = firstPage + UInt64(index)
        let x = margin + (index % columns) * cell
        let y = top + 28 + (index / columns) * cell
        let fill = ranks[page].map { color(Double($0) / Double(max(launchCount - 1, 1))) } ?? "#e6e6e6"
        let tip =
          ranks[page].map { "page \(page): first touched by launch function \($0 + 1)" } ?? "page \(page): not touched"
        svg.append(
          "<rect class=\"page\" x=\"\(x)\" y=\"\(y)\" width=\"\(cell - 1)\" height=\"\(cell - 1)\" fill=\"\(fill)\"><title>\(tip)</title></rect>"
        )
      }
    }
    strip("Now: \(now.count) pages touched", now, top: titleHeight)
    strip("Ordered: \(ordered.count) pages touched", ordered, top: titleHeight + blockHeight)

    let legendTop = titleHeight + 2 * blockHeight
    svg.append("<defs><linearGradient id=\"launch\" x1=\"0\" x2=\"1\">")
    for stop in 0...4 {
      let t = Double(stop) / 4
      svg.append("<stop offset=\"\(Int(t * 100))%\" stop-color=\"\(color(t))\"/>")
    }
    svg.append("</linearGradient></defs>")
    svg.append("<rect x=\"\(margin)\" y=\"\(legendTop)\" width=\"160\" height=\"12\" fill=\"url(#launch)\"/>")
    svg.append(
      "<text x=\"\(margin)\" y=\"\(legendTop + 28)\" fill=\"#333\">first touched early</text>")
    svg.append(
      "<text x=\"\(margin + 160)\" y=\"\(legendTop + 28)\" text-anchor=\"end\" fill=\"#333\">late</text>")
    svg.append(
      "<rect x=\"\(margin + 190)\" y=\"\(legendTop)\" width=\"12\" height=\"12\" fill=\"#e6e6e6\"/>")
    svg.append(
      "<text x=\"\(margin + 208)\" y=\"\(legendTop + 11)\" fill=\"#333\">not touched at launch</text>")
    svg.append("</svg>")
    return svg.joined(separator: "\n") + "\n"
  }

  /// A perceptually ordered ramp from dark blue (0) through teal to yellow (1).
  func color(_ t: Double) -> String {
    let stops: [(Double, Double, Double)] = [
      (0.27, 0.00, 0.33), (0.23, 0.32, 0.55), (0.13, 0.57, 0.55), (0.37, 0.79, 0.38), (0.99, 0.91, 0.14),
    ]
    let clamped = min(max(t, 0), 1) * Double(stops.count - 1)
    let index = min(Int(clamped), stops.count - 2)
    let fraction = clamped - Double(index)
    let (a, b) = (stops[index], stops[index + 1])
    func mix(_ x: Double, _ y: Double) -> Int { Int(((x + (y - x) * fraction) * 255).rounded()) }
    return String(format: "#%02x%02x%02x", mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
  }

  func escape(_ text: String) -> String { TextFormatting.html(text) }
}

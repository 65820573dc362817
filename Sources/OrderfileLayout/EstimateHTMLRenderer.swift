import OrderfileSupport

/// A self-contained HTML page: the totals table and the page strip. Needs no network.
public struct EstimateHTMLRenderer: Renderer {
  /// Draws the page strip below the table.
  public var strip: PageStripRenderer

  public init(strip: PageStripRenderer = PageStripRenderer()) {
    self.strip = strip
  }

  public func render(_ estimate: Estimate) -> String {
    var rows = ""
    for counts in estimate.pages {
      rows += """
        <tr><td>\(formatBytes(counts.pageSize))</td><td>\(counts.current)</td><td>\(counts.ordered)</td>\
        <td>\(counts.lowerBound)</td><td>\(signedPercent(from: counts.current, to: counts.ordered))</td></tr>

        """
    }
    let caution =
      estimate.reorderedBinary.map {
        "<p class=\"caution\"><strong>Caution:</strong> \(strip.escape($0.message(binary: estimate.binary))).</p>\n"
      } ?? ""
    let title = strip.escape(estimate.binary)
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <title>Launch pages: \(title)</title>
      <style>
      \(TextFormatting.htmlReportStyle)
      </style>
      </head>
      <body>
      <h1>Launch pages: \(title)</h1>
      <p>\(estimate.matchedFunctions) of \(estimate.launchFunctions) launch functions found, \(formatBytes(estimate.launchBytes)).
      Faults with \(formatBytes(estimate.faultAroundBytes)) fault-around: \(estimate.currentFaults) now, \(estimate.orderedFaults) ordered.</p>
      <table>
      <tr><th>page size</th><th>now</th><th>ordered</th><th>lower bound</th><th>change</th></tr>
      \(rows)</table>
      \(caution)\(strip.render(estimate))
      \(estimate.coldLaunch?.html() ?? "")
      </body>
      </html>

      """
  }
}

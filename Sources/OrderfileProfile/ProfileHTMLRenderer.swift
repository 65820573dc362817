import Foundation
import OrderfileLayout
import OrderfileSupport

/// A self-contained HTML report of the launch: a phase timeline, first calls over time
/// per thread, and, when an estimate is given, the page strip. No scripts, no network.
public struct ProfileHTMLRenderer: Renderer {
  public var width = 900
  /// The launch pages of the release binary, drawn as a page strip when given.
  public var pages: Estimate?

  public init(pages: Estimate? = nil) {
    self.pages = pages
  }

  public func render(_ profile: StartupProfile) -> String {
    var body = "<h1>Launch of pid \(profile.pid)</h1>\n"
    body +=
      "<p>Times from process start (\(escape(ProfileTextRenderer.startDescription(profile)))). \(profile.firstCalls.count) functions first called by \(profile.threads.count) threads.</p>\n"
    if let note = profile.emulatedTimesNote {
      body +=
        "<p class=\"emulated\"><strong>" + escape(note.prefix(1).uppercased() + note.dropFirst()) + ".</strong></p>\n"
    }
    if let overhead = profile.recorderOverhead {
      body += "<p>" + escape(overhead.summary.prefix(1).uppercased() + overhead.summary.dropFirst()) + ".</p>\n"
    }
    body += "<h2>Phases</h2>\n" + timeline(profile) + phaseTable(profile)
    if let preMain = profile.preMain { body += preMainSection(preMain) }
    if let rows = profile.mainToLaunchEndRows {
      body +=
        "<h2>\(escape(profile.mainToLaunchEndTitle.prefix(1).uppercased() + profile.mainToLaunchEndTitle.dropFirst()))</h2>\n"
      body += table(rows)
    }
    body += "<h2>First calls over time</h2>\n" + firstCallsChart(profile)
    if let pages {
      body += "<h2>Pages</h2>\n" + PageStripRenderer().render(pages)
    }
    if let cold = profile.coldLaunch { body += cold.html() }
    if let slowest = profile.slowestFirstCalls, !slowest.isEmpty {
      body +=
        "<h2>Slowest first calls</h2>\n<table><tr><th>function</th><th>thread</th><th>start</th><th>inclusive</th></tr>\n"
      for call in slowest {
        body +=
          "<tr><td>\(escape(call.name))</td><td>\(call.thread)</td><td>\(milliseconds(call.startNanoseconds))</td><td>\(milliseconds(call.inclusiveNanoseconds))</td></tr>\n"
      }
      body += "</table>\n"
    }
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <title>Launch of pid \(profile.pid)</title>
      <style>
      \(TextFormatting.htmlReportStyle)
      body { max-width: \(width + 40)px; }
      svg text { font-size: 12px; }
      </style>
      </head>
      <body>
      \(body)</body>
      </html>

      """
  }

  static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]

  /// The folded phase after the launch: a box of this width beyond the launch's bar.
  public static let foldedWidth = 110
  public static let foldedGap = 10

  /// The launch's phases as one bar scaled to the launch window; what followed it, however
  /// long, is a hatched box of fixed width beside it, labelled with its real length.
  func timeline(_ profile: StartupProfile) -> String {
    let total = max(profile.launchEndNanoseconds, 1)
    let after = profile.afterLaunch
    let launchWidth = after == nil ? width : width - Self.foldedWidth - Self.foldedGap
    let height = 70
    func x(_ time: UInt64) -> Double { Double(min(time, total)) / Double(total) * Double(launchWidth) }
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\">\n"
    svg +=
      "<defs><pattern id=\"folded\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,6 L6,0\" stroke=\"#888\" stroke-width=\"2\"/></pattern></defs>\n"
    for (index, phase) in profile.launchPhases.enumerated() {
      let w = max(x(phase.endNanoseconds) - x(phase.startNanoseconds), 1)
      let color = Self.palette[index % Self.palette.count]
      svg +=
        "<rect class=\"phase\" x=\"\(format(x(phase.startNanoseconds)))\" y=\"10\" width=\"\(format(w))\" height=\"26\" fill=\"\(color)\"><title>\(escape(phase.name)): \(milliseconds(phase.durationNanoseconds)), \(phase.firstCalls) first calls</title></rect>\n"
    }
    for boundary in profile.boundaries where boundary.timeNanoseconds <= total {
      let at = x(boundary.timeNanoseconds)
      svg += "<line x1=\"\(format(at))\" x2=\"\(format(at))\" y1=\"6\" y2=\"40\" stroke=\"#222\" stroke-width=\"1\"/>\n"
    }
    svg += "<text x=\"0\" y=\"58\">0 ms</text>"
    svg += "<text x=\"\(launchWidth)\" y=\"58\" text-anchor=\"end\">\(milliseconds(total))</text>\n"
    if let after {
      let left = launchWidth + Self.foldedGap
      svg +=
        "<rect class=\"after-launch\" x=\"\(left)\" y=\"10\" width=\"\(Self.foldedWidth)\" height=\"26\" fill=\"url(#folded)\" stroke=\"#888\"><title>\(escape(after.foldedSummary))</title></rect>\n"
      svg +=
        "<text x=\"\(left)\" y=\"58\">after: \(milliseconds(after.durationNanoseconds))</text>\n"
    }
    return svg + "</svg>\n"
  }

  func phaseTable(_ profile: StartupProfile) -> String {
    var html = "<table><tr><th>phase</th><th>start</th><th>duration</th><th>first calls</th><th>new pages</th></tr>\n"
    for (index, phase) in profile.launchPhases.enumerated() {
      let swatch =
        "<span style=\"display:inline-block;width:10px;height:10px;margin-right:6px;background:\(Self.palette[index % Self.palette.count])\"></span>"
      html +=
        "<tr><td>\(swatch)\(escape(phase.name))</td><td>\(milliseconds(phase.startNanoseconds))</td><td>\(milliseconds(phase.durationNanoseconds))</td><td>\(phase.firstCalls)</td><td>\(phase.newPages)</td></tr>\n"
    }
    html += "</table>\n"
    if let after = profile.afterLaunch {
      html +=
        "<p class=\"after-launch\">"
        + escape(after.foldedSummary.prefix(1).uppercased() + after.foldedSummary.dropFirst()) + ".</p>\n"
    }
    return html
  }

  /// Cumulative first calls against time from the first hook (nothing is recorded
  /// before it), one line per thread, with the phase boundaries.
  func firstCallsChart(_ profile: StartupProfile) -> String {
    let origin = profile.boundaries.first { $0.kind == .firstHook }?.timeNanoseconds ?? 0
    let end = max(profile.launchEndNanoseconds, origin + 1)
    let total = end - origin
    func x(_ time: UInt64) -> Double { Double(time > origin ? time - origin : 0) / Double(total) * Double(width) }
    let height = 240
    let plotHeight = 200
    let maxCount = max(profile.threads.map(\.firstCalls).max() ?? 1, 1)
    var svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height + 20 * profile.threads.count)\">\n"
    svg += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(plotHeight)\" fill=\"#fafafa\" stroke=\"#ddd\"/>\n"
    for boundary in profile.boundaries where boundary.timeNanoseconds > origin && boundary.timeNanoseconds <= end {
      svg +=
        "<line x1=\"\(format(x(boundary.timeNanoseconds)))\" x2=\"\(format(x(boundary.timeNanoseconds)))\" y1=\"0\" y2=\"\(plotHeight)\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"><title>\(escape(boundary.name))</title></line>\n"
    }
    for (index, thread) in profile.threads.enumerated() {
      let color = Self.palette[index % Self.palette.count]
      var count = 0
      var points: [String] = []
      for call in profile.firstCalls where call.thread == thread.thread && call.timeNanoseconds <= end {
        count += 1
        let y = Double(plotHeight) - Double(count) / Double(maxCount) * Double(plotHeight - 10)
        points.append("\(format(x(call.timeNanoseconds))),\(format(y))")
      }
      svg +=
        "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
      let label = thread.isMainThread ? "thread \(thread.thread) (main)" : "thread \(thread.thread)"
      let y = height + 20 * index
      svg +=
        "<rect x=\"0\" y=\"\(y - 10)\" width=\"12\" height=\"12\" fill=\"\(color)\"/><text x=\"18\" y=\"\(y)\">\(label): \(thread.firstCalls) first calls</text>\n"
    }
    svg +=
      "<text x=\"0\" y=\"\(plotHeight + 16)\">\(milliseconds(origin)) (first hook)</text><text x=\"\(width)\" y=\"\(plotHeight + 16)\" text-anchor=\"end\">\(milliseconds(end))</text>\n"
    return svg + "</svg>\n"
  }

  /// The time before main as one bar of its parts, then a table with each module's
  /// initializers and the functions they first called.
  func preMainSection(_ preMain: StartupProfile.PreMain) -> String {
    var html =
      "<h2>Before main: \(milliseconds(preMain.mainNanoseconds))</h2>\n"
      + (preMain.runtimeStartupNanoseconds == nil
        ? "<p>Recorded without the runtime: all of it is the program's own (a recorder's overhead is taken out).</p>\n"
        : "<p>The program's own: \(milliseconds(preMain.programNanoseconds)); the runtime's start-up is overhead, hatched.</p>\n")
    let total = max(preMain.mainNanoseconds, 1)
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"40\">\n"
    svg +=
      "<defs><pattern id=\"overhead\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,6 L6,0\" stroke=\"#888\" stroke-width=\"2\"/></pattern></defs>\n"
    let parts = preMain.parts
    for (index, part) in parts.enumerated() {
      guard let start = part.startNanoseconds else { continue }
      let x = Double(start) / Double(total) * Double(width)
      let w = max(Double(part.durationNanoseconds) / Double(total) * Double(width), 1)
      let fill = part.isOverhead ? "url(#overhead)" : Self.palette[index % Self.palette.count]
      svg +=
        "<rect x=\"\(format(x))\" y=\"6\" width=\"\(format(w))\" height=\"26\" fill=\"\(fill)\"><title>\(escape(part.name)): \(milliseconds(part.durationNanoseconds))</title></rect>\n"
    }
    html += svg + "</svg>\n"
    html += "<table><tr><th>part</th><th>start</th><th>duration</th><th>functions first called</th></tr>\n"
    let runs = Dictionary(preMain.modules.map { ("initializers of " + PathName.base(of: $0.module), $0) }) { first, _ in
      first
    }
    for (index, part) in parts.enumerated() {
      let color = part.isOverhead ? "#bbb" : Self.palette[index % Self.palette.count]
      let swatch =
        "<span style=\"display:inline-block;width:10px;height:10px;margin-right:6px;background:\(color)\"></span>"
      let functions =
        runs[part.name].map { run in
          run.functions.prefix(20).map { name in
            run.initializers.contains(name) ? "<b>\(escape(name))</b>" : escape(name)
          }.joined(separator: ", ") + (run.functions.count > 20 ? ", … (\(run.functions.count) in all)" : "")
        } ?? ""
      html +=
        "<tr><td>\(swatch)\(escape(part.name))</td><td>\(part.startNanoseconds.map(milliseconds) ?? "")</td><td>\(milliseconds(part.durationNanoseconds))</td><td>\(functions)</td></tr>\n"
    }
    html += "</table>\n<p>Initializers read from the binaries are in bold.</p>\n"
    if !preMain.libraries.isEmpty {
      html += "<h3>Before main by module, in load order</h3>\n" + table(preMain.libraryRows)
      html += "<ul>\n" + StartupProfile.PreMain.libraryNotes.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul>\n"
    }
    return html
  }

  /// A header row and its rows as an HTML table.
  func table(_ rows: [[String]]) -> String {
    guard let header = rows.first else { return "" }
    return "<table><tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
      + rows.dropFirst().map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n" }.joined()
      + "</table>\n"
  }

  func format(_ value: Double) -> String { String(format: "%.1f", value) }

  func escape(_ text: String) -> String { TextFormatting.html(text) }
}

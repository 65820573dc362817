import OrderfileSupport

/// The cold launch's tables, for the estimate's text and Markdown (one row per kind of
/// section, then the sections most read).
extension ColdLaunch {
  /// How it was counted, in words.
  var methodText: String {
    switch method {
    case .perf: return "major faults by perf trace, and pages read (page cache)"
    case .pageCache: return "pages read (page cache; read-ahead included)"
    }
  }

  var endText: String {
    (end == .timeLimit ? "counted to --time-limit" : "counted to exit")
      + (endedByTool ? ", then ended" : ", exit status \(exitStatus)")
  }

  /// The device line of a module.
  static func deviceText(_ module: ColdModule) -> String {
    guard let device = module.device else { return "on no block device" }
    return "\(device.name), read-ahead \(device.readAheadKiB) KiB"
  }

  /// Header and rows of one module's table: kinds, with perf's majors where counted.
  static func kindRows(_ module: ColdModule) -> [[String]] {
    let perf = module.total.majorFaults != nil
    var rows: [[String]] = [perf ? ["section kind", "majors", "pages read"] : ["section kind", "pages read"]]
    for (name, count) in module.kinds.map({ ($0.kind.title, $0.count) }) + [("all", module.total)] {
      rows.append([name] + (perf ? [String(count.majorFaults ?? 0)] : []) + [String(count.pagesRead)])
    }
    return rows
  }

  /// "`.text` 44, `.rodata` 26, …": the sections most read, by the count gates use.
  static func sectionList(_ module: ColdModule, limit: Int = 8, code: (String) -> String = { $0 }) -> String {
    let shown = module.sections.filter { $0.count.faults > 0 }
    let names = shown.prefix(limit).map { "\(code($0.name)) \($0.count.faults)" }
    return (names + (shown.count > limit ? ["\(shown.count - limit) others"] : [])).joined(separator: ", ")
  }

  /// Lines for a terminal.
  public func textLines() -> [String] {
    var lines = [
      "", "cold launch: \(command.joined(separator: " ")) (\(endText)); \(methodText), \(pageSize >> 10) KiB pages",
    ]
    for module in modules {
      lines.append("\(module.path) (\(Self.deviceText(module)); \(module.filePages) pages in the file)")
      lines += TextFormatting.table(Self.kindRows(module), indent: "  ")
      lines.append("  by section: " + Self.sectionList(module))
    }
    if let withoutFile = majorFaultsWithoutFile, withoutFile > 0 {
      lines.append("major faults in the kernel that name no file: \(withoutFile)")
    }
    return lines
  }

  /// Lines of Markdown.
  public func markdownLines() -> [String] {
    var lines = ["", "Cold launch (\(endText)): \(methodText), \(pageSize >> 10) KiB pages."]
    for module in modules {
      let rows = Self.kindRows(module)
      lines += ["", "\(TextFormatting.markdownCode(module.path)) (\(Self.deviceText(module))):", ""]
      lines.append("| " + rows[0].joined(separator: " | ") + " |")
      lines.append("| --- |" + String(repeating: " ---: |", count: rows[0].count - 1))
      lines += rows.dropFirst().map { "| " + $0.joined(separator: " | ") + " |" }
      lines += ["", "By section: " + Self.sectionList(module, code: TextFormatting.markdownCode) + "."]
    }
    return lines
  }

  /// A section of the estimate's HTML page: one table per file.
  public func html() -> String {
    var text =
      "<h2>Cold launch</h2>\n<p>\(TextFormatting.html(endText)): \(TextFormatting.html(methodText)), \(pageSize >> 10) KiB pages.</p>\n"
    for module in modules {
      let rows = Self.kindRows(module)
      text +=
        "<h3>\(TextFormatting.html(module.path)) (\(TextFormatting.html(Self.deviceText(module))))</h3>\n<table>\n"
      text += "<tr>" + rows[0].map { "<th>\(TextFormatting.html($0))</th>" }.joined() + "</tr>\n"
      for row in rows.dropFirst() {
        text += "<tr>" + row.map { "<td>\(TextFormatting.html($0))</td>" }.joined() + "</tr>\n"
      }
      text += "</table>\n<p>By section: \(TextFormatting.html(Self.sectionList(module)))</p>\n"
    }
    return text
  }
}

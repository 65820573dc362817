import OrderfileSupport

/// The profile as Markdown tables, for merge requests.
public struct ProfileMarkdownRenderer: Renderer {
  public init() {}

  public func render(_ profile: StartupProfile) -> String {
    let escape = TextFormatting.markdownCell
    var lines: [String] = []
    lines.append("### Launch phases of pid \(profile.pid)")
    lines.append("")
    if let note = profile.emulatedTimesNote {
      lines.append("**" + note.prefix(1).uppercased() + note.dropFirst() + ".**")
      lines.append("")
    }
    if let overhead = profile.recorderOverhead {
      lines.append(overhead.summary.prefix(1).uppercased() + overhead.summary.dropFirst() + ".")
      lines.append("")
    }
    lines.append("| phase | start | duration | first calls | new pages |")
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for phase in profile.launchPhases {
      lines.append(
        "| \(escape(phase.name)) | \(milliseconds(phase.startNanoseconds)) | \(milliseconds(phase.durationNanoseconds)) | \(phase.firstCalls) | \(phase.newPages) |"
      )
    }
    if let after = profile.afterLaunch {
      lines.append("")
      lines.append(after.foldedSummary.prefix(1).uppercased() + after.foldedSummary.dropFirst() + ".")
    }
    if let preMain = profile.preMain {
      lines.append("")
      lines.append("| before main: \(milliseconds(preMain.mainNanoseconds)) | start | duration | first calls |")
      lines.append("| --- | ---: | ---: | ---: |")
      for part in preMain.parts {
        lines.append(
          "| \(escape(part.name)) | \(part.startNanoseconds.map(milliseconds) ?? "") | \(milliseconds(part.durationNanoseconds)) | \(part.firstCalls.map(String.init) ?? "") |"
        )
      }
      if !preMain.libraries.isEmpty {
        lines.append("")
        lines.append("Before main by module, in load order:")
        lines.append("")
        lines += table(preMain.libraryRows, textColumns: 3)
        lines.append("")
        lines += StartupProfile.PreMain.libraryNotes.map { "- " + $0 }
      }
    }
    if let rows = profile.mainToLaunchEndRows {
      lines.append("")
      lines.append(profile.mainToLaunchEndTitle.prefix(1).uppercased() + profile.mainToLaunchEndTitle.dropFirst() + ":")
      lines.append("")
      lines += table(rows)
    }
    lines.append("")
    lines.append("| thread | first calls | first | last |")
    lines.append("| --- | ---: | ---: | ---: |")
    for thread in profile.threads {
      lines.append(
        "| \(thread.thread)\(thread.isMainThread ? " (main)" : "") | \(thread.firstCalls) | \(milliseconds(thread.firstCallNanoseconds)) | \(milliseconds(thread.lastCallNanoseconds)) |"
      )
    }
    if let slowest = profile.slowestFirstCalls, !slowest.isEmpty {
      lines.append("")
      lines.append("| slowest first call | thread | inclusive |")
      lines.append("| --- | ---: | ---: |")
      for call in slowest.prefix(10) {
        lines.append(
          "| \(TextFormatting.markdownCode(call.name)) | \(call.thread) | \(milliseconds(call.inclusiveNanoseconds)) |")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A header row and its rows as a Markdown table, the first `textColumns` left-aligned
  /// and the numbers after them right-aligned.
  func table(_ rows: [[String]], textColumns: Int = 1) -> [String] {
    guard let header = rows.first else { return [] }
    let alignment = header.indices.map { $0 < textColumns ? " --- |" : " ---: |" }.joined()
    return ["| " + header.map(TextFormatting.markdownCell).joined(separator: " | ") + " |", "|" + alignment]
      + rows.dropFirst().map { "| " + $0.map(TextFormatting.markdownCell).joined(separator: " | ") + " |" }
  }
}

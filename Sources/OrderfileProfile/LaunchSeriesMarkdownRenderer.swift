import OrderfileSupport

/// Several launches' phases as Markdown tables, for a merge request.
public struct LaunchSeriesMarkdownRenderer: Renderer {
  public init() {}

  public func render(_ series: LaunchSeries) -> String {
    let escape = TextFormatting.markdownCell
    var lines = ["### \(series.traces.count) launches of \(TextFormatting.markdownCode(series.program))"]
    for group in [LaunchSeries.Statistic.Group.beforeMain, .phase] {
      let statistics = series.statistics.filter { $0.group == group }
      guard !statistics.isEmpty else { continue }
      lines.append("")
      lines.append("| \(group == .phase ? "phase" : "before main") | launches | median | p25 | p75 | min | max |")
      lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
      for statistic in statistics {
        let times = [
          statistic.medianNanoseconds, statistic.percentile25Nanoseconds, statistic.percentile75Nanoseconds,
          statistic.minimumNanoseconds, statistic.maximumNanoseconds,
        ].map(milliseconds)
        lines.append("| \(escape(statistic.name)) | \(statistic.launches) | \(times.joined(separator: " | ")) |")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

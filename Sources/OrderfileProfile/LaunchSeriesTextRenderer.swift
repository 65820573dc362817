import OrderfileSupport

/// Several launches' phases as text: median, middle half and range of each.
public struct LaunchSeriesTextRenderer: Renderer {
  public init() {}

  public func render(_ series: LaunchSeries) -> String {
    let sources = series.processStartSources.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
    var lines = [
      "\(series.traces.count) launches of \(series.program); process start from \(sources.joined(separator: ", "))"
    ]
    for group in [LaunchSeries.Statistic.Group.beforeMain, .phase] {
      let statistics = series.statistics.filter { $0.group == group }
      guard !statistics.isEmpty else { continue }
      lines.append("")
      lines.append(group == .phase ? "phases" : "before main")
      var rows = [[group == .phase ? "phase" : "part", "launches", "median", "p25", "p75", "min", "max"]]
      for statistic in statistics {
        rows.append(
          [statistic.name, String(statistic.launches)]
            + [
              statistic.medianNanoseconds, statistic.percentile25Nanoseconds, statistic.percentile75Nanoseconds,
              statistic.minimumNanoseconds, statistic.maximumNanoseconds,
            ].map(milliseconds))
      }
      lines += TextFormatting.table(rows, indent: "  ")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

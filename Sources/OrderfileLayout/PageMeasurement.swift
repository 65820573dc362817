/// The estimate's "now" beside the pages the binary really touched.
///
/// The estimate simulates: it counts the pages under the launch functions the trace names,
/// at their addresses in the binary. The probe measures: it counts the pages the binary's
/// code really executed. They agree when the trace names all the code that ran and nothing
/// else; the difference says what the trace misses or adds.
public struct PageMeasurement: Codable, Sendable, Equatable {
  /// One page size: the estimate and the measurement.
  public struct Row: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    /// The estimate's count for the binary as it is.
    public var estimated: Int
    public var measured: Int
    /// Within the tolerance: 3 pages or 3% of the measured count, whichever is larger.
    public var agrees: Bool
  }

  public var launch: MeasuredLaunch
  /// The watched module that is the estimated binary; nil when the run never loaded it.
  public var module: String?
  public var rows: [Row]
  /// When some row disagrees: the likely causes, most likely first.
  public var causes: [String]

  public var agrees: Bool { module != nil && rows.allSatisfy(\.agrees) }

  /// The tolerance of the comparison at `measured` pages.
  public static func tolerance(measured: Int) -> Int { max(3, (measured * 3 + 99) / 100) }

  public init(estimate: Estimate, launch: MeasuredLaunch) {
    self.launch = launch
    let measured = launch.module(for: estimate.binary)
    module = measured?.path
    rows = estimate.pages.compactMap { counts in
      guard let pages = measured?.pages.first(where: { $0.pageSize == counts.pageSize })?.pages else { return nil }
      return Row(
        pageSize: counts.pageSize, estimated: counts.current, measured: pages,
        agrees: abs(pages - counts.current) <= Self.tolerance(measured: pages))
    }
    causes = rows.allSatisfy(\.agrees) ? [] : Self.causes(estimate: estimate, rows: rows)
  }

  /// What makes a simulated count differ from a measured one, from what the estimate knows.
  static func causes(estimate: Estimate, rows: [Row]) -> [String] {
    let tooFew = rows.contains { !$0.agrees && $0.estimated < $0.measured }
    var causes: [String] = []
    if !estimate.countedByAddress {
      causes.append(
        "the trace was not recorded from this binary (another build-id, such as an instrumented build): it names what that build ran, not what this one runs; record this binary with 'orderfile record --no-rebuild'"
      )
    }
    if tooFew {
      causes.append(
        "code the trace does not name ran: functions without a symbol (Swift's private functions in .text..L sections), or cold parts"
      )
      causes.append("the launch window differs: give --until or --time-limit as when recording")
    } else {
      if estimate.sharedNames > 0 && !estimate.countedByAddress {
        causes.append(
          "\(estimate.sharedNames) launch functions share their local name with other functions (clones): by name the first copy is counted, which need not be the one that ran"
        )
      }
      causes.append("whole functions are counted where the launch ran only part of them")
      causes.append("the launch window differs: give --until or --time-limit as when recording")
    }
    return causes
  }
}

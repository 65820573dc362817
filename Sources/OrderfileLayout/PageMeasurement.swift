import OrderfileSupport
import OrderfileSymbolization

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

  /// The pages of `fixed`'s PLT sections the estimate did not count at the smallest page size
  /// where it counted too few, and whether they alone can make up that shortfall; nil when
  /// it counted them all.
  static func uncountedStubPages(_ fixed: FixedCode, rows: [Row]) -> (Int, Bool)? {
    guard let row = rows.filter({ !$0.agrees && $0.estimated < $0.measured }).min(by: { $0.pageSize < $1.pageSize })
    else { return nil }
    let all = PageMath.distinctPages(
      fixed.stubSections.map { Span(address: $0.start, size: $0.size) }, pageSize: row.pageSize)
    let uncounted = all - fixed.stubPages(pageSize: row.pageSize)
    guard uncounted > 0 else { return nil }
    return (uncounted, uncounted >= row.measured - row.estimated - Self.tolerance(measured: row.measured))
  }

  /// What makes a simulated count differ from a measured one, from what the estimate knows.
  static func causes(estimate: Estimate, rows: [Row]) -> [String] {
    let tooFew = rows.contains { !$0.agrees && $0.estimated < $0.measured }
    var causes: [String] = []
    // An instrumented build runs other code than the release: first. A release recorded before
    // its relink names the same code, so the causes below are likelier: last.
    if !estimate.countedByAddress && estimate.tracedInstrumentedBuild {
      causes.append(
        "the trace was recorded from an instrumented build: it names what that build ran, not what this one runs; record this binary with 'orderfile record --no-rebuild'"
      )
    }
    if tooFew {
      causes.append(
        "code the trace does not name ran: functions without a symbol (Swift's private functions in .text..L sections), or cold parts"
      )
      if let fixed = estimate.fixedCode, let (uncounted, explains) = Self.uncountedStubPages(fixed, rows: rows) {
        // Stubs count only where recorded code calls them: stubs reached otherwise ran unseen.
        let plt =
          "PLT stubs ran that no recorded function calls directly (from code the trace does not name, or through a function pointer): the estimate counts \(fixed.calledStubs) stubs, and \(uncounted) pages of \(fixed.stubSections.map(\.name).joined(separator: ", ")) went uncounted; code compiled with -fno-plt runs no stubs"
        causes.insert(plt, at: explains ? causes.count - 1 : causes.count)
      }
      causes.append("the launch window differs: give --until or --time-limit as when recording")
    } else {
      if estimate.sharedNames > 0 && !estimate.countedByAddress {
        causes.append(
          "\(estimate.sharedNames) launch functions share their local name with other functions (clones): by name the first copy is counted, which need not be the one that ran"
        )
      }
      causes.append("whole functions are counted where the launch ran only part of them")
      if let fixed = estimate.fixedCode, let row = rows.first(where: { !$0.agrees }),
        fixed.stubPages(pageSize: row.pageSize) > 0
      {
        // A stub counts for every call the launch code holds: first only when its pages alone
        // can make up the excess.
        let plt =
          "PLT stubs are counted for every call the launch code holds, also on paths the launch did not take (\(fixed.calledStubs) stubs on \(TextFormatting.count(fixed.stubPages(pageSize: row.pageSize), "page")) at \(formatBytes(row.pageSize)))"
        let text = Span(address: estimate.textStart, size: estimate.textEnd - min(estimate.textEnd, estimate.textStart))
        let ownPages = fixed.stubPages(pageSize: row.pageSize, outside: text)
        let explains = ownPages > 0 && ownPages >= row.estimated - row.measured - Self.tolerance(measured: row.measured)
        causes.insert(plt, at: explains ? causes.count - 1 : causes.count)
      }
      causes.append("the launch window differs: give --until or --time-limit as when recording")
    }
    if !estimate.countedByAddress && !estimate.tracedInstrumentedBuild {
      causes.append(
        "the trace was recorded from another build of this binary (before a relink, say): its launch is counted here by name, not at the recorded addresses"
      )
    }
    return causes
  }
}

import Foundation
import OrderfileLayout
import OrderfileSupport

/// What a cold launch read of the base binary and of the head binary, by section kind
/// (`diff --base-binary --head-binary --measure-cold -- ARGS`): each program run once cold by
/// `ColdLaunchReferee`, its own file counted.
public struct ColdLaunchComparison: Codable, Sendable, Equatable {
  public struct Row: Codable, Sendable, Equatable {
    public var kind: SectionKind
    /// The count gates use (`ColdCount.faults`): majors with perf, else pages read.
    public var faults: PageComparison.Delta
  }

  public var baseBinary: String
  public var headBinary: String
  /// How both were counted (the same method for both).
  public var method: ColdLaunchMethod
  /// Each side's device and read-ahead.
  public var baseDevice: StorageDevice?
  public var headDevice: StorageDevice?
  /// Every kind either side read, in `SectionKind` order.
  public var rows: [Row]
  public var total: PageComparison.Delta
  /// Present with the `max-cold-growth` gate.
  public var gate: ColdGate?

  public init(
    baseBinary: String, base: ColdModule, headBinary: String, head: ColdModule, method: ColdLaunchMethod,
    maxColdGrowth: Double? = nil
  ) {
    self.baseBinary = baseBinary
    self.headBinary = headBinary
    self.method = method
    baseDevice = base.device
    headDevice = head.device
    let kinds = Set(base.kinds.map(\.kind)).union(head.kinds.map(\.kind)).sorted()
    rows = kinds.map { Row(kind: $0, faults: .init(base: base.count(of: $0).faults, head: head.count(of: $0).faults)) }
    total = .init(base: base.total.faults, head: head.total.faults)
    gate = maxColdGrowth.map { ColdGate(maxColdGrowth: $0, total: total) }
  }

  /// Why the `max-cold-growth` gate failed, the gate spelt as `spelling` picks (its option in
  /// `diff`, its key in `regenerate`); nil when it passed or was not set.
  public func gateFailure(spelling: KeyPath<Gate, String>) -> String? {
    guard let gate, !gate.passed else { return nil }
    let growth = gate.worstPercent.map { String(format: "%+.1f%%", $0) } ?? "from 0"
    let unit = method == .perf ? "major faults" : "pages read"
    return
      "cold launch \(unit) grow \(growth) (\(total.base) → \(total.head)), more than \(Gate.maxColdGrowth[keyPath: spelling]) \(TextFormatting.number(gate.maxColdGrowth))%"
  }
}

/// The `max-cold-growth` gate, in `PageGate`'s terms: does the head's cold launch read more
/// of its file than the base's allows?
public struct ColdGate: Codable, Sendable, Equatable {
  /// The largest growth allowed, in percent of the base's count.
  public var maxColdGrowth: Double
  public var passed: Bool
  /// The total's growth in percent; nil when the base read nothing.
  public var worstPercent: Double?

  public init(maxColdGrowth: Double, total: PageComparison.Delta) {
    self.maxColdGrowth = maxColdGrowth
    worstPercent = total.deltaPercent
    passed = (total.deltaPercent ?? (total.head > 0 ? .infinity : 0)) <= maxColdGrowth
  }
}

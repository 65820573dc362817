import OrderfileLayout

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
  /// Present with `--fail-if-cold-faults-regress`.
  public var gate: ColdGate?

  public init(
    baseBinary: String, base: ColdModule, headBinary: String, head: ColdModule, method: ColdLaunchMethod,
    gateThresholdPercent: Double? = nil
  ) {
    self.baseBinary = baseBinary
    self.headBinary = headBinary
    self.method = method
    baseDevice = base.device
    headDevice = head.device
    let kinds = Set(base.kinds.map(\.kind)).union(head.kinds.map(\.kind)).sorted()
    rows = kinds.map { Row(kind: $0, faults: .init(base: base.count(of: $0).faults, head: head.count(of: $0).faults)) }
    total = .init(base: base.total.faults, head: head.total.faults)
    gate = gateThresholdPercent.map { ColdGate(thresholdPercent: $0, total: total) }
  }
}

/// The `--fail-if-cold-faults-regress` check, in `PageGate`'s terms: does the head's cold
/// launch read more of its file than the base's allows?
public struct ColdGate: Codable, Sendable, Equatable {
  /// The largest growth allowed, in percent of the base's count.
  public var thresholdPercent: Double
  public var passed: Bool
  /// The total's growth in percent; nil when the base read nothing.
  public var worstPercent: Double?

  public init(thresholdPercent: Double, total: PageComparison.Delta) {
    self.thresholdPercent = thresholdPercent
    worstPercent = total.deltaPercent
    passed = (total.deltaPercent ?? (total.head > 0 ? .infinity : 0)) <= thresholdPercent
  }
}

/// One entry that differs between a base and a head orderfile.
public struct OrderChange: Codable, Sendable, Equatable {
  public enum Kind: String, Codable, Sendable {
    /// Only in the head: `[NEW]`.
    case new
    /// Only in the base: `[DEL]`.
    case deleted
    /// In both, but out of the order the two share.
    case moved
  }

  public var kind: Kind
  /// The function name (the orderfile line's name; gold section names are unwrapped).
  public var name: String
  /// 1-based line in the base, when the entry is there.
  public var baseRank: Int?
  /// 1-based line in the head, when the entry is there.
  public var headRank: Int?
  /// For a moved entry, how many places it moved among the entries both files list: its
  /// rank among them in the head minus its rank among them in the base. Negative is earlier
  /// in the launch. Entries added or removed elsewhere do not count, so this is the number of
  /// common entries it jumped over, signed.
  public var move: Int?
  /// The size of the change, what the report sorts by: how many other entries it shifts.
  /// A move shifts the entries it jumps over (|move|); a new or deleted entry shifts every
  /// entry after it.
  public var magnitude: Int

  public init(kind: Kind, name: String, baseRank: Int?, headRank: Int?, move: Int?, magnitude: Int) {
    self.kind = kind
    self.name = name
    self.baseRank = baseRank
    self.headRank = headRank
    self.move = move
    self.magnitude = magnitude
  }

  /// Largest change first; then new, deleted, moved; then earlier in the head (or base); then name.
  static func precedes(_ a: OrderChange, _ b: OrderChange) -> Bool {
    if a.magnitude != b.magnitude { return a.magnitude > b.magnitude }
    if a.kind != b.kind { return a.kind.sortIndex < b.kind.sortIndex }
    let aRank = a.headRank ?? a.baseRank ?? 0
    let bRank = b.headRank ?? b.baseRank ?? 0
    if aRank != bRank { return aRank < bRank }
    return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
  }
}

extension OrderChange.Kind {
  var sortIndex: Int {
    switch self {
    case .new: return 0
    case .deleted: return 1
    case .moved: return 2
    }
  }
}

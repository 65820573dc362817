/// A trace to merge and the weight its run carries.
public struct WeightedTrace: Sendable, Equatable {
  public var path: String
  /// How many identical runs this trace counts as (default 1).
  public var weight: Double

  public init(path: String, weight: Double = 1) {
    self.path = path
    self.weight = weight
  }

  /// Parses `TRACE` or `TRACE:WEIGHT`.
  ///
  /// The part after the last colon is a weight when it starts like a number (a digit, `.`,
  /// `+` or `-`); it must then be a positive finite number. Otherwise the whole argument is
  /// the path. A file whose name ends in `:<number>` is written with an explicit weight:
  /// `run:2:1`.
  public init(argument: String) throws {
    guard let colon = argument.lastIndex(of: ":") else {
      self.init(path: argument)
      return
    }
    let suffix = argument[argument.index(after: colon)...]
    guard let first = suffix.first, first.isASCII, first.isNumber || ".+-".contains(first) else {
      self.init(path: argument)
      return
    }
    guard let weight = Double(suffix), weight.isFinite, weight > 0, colon > argument.startIndex else {
      throw MergeError.badWeight(argument: argument, weight: String(suffix))
    }
    self.init(path: String(argument[..<colon]), weight: weight)
  }

  /// Orders inputs canonically (by path bytes, then weight), so that a merge does not depend
  /// on the order its traces were given in.
  static func canonicalOrder(_ a: WeightedTrace, _ b: WeightedTrace) -> Bool {
    if a.path != b.path { return a.path.utf8.lexicographicallyPrecedes(b.path.utf8) }
    return a.weight < b.weight
  }
}

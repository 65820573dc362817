/// A percentage of 0 or more, written with or without the sign: `2` or `2%`.
///
/// The gates `max-page-growth` and `max-cold-growth` take one (`Gate`): how much a count may grow.
public struct Percentage: Hashable, Sendable, CustomStringConvertible {
  /// The number of percent, 0 or more.
  public var value: Double

  public init(_ value: Double) {
    self.value = max(value, 0)
  }

  /// Parses `2` or `2%`; nil for anything that is not a finite number of 0 or more.
  public init?(argument: String) {
    let number = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
    guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
    self.value = value
  }

  public var description: String { TextFormatting.number(value) + "%" }
}

/// A share from 0 to 1, written as a fraction or a percentage: `0.95` or `95%`.
///
/// The gates `min-match` and `min-in-order` take one (`Gate`).
public struct Rate: Hashable, Sendable, CustomStringConvertible {
  /// The share, 0...1.
  public var value: Double

  /// `value` clamped to 0...1.
  public init(_ value: Double) {
    self.value = min(max(value, 0), 1)
  }

  /// Parses `0.95` or `95%`; nil for anything that is not a share between 0 and 1.
  public init?(argument: String) {
    let isPercent = argument.hasSuffix("%")
    guard let number = Double(isPercent ? String(argument.dropLast()) : argument) else { return nil }
    let share = isPercent ? number / 100 : number
    guard (0...1).contains(share) else { return nil }
    value = share
  }

  /// As a fraction, the way it is written back in help texts: "0.95".
  public var description: String { TextFormatting.number(value) }
}

/// A limit that fails the run (exit 1) when crossed, under the one name it has everywhere:
/// the option of the commands that take it (`--max-page-growth 2`) and the key under
/// `gates:` of a `regenerate` configuration (`max-page-growth: 2`), with the same value and
/// unit in both. Messages and reports spell a gate only through this type.
public enum Gate: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
  /// The least match rate, a `Rate`: recorded functions that become orderfile entries
  /// (`generate`, `merge`, `regenerate`).
  case minMatch = "min-match"
  /// The least share, a `Rate`, of an orderfile's entries that a relinked binary holds, and
  /// of those that sit in order (`verify`, `regenerate`).
  case minInOrder = "min-in-order"
  /// The most launch pages may grow, a `Percentage` of the base's (`diff`, `regenerate`).
  case maxPageGrowth = "max-page-growth"
  /// The most what a cold launch reads of its program's file may grow, a `Percentage` of the
  /// base's (`diff --measure-cold`, `regenerate`).
  case maxColdGrowth = "max-cold-growth"

  /// The configuration key, and the gate's name in reports: `min-match`.
  public var name: String { rawValue }

  /// The command-line option: `--min-match`.
  public var option: String { "--" + rawValue }

  public var description: String { name }
}

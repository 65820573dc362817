/// What `Regeneration` is doing, for a progress display (never part of the report).
public enum RegenerationProgress: Sendable, Equatable {
  /// A step starts: its number (from 1), of how many, and what it does.
  case step(number: Int, of: Int, String)
  /// One recording run of a scenario starts.
  case run(scenario: String, run: Int, of: Int)
  /// The step that started last finished after `seconds`.
  case finished(seconds: Double)
}

/// A module that was recorded but is outside the requested selection: reported, never
/// emitted. Generation, merges and their reports all carry this one type; a merge sums
/// `launchRecords` over its runs.
public struct SkippedModule: Codable, Sendable, Equatable {
  /// Why it gets no orderfile.
  public enum Reason: String, Sendable, Codable {
    /// Another module was asked for.
    case notSelected
    /// An installed system library: the user's build does not link it, so an orderfile
    /// for it would apply to nothing.
    case systemLibrary
  }

  public var path: String
  public var launchRecords: Int
  public var reason: Reason

  public init(path: String, launchRecords: Int, reason: Reason = .notSelected) {
    self.path = path
    self.launchRecords = launchRecords
    self.reason = reason
  }
}

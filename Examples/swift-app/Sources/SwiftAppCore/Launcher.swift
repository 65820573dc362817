import CSwiftAppSupport

/// What the handlers work on: the state a launch builds up.
struct Context: Sendable {
  var words: [String] = []
  var table: [String: Int] = [:]
  var numbers: [Int] = []
  var total: UInt64 = 0
}

/// What a launch did, for the program to print.
public struct LaunchSummary: Sendable {
  public var handlers: Int
  public var words: Int
  public var entries: Int
  public var checksum: UInt64
}

/// Runs the launch handlers of the features the first screen needs, in launch order, and
/// any other handler by name afterwards.
public final class Launcher {
  private var context = Context()

  public init() {}

  public func launch() -> LaunchSummary {
    context.words = ["swiftapp", "launch"]
    context.total = swiftapp_seed("swiftapp")
    for (_, handler) in launchHandlers {
      handler(&context)
    }
    return LaunchSummary(
      handlers: launchHandlers.count, words: context.words.count, entries: context.table.count,
      checksum: context.total)
  }

  /// Runs the handler called `name` ("feature.handler"); nil when there is none.
  public func run(_ name: String) -> UInt64? {
    guard let handler = allHandlers[name] else { return nil }
    handler(&context)
    return context.total
  }
}

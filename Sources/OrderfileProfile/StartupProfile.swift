import OrderfileTrace

/// The launch explained: phases between named points in time, what ran first in each,
/// per thread and per module. Times are nanoseconds from process start.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md).
public struct StartupProfile: Codable, Sendable, Equatable {
  /// A point in time that starts or ends a phase.
  public struct Boundary: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
      case processStart, firstHook, main, mark, launchComplete, exit
    }
    public var kind: Kind
    public var name: String
    public var timeNanoseconds: UInt64
    /// The thread that set it, for marks.
    public var thread: UInt32?
  }

  /// The span between two consecutive boundaries.
  public struct Phase: Codable, Sendable, Equatable {
    public var name: String
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    public var durationNanoseconds: UInt64 { endNanoseconds - startNanoseconds }
    /// Functions first called in this phase.
    public var firstCalls: Int
    /// Pages of the recorded binaries first touched in this phase (4 KiB).
    public var newPages: Int
    /// The first calls' function names, in order.
    public var functions: [String]
  }

  public struct ThreadSummary: Codable, Sendable, Equatable {
    public var thread: UInt32
    public var isMainThread: Bool
    public var firstCalls: Int
    public var firstCallNanoseconds: UInt64
    public var lastCallNanoseconds: UInt64
    /// First calls per phase, by phase index.
    public var firstCallsPerPhase: [Int]
  }

  public struct ModuleSummary: Codable, Sendable, Equatable {
    public var path: String
    public var firstCalls: Int
    public var pages: Int
    public var symbolized: Bool
  }

  public struct FirstCallEntry: Codable, Sendable, Equatable {
    public var name: String
    public var module: Int
    public var timeNanoseconds: UInt64
    public var thread: UInt32
    public var phase: Int
    /// False for calls after the launch window.
    public var inLaunchWindow: Bool
  }

  /// A function's first call with how long it took, in full mode.
  public struct TimedCall: Codable, Sendable, Equatable {
    public var name: String
    public var thread: UInt32
    public var startNanoseconds: UInt64
    /// From entry to exit, callees included.
    public var inclusiveNanoseconds: UInt64
  }

  public var trace: String
  public var pid: UInt32
  /// How precisely the process start is known (one kernel clock tick).
  public var processStartResolutionNanoseconds: UInt64
  public var boundaries: [Boundary]
  public var phases: [Phase]
  public var threads: [ThreadSummary]
  public var modules: [ModuleSummary]
  public var firstCalls: [FirstCallEntry]
  /// Full mode only: the slowest first calls, slowest first.
  public var slowestFirstCalls: [TimedCall]?
  /// Full mode only: events not recorded, because a thread's buffer was full or no buffer was left.
  public var droppedEvents: UInt64?
  /// Modules whose binaries were not found, with why.
  public var unsymbolizedModules: [String]
}

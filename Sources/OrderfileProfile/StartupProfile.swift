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

  /// The time before `main`, split into what a launch engineer can act on. Times are from
  /// process start; the parts add up to `mainNanoseconds`.
  public struct PreMain: Codable, Sendable, Equatable {
    /// One module's static initializers, run one after the other by the loader.
    public struct Initializers: Codable, Sendable, Equatable {
      /// The module's path as recorded.
      public var module: String
      public var startNanoseconds: UInt64
      public var endNanoseconds: UInt64
      public var durationNanoseconds: UInt64
      /// The module's static initializers (read from the binary) that were recorded, in order.
      public var initializers: [String]
      /// Functions first called while they ran, in order, the initializers among them.
      public var functions: [String]
    }

    /// Process start to `main`.
    public var mainNanoseconds: UInt64
    /// Process start to the first static initializer (or to the runtime's start-up, which
    /// the first instrumented call sets off): exec, and the loader mapping and relocating.
    public var loaderNanoseconds: UInt64
    /// The runtime's own start-up, overhead that the program without it does not have; nil
    /// when the recorder ran outside the process.
    public var runtimeStartupNanoseconds: UInt64?
    /// Each module's static initializers, in the order they ran.
    public var modules: [Initializers]
    /// Time before `main` in none of the above (between initializers, after the last one).
    public var otherNanoseconds: UInt64
    /// `mainNanoseconds` without the runtime's start-up: the program's own time before main.
    public var programNanoseconds: UInt64
  }

  /// The time a recorder outside the program spent on itself (the tracer: planting
  /// breakpoints, handling each first call's trap), already taken out of every time in the
  /// profile: overhead, as the runtime's start-up is.
  public struct RecorderOverhead: Codable, Sendable, Equatable {
    /// Before the program's first own call: breakpoints planted, libraries armed.
    public var armingNanoseconds: UInt64
    /// The rest: traps handled while the program ran.
    public var trapsNanoseconds: UInt64
    public var totalNanoseconds: UInt64 { armingNanoseconds + trapsNanoseconds }

    public init(armingNanoseconds: UInt64, trapsNanoseconds: UInt64) {
      self.armingNanoseconds = armingNanoseconds
      self.trapsNanoseconds = trapsNanoseconds
    }

    init(_ time: RecorderTime) {
      self.init(
        armingNanoseconds: time.armingNanoseconds,
        trapsNanoseconds: time.totalNanoseconds - min(time.armingNanoseconds, time.totalNanoseconds))
    }
  }

  public var trace: String
  public var pid: UInt32
  /// How precisely the process start is known (one kernel clock tick from /proc, a
  /// microsecond from the recorder's spawn time).
  public var processStartResolutionNanoseconds: UInt64
  /// Where the process start came from.
  public var processStartSource: ProcessStartSource
  /// The time before main, split; nil when `main` was not recorded.
  public var preMain: PreMain?
  /// The recorder's own time, taken out of the times here; nil when the trace's times are
  /// the wall clock's (a runtime in the program, or a trace before format 1.3).
  public var recorderOverhead: RecorderOverhead? = nil
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

extension StartupProfile.RecorderOverhead {
  /// One line, as every renderer says it.
  public var summary: String {
    "recorder overhead, taken out of every time shown: \(milliseconds(totalNanoseconds)) "
      + "(arming \(milliseconds(armingNanoseconds)), traps \(milliseconds(trapsNanoseconds)))"
  }
}

extension StartupProfile.PreMain {
  /// One row of the time before main, as every renderer shows it.
  public struct Part: Sendable, Equatable {
    public var name: String
    public var startNanoseconds: UInt64?
    public var durationNanoseconds: UInt64
    /// First calls in it; nil where none are counted (the loader's and the runtime's own work).
    public var firstCalls: Int?
    /// The runtime's own start-up: not the program's time.
    public var isOverhead: Bool
  }

  /// The loader, the runtime's start-up, each module's initializers and the rest, in time order.
  public var parts: [Part] {
    var parts = [
      Part(
        name: "loader (exec, mapping, relocation)", startNanoseconds: 0,
        durationNanoseconds: loaderNanoseconds, firstCalls: nil, isOverhead: false)
    ]
    if let runtimeStartupNanoseconds {
      parts.append(
        Part(
          name: "runtime start-up (overhead)", startNanoseconds: loaderNanoseconds,
          durationNanoseconds: runtimeStartupNanoseconds, firstCalls: nil, isOverhead: true))
    }
    for run in modules {
      parts.append(
        Part(
          name: "initializers of \(Self.fileName(run.module))", startNanoseconds: run.startNanoseconds,
          durationNanoseconds: run.durationNanoseconds, firstCalls: run.functions.count, isOverhead: false))
    }
    if otherNanoseconds > 0 {
      parts.append(
        Part(
          name: "other", startNanoseconds: nil, durationNanoseconds: otherNanoseconds, firstCalls: nil,
          isOverhead: false))
    }
    return parts
  }

  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}

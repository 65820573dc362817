import OrderfileLayout
import OrderfileSupport
import OrderfileSymbolization
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
    /// The one phase that folds everything after the launch window (an app idles after its
    /// launch, a server serves): from the window's end to the trace's. Always the last.
    public var isAfterLaunch: Bool = false
  }

  /// A module's functions first called in a stretch of the launch, and when the first and
  /// the last of them were called: measured.
  public struct ModuleCalls: Codable, Sendable, Equatable {
    /// The module's path as recorded.
    public var module: String
    public var firstCalls: Int
    public var firstNanoseconds: UInt64
    public var lastNanoseconds: UInt64
    public var spanNanoseconds: UInt64 { lastNanoseconds - firstNanoseconds }
    /// Pages of the module first touched by those calls (4 KiB).
    public var newPages: Int
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
    /// Each module that ran code before `main` (and the executable), in the loader's load
    /// order.
    public var libraries: [Library] = []

    /// One module before `main`: what the loader does for it and what its own code did.
    public struct Library: Codable, Sendable, Equatable {
      /// The module's path as recorded.
      public var module: String
      /// Its place in the loader's load order, inferred from the binaries: 0 for the
      /// executable, then its `DT_NEEDED` libraries breadth first, as glibc loads them. Nil
      /// for a module no chain of recorded binaries names (opened with `dlopen`, or needed by
      /// a library that ran no recorded code), listed after the others by its first call.
      public var loadOrder: Int?
      /// The dynamic relocations the loader applies to it, read from its binary; nil when
      /// the binary was not found. The trace holds the loader's time in all only.
      public var relocations: ModuleLoading.Relocations?
      /// When its static initializers began and how long they ran, inferred from the first
      /// calls as `modules` are; 0 and empty when none ran before `main`.
      public var constructorsStartNanoseconds: UInt64?
      public var constructorsNanoseconds: UInt64
      /// Its static initializers (read from the binary) that were recorded, in order.
      public var constructors: [String]
      /// Its own functions first called on the main thread before `main`, measured; nil
      /// when none were.
      public var calls: ModuleCalls?
    }
  }

  /// The time a recorder outside the program spent on itself (the tracer: planting
  /// breakpoints, handling each first call's trap), already taken out of every time in the
  /// profile: overhead, as the runtime's start-up is.
  public struct RecorderOverhead: Codable, Sendable, Equatable {
    /// Before the program's first own call: breakpoints planted, libraries armed.
    public var armingNanoseconds: UInt64
    /// The rest of its own: traps handled while the program ran, each with its time outside
    /// the recorder's handler (the kernel raising the signal and returning from it).
    public var trapsNanoseconds: UInt64
    /// Its children's recorder time (their arming, traps and ends), charged while the
    /// process waited for them: the in-process recorder's; 0 for a trace that says none.
    public var childrenNanoseconds: UInt64 = 0
    /// The first calls those traps recorded; nil when not known.
    public var firstCalls: Int? = nil
    /// The launch whose times the report shows instead (`record --timing-launch`); nil when
    /// the times are this recording's own, its recorder's time taken out.
    public var timingLaunch: TimingSource? = nil
    public var totalNanoseconds: UInt64 { armingNanoseconds + trapsNanoseconds + childrenNanoseconds }

    public init(armingNanoseconds: UInt64, trapsNanoseconds: UInt64, childrenNanoseconds: UInt64 = 0) {
      self.armingNanoseconds = armingNanoseconds
      self.trapsNanoseconds = trapsNanoseconds
      self.childrenNanoseconds = childrenNanoseconds
    }

    init(_ time: RecorderTime, firstCalls: Int) {
      let arming = min(time.armingNanoseconds, time.totalNanoseconds)
      let children = min(time.childrenNanoseconds, time.totalNanoseconds - arming)
      self.init(
        armingNanoseconds: arming, trapsNanoseconds: time.totalNanoseconds - arming - children,
        childrenNanoseconds: children)
      self.firstCalls = firstCalls
    }
  }

  /// A timing launch a report took its times from (see `TimingLaunch`).
  public struct TimingSource: Codable, Sendable, Equatable {
    /// Its trace.
    public var trace: String
    /// The functions both launches called that tie their times together, process start
    /// and the ends not counted.
    public var anchors: Int
    /// What its recorder took out of its times.
    public var recorderNanoseconds: UInt64

    public init(trace: String, anchors: Int, recorderNanoseconds: UInt64) {
      self.trace = trace
      self.anchors = anchors
      self.recorderNanoseconds = recorderNanoseconds
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
  /// The program ran under a user-mode emulator (qemu-user): every time is the emulator's,
  /// and the loader's share holds the emulator's own start-up.
  public var emulated = false
  public var boundaries: [Boundary]
  public var phases: [Phase]
  public var threads: [ThreadSummary]
  public var modules: [ModuleSummary]
  /// `main` to the launch's end, by module: each module's functions first called in that
  /// stretch (any thread) and when; nil when `main` was not recorded.
  public var mainToLaunchEnd: [ModuleCalls]? = nil
  public var firstCalls: [FirstCallEntry]
  /// Full mode only: the slowest first calls, slowest first.
  public var slowestFirstCalls: [TimedCall]?
  /// Full mode only: events not recorded, because a thread's buffer was full or no buffer was left.
  public var droppedEvents: UInt64?
  /// Modules whose binaries were not found, with why.
  public var unsymbolizedModules: [String]
  /// What a cold run of the program read of its files, by section (`report --measure-cold`).
  public var coldLaunch: ColdLaunch? = nil
}

extension StartupProfile {
  /// Where the launch ends: the window's end when something followed it, else the trace's end.
  public var launchEndNanoseconds: UInt64 {
    afterLaunch?.startNanoseconds ?? phases.last?.endNanoseconds ?? 0
  }

  /// The phases of the launch, up to its end, without the folded rest.
  public var launchPhases: [Phase] { phases.filter { !$0.isAfterLaunch } }

  /// What followed the launch, folded into one phase; nil when the launch ran to the end.
  public var afterLaunch: Phase? { phases.last.flatMap { $0.isAfterLaunch ? $0 : nil } }
}

extension StartupProfile.Phase {
  /// The name of the folded phase after the launch.
  public static let afterLaunchName = "after the launch"

  /// The folded phase in a line, as every renderer says it.
  public var foldedSummary: String {
    "\(Self.afterLaunchName): \(milliseconds(durationNanoseconds)), \(firstCalls) functions"
      + " (folded: not drawn to scale, not part of the launch)"
  }
}

extension StartupProfile {
  /// The line every renderer puts first when the times are an emulator's; nil for a native run.
  public var emulatedTimesNote: String? {
    emulated
      ? "emulated times: the program ran under a user-mode emulator (qemu-user), so every time is the emulator's and the loader's share holds the emulator's start-up; the order and the pages hold, the times do not"
      : nil
  }
}

extension StartupProfile.RecorderOverhead {
  /// One line, as every renderer says it.
  public var summary: String {
    // Per first call: what a reader holds against the handler's own cost and the kernel's.
    let each = firstCalls.flatMap { $0 > 0 ? (count: $0, nanoseconds: trapsNanoseconds / UInt64($0)) : nil }
    let timing = timingLaunch.map {
      "times from the timing launch \($0.trace) (the same command again, trapping only the \($0.anchors) functions that mark its phases; its recorder's \(milliseconds($0.recorderNanoseconds)) taken out); "
    }
    return (timing ?? "")
      + "recorder overhead\(timing == nil ? ", taken out of every time shown" : " of this recording"): \(milliseconds(totalNanoseconds)) "
      + "(arming \(milliseconds(armingNanoseconds)), traps \(milliseconds(trapsNanoseconds))"
      + (each.map {
        ": \($0.count) first calls, \(Double($0.nanoseconds / 10) / 100) µs each, the kernel's part included"
      } ?? "")
      + (childrenNanoseconds > 0
        ? "; its children's, while it waited for them, \(milliseconds(childrenNanoseconds))" : "")
      + ")"
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
          name: "initializers of \(PathName.base(of: run.module))", startNanoseconds: run.startNanoseconds,
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
}

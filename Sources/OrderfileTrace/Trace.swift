import Foundation
import OrderfileSupport

/// A launch trace as the runtime wrote it: header facts, the modules that own
/// recorded functions, and the first calls in global first-call order.
public struct Trace: Sendable {
  /// The file the trace was read from, for messages.
  public var path: String
  public var header: TraceHeader
  public var modules: [TraceModule]
  /// First calls in the order their slots were reserved, which is first-call order.
  public var records: [FirstCall]
  /// Slots that were reserved but never completed: the writer died mid-record
  /// (a crash, SIGKILL, `_exit`, or a thread still writing at exit).
  public var uncommittedRecords: Int
  /// Records of kinds this reader does not know, from a newer minor format version.
  public var unknownRecords: Int
  /// Named marks the program set with `orderfile_mark()`, in the order they were set.
  public var marks: [Mark]
  /// Full mode: each thread's enter and exit events, when the trace has them.
  public var threads: [ThreadEvents]
  /// Pages of read-only data first touched inside the launch window (format 1.4), in the
  /// order their slots were reserved.
  public var dataTouches: [DataTouch]

  public init(
    path: String, header: TraceHeader, modules: [TraceModule], records: [FirstCall],
    uncommittedRecords: Int = 0, unknownRecords: Int = 0, marks: [Mark] = [], threads: [ThreadEvents] = [],
    dataTouches: [DataTouch] = []
  ) {
    self.path = path
    self.header = header
    self.modules = modules
    self.records = records
    self.uncommittedRecords = uncommittedRecords
    self.unknownRecords = unknownRecords
    self.marks = marks
    self.threads = threads
    self.dataTouches = dataTouches
  }

  /// The records inside the launch window.
  public var launchRecords: [FirstCall] { records.filter { $0.phase == .launch } }

  /// The process's own first calls: in a fork child, those past the ones it inherited.
  public var ownRecords: ArraySlice<FirstCall> { records.dropFirst(header.forkRecordIndex ?? 0) }

  /// Where a report puts the first hook: the recorder's start, or an earlier first call (a
  /// traced image inherits its parent's from before the fork), so that no phase runs backwards.
  public var firstHookNanoseconds: UInt64 {
    min(header.traceStartNanoseconds, records.map(\.timeNanoseconds).min() ?? .max)
  }

  /// Where a report ends the trace: its header's end, or its last first call when that came
  /// later (or when the trace was never closed).
  public var reportedEndNanoseconds: UInt64 {
    let lastRecord = records.map(\.timeNanoseconds).max() ?? header.traceStartNanoseconds
    return max(header.endNanoseconds ?? lastRecord, lastRecord)
  }
}

/// Why the recording window closed.
public enum WindowReason: UInt32, Sendable, Codable {
  /// The trace ended with the window still open (the process died or called `_exit`).
  case open = 0
  /// The program called `orderfile_startup_complete()`.
  case startupComplete = 1
  /// `ORDERFILE_TIME_LIMIT_MS` elapsed.
  case timeLimit = 2
  /// The process exited inside the window.
  case exit = 3
  /// The recorder was sent SIGINT, SIGTERM or SIGHUP inside the window and passed it on to
  /// the program (`OFT_WINDOW_SIGNAL`): the trace holds what ran until then.
  case signal = 4
}

/// Where a trace's process start time came from (`OFT_START_*`). In JSON it is its name
/// (`procStat`, `spawn`, `traceStart`).
public enum ProcessStartSource: UInt32, Sendable, CaseIterable {
  /// The kernel's start time in `/proc/self/stat`, to one clock tick (10 ms on most systems),
  /// placed within the tick by the process's time on a core and waiting for one since it
  /// was created (later by any time it slept, never outside the tick).
  case procStat = 0
  /// The recorder's clock just before it spawned the process: exact to the microsecond.
  case spawn = 1
  /// Not known: the runtime's own start stands in for it.
  case traceStart = 2

  /// Its name in JSON.
  public var name: String {
    switch self {
    case .procStat: "procStat"
    case .spawn: "spawn"
    case .traceStart: "traceStart"
    }
  }

  /// How a report names it.
  public var label: String {
    switch self {
    case .procStat: "estimated from /proc: its clock tick, and its time run and waiting to run"
    case .spawn: "exact, from the recorder's spawn time"
    case .traceStart: "unknown, the first hook stands in"
    }
  }
}

extension ProcessStartSource: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let source = Self.allCases.first(where: { $0.name == name }) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "unknown process start source '\(name)'")
    }
    self = source
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }
}

/// The time a recorder spent on itself, on the program's clock's behalf: times after the
/// process start are `CLOCK_MONOTONIC` minus the recorder time spent before them
/// (`OFT_FLAG_PROGRAM_CLOCK`).
public struct RecorderTime: Sendable, Equatable {
  /// All of it: arming, trap handling, threads held stopped.
  public var totalNanoseconds: UInt64
  /// The part spent before the program's first own instruction.
  public var armingNanoseconds: UInt64
  /// The part that is other processes' recorder time: its children's, charged while it
  /// waited for them (version 1.5; 0 before).
  public var childrenNanoseconds: UInt64

  public init(totalNanoseconds: UInt64, armingNanoseconds: UInt64, childrenNanoseconds: UInt64 = 0) {
    self.totalNanoseconds = totalNanoseconds
    self.armingNanoseconds = armingNanoseconds
    self.childrenNanoseconds = childrenNanoseconds
  }
}

/// Facts from the trace header. Times are `CLOCK_MONOTONIC` nanoseconds.
public struct TraceHeader: Sendable, Equatable {
  public var versionMajor: UInt16
  public var versionMinor: UInt16
  public var pid: UInt32
  /// For the trace of a forked child: its parent's pid.
  public var parentPID: UInt32?
  /// For the trace of a forked child: records before this index were inherited from the parent.
  public var forkRecordIndex: Int?
  public var recordCapacity: Int
  public var moduleCapacity: Int
  /// Process creation, good to `processStartResolutionNanoseconds`; `processStartSource`
  /// says where it came from.
  public var processStartNanoseconds: UInt64
  public var processStartResolutionNanoseconds: UInt64
  public var processStartSource: ProcessStartSource = .procStat
  /// When the runtime initialized, at the first instrumented call.
  public var traceStartNanoseconds: UInt64
  /// When the runtime's own start-up (from `traceStartNanoseconds`) ended; nil when not
  /// recorded (traces before 1.2, recorders outside the process).
  public var startupEndNanoseconds: UInt64?
  /// The recorder's own time (arming, trap handling, threads held stopped), already taken
  /// out of every later time in the trace (version 1.3); nil when the trace's times are the
  /// wall clock's.
  public var recorderTime: RecorderTime?
  /// The program ran under a user-mode emulator (`OFT_FLAG_EMULATED`): every time is the
  /// emulator's, its start-up in the loader's share.
  public var isEmulated = false
  /// The window's time limit, measured from process start, if one was set.
  public var timeLimitNanoseconds: UInt64?
  /// First calls the runtime could not record (capacity or table full).
  public var droppedCount: UInt64
  /// Full mode: events of threads that found no event buffer left, not recorded.
  public var unbufferedEvents: UInt64 = 0
  /// True when the process finalized the trace (`exit` or `orderfile_finish`).
  public var isClosed: Bool
  public var windowReason: WindowReason
  public var windowEndNanoseconds: UInt64?
  public var endNanoseconds: UInt64?
  /// `getrusage` fault counts at the end of the window, when recorded.
  public var minorFaults: UInt64?
  public var majorFaults: UInt64?

  public init(
    versionMajor: UInt16,
    versionMinor: UInt16,
    pid: UInt32,
    parentPID: UInt32?,
    forkRecordIndex: Int?,
    recordCapacity: Int,
    moduleCapacity: Int,
    processStartNanoseconds: UInt64,
    processStartResolutionNanoseconds: UInt64,
    processStartSource: ProcessStartSource = .procStat,
    traceStartNanoseconds: UInt64,
    startupEndNanoseconds: UInt64? = nil,
    recorderTime: RecorderTime? = nil,
    timeLimitNanoseconds: UInt64?,
    droppedCount: UInt64,
    unbufferedEvents: UInt64 = 0,
    isClosed: Bool,
    windowReason: WindowReason,
    windowEndNanoseconds: UInt64?,
    endNanoseconds: UInt64?,
    minorFaults: UInt64?,
    majorFaults: UInt64?
  ) {
    self.versionMajor = versionMajor
    self.versionMinor = versionMinor
    self.pid = pid
    self.parentPID = parentPID
    self.forkRecordIndex = forkRecordIndex
    self.recordCapacity = recordCapacity
    self.moduleCapacity = moduleCapacity
    self.processStartNanoseconds = processStartNanoseconds
    self.processStartResolutionNanoseconds = processStartResolutionNanoseconds
    self.processStartSource = processStartSource
    self.traceStartNanoseconds = traceStartNanoseconds
    self.startupEndNanoseconds = startupEndNanoseconds
    self.recorderTime = recorderTime
    self.timeLimitNanoseconds = timeLimitNanoseconds
    self.droppedCount = droppedCount
    self.unbufferedEvents = unbufferedEvents
    self.isClosed = isClosed
    self.windowReason = windowReason
    self.windowEndNanoseconds = windowEndNanoseconds
    self.endNanoseconds = endNanoseconds
    self.minorFaults = minorFaults
    self.majorFaults = majorFaults
  }

  public var isForked: Bool { parentPID != nil }
}

/// An instrumented module (the executable or a shared library).
public struct TraceModule: Sendable, Equatable {
  /// Position in the trace's module table; records refer to it.
  public var index: Int
  /// The path the module was loaded from.
  public var path: String
  /// The GNU build-id bytes, empty when the module has none.
  public var buildID: [UInt8]
  /// Runtime address minus ELF virtual address.
  public var loadBase: UInt64
  /// ELF virtual addresses of the executable segments.
  public var textRange: Range<UInt64>
  public var isMainExecutable: Bool
  /// True when the recorded path was cut to fit the entry.
  public var pathTruncated: Bool
  /// Resident bytes of the module's text at the end of the window, when recorded.
  public var textResidentBytes: UInt64?

  public init(
    index: Int, path: String, buildID: [UInt8], loadBase: UInt64, textRange: Range<UInt64>,
    isMainExecutable: Bool, pathTruncated: Bool = false, textResidentBytes: UInt64? = nil
  ) {
    self.index = index
    self.path = path
    self.buildID = buildID
    self.loadBase = loadBase
    self.textRange = textRange
    self.isMainExecutable = isMainExecutable
    self.pathTruncated = pathTruncated
    self.textResidentBytes = textResidentBytes
  }

  /// The build-id as lowercase hex, or "none".
  public var buildIDHex: String {
    buildID.isEmpty ? "none" : TextFormatting.hex(buildID)
  }
}

/// When a function was first called relative to the launch window.
public enum Phase: UInt8, Sendable, Codable {
  /// Inside the launch window: part of the startup order.
  case launch = 1
  /// After the window closed: kept, but not part of the launch order.
  case postWindow = 2
}

/// The first call of one function.
public struct FirstCall: Sendable, Equatable {
  /// Index into `Trace.modules`.
  public var module: Int
  /// The function's ELF virtual address in its module.
  public var address: UInt64
  /// `CLOCK_MONOTONIC` nanoseconds of the call.
  public var timeNanoseconds: UInt64
  /// Kernel thread id of the caller.
  public var threadID: UInt32
  public var phase: Phase

  public init(module: Int, address: UInt64, timeNanoseconds: UInt64, threadID: UInt32, phase: Phase) {
    self.module = module
    self.address = address
    self.timeNanoseconds = timeNanoseconds
    self.threadID = threadID
    self.phase = phase
  }
}

/// A first touch of a module's read-only data (`OFT_KIND_DATA_PAGE`): `.rodata`, the
/// relocated read-only data (`.data.rel.ro`) and whatever else the loader maps read-only.
public struct DataTouch: Sendable, Equatable {
  /// Index into `Trace.modules`.
  public var module: Int
  /// ELF virtual address of the byte touched first, in its module.
  public var address: UInt64
  /// The size of the page the touch was seen at: every byte of it may have been read.
  public var pageSize: UInt64
  /// `CLOCK_MONOTONIC` nanoseconds of the first touch.
  public var timeNanoseconds: UInt64
  /// Kernel thread id of the thread that touched it.
  public var threadID: UInt32

  public init(module: Int, address: UInt64, pageSize: UInt64, timeNanoseconds: UInt64, threadID: UInt32) {
    self.module = module
    self.address = address
    self.pageSize = pageSize
    self.timeNanoseconds = timeNanoseconds
    self.threadID = threadID
  }

  /// ELF virtual addresses of the granule touched (`OFT_DATA_GRANULE` bytes): later touches
  /// inside it are not recorded, so each of its bytes may have been read.
  public var granule: Range<UInt64> {
    let start = address - address % TraceLayout.dataGranule
    return start..<(start + TraceLayout.dataGranule)
  }

  /// ELF virtual addresses of the page the touch was seen at.
  public var page: Range<UInt64> {
    let start = address - address % pageSize
    return start..<(start + pageSize)
  }
}

/// A named point in time the program set with `orderfile_mark()`.
public struct Mark: Sendable, Equatable {
  public var name: String
  /// `CLOCK_MONOTONIC` nanoseconds.
  public var timeNanoseconds: UInt64
  public var threadID: UInt32

  public init(name: String, timeNanoseconds: UInt64, threadID: UInt32) {
    self.name = name
    self.timeNanoseconds = timeNanoseconds
    self.threadID = threadID
  }
}

/// One function entry or exit, recorded in full mode.
public struct CallEvent: Sendable, Equatable {
  public enum Kind: Sendable, Equatable { case enter, exit }
  public var kind: Kind
  /// Index into `Trace.modules`, or nil when no recorded module holds the address.
  public var module: Int?
  /// Module-relative (ELF virtual) address of the function; the runtime address when `module` is nil.
  public var address: UInt64
  public var timeNanoseconds: UInt64

  public init(kind: Kind, module: Int?, address: UInt64, timeNanoseconds: UInt64) {
    self.kind = kind
    self.module = module
    self.address = address
    self.timeNanoseconds = timeNanoseconds
  }
}

/// A thread's events in full mode, in the order it made them.
public struct ThreadEvents: Sendable, Equatable {
  public var threadID: UInt32
  public var events: [CallEvent]
  /// Events the runtime dropped because this thread's buffer was full.
  public var droppedEvents: UInt64

  public init(threadID: UInt32, events: [CallEvent], droppedEvents: UInt64) {
    self.threadID = threadID
    self.events = events
    self.droppedEvents = droppedEvents
  }
}

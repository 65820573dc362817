import OrderfileTrace

/// Assembles one `Trace` per process image from what the breakpoint tracer reports.
///
/// A process image is what one `execve` loaded: a process that execs gets a new trace for
/// the same pid, as the runtime would start afresh in the new image. A forked child's trace
/// begins with its parent's modules and first calls, as the runtime's forked traces do
/// (`forkRecordIndex` says where the child's own calls begin).
final class TraceCollector {
  /// A finished trace and where it came from.
  struct Finished {
    var pid: Int32
    /// 0 for a pid's first image, 1 after its first exec, and so on.
    var image: Int
    /// True for the image a process still had when it exited or was let go.
    var isFinalImage: Bool
    var trace: Trace
  }

  /// A class, so that appending a first call never copies the records gathered so far.
  private final class Live {
    var pid: Int32
    var image: Int
    var parentPID: Int32?
    var forkRecordIndex: Int?
    var processStart: UInt64
    var traceStart: UInt64
    /// By the tracer's module index; indices are renumbered when the trace is written.
    var modules: [Int: TraceModule] = [:]
    /// `module` is the tracer's index until `finish` renumbers it.
    var records: [FirstCall] = []
    var windowEnd: UInt64?
    var windowReason: WindowReason = .open

    init(pid: Int32, image: Int, processStart: UInt64, traceStart: UInt64) {
      self.pid = pid
      self.image = image
      self.processStart = processStart
      self.traceStart = traceStart
    }

    /// A forked child's trace: its parent's modules and calls so far, then its own.
    func forked(pid: Int32, traceStart: UInt64) -> Live {
      let child = Live(pid: pid, image: 0, processStart: processStart, traceStart: traceStart)
      child.parentPID = self.pid
      child.forkRecordIndex = records.count
      child.modules = modules
      child.records = records
      child.windowEnd = windowEnd
      child.windowReason = windowReason
      return child
    }
  }

  private var live: [Int32: Live] = [:]
  private var images: [Int32: Int] = [:]
  private(set) var finished: [Finished] = []
  let timeLimitNanoseconds: UInt64?
  /// How well a process's start is known: the tracer reads the clock just before the fork
  /// that creates it, so to within a microsecond.
  static let spawnResolutionNanoseconds: UInt64 = 1_000

  init(timeLimitNanoseconds: UInt64?) {
    self.timeLimitNanoseconds = timeLimitNanoseconds
  }

  func processStarted(pid: Int32, parent: Int32, origin: Origin, time: UInt64, now: UInt64) {
    switch origin {
    case .spawned:
      live[pid] = Live(pid: pid, image: 0, processStart: time, traceStart: now)
    case .forked:
      // `time` is on the program's clock, as every time after the process start: the trace starts then.
      live[pid] =
        live[parent]?.forked(pid: pid, traceStart: time)
        ?? Live(pid: pid, image: 0, processStart: time, traceStart: time)
    case .execed:
      let image = (images[pid] ?? 0) + 1
      images[pid] = image
      let start = live[pid]?.processStart ?? time
      live[pid] = Live(pid: pid, image: image, processStart: start, traceStart: time)
    }
  }

  enum Origin { case spawned, forked, execed }

  func moduleMapped(pid: Int32, index: Int, module: TraceModule) {
    live[pid]?.modules[index] = module
  }

  func firstCall(pid: Int32, module: Int, runtimeAddress: UInt64, time: UInt64, thread: Int32, launch: Bool) {
    guard let process = live[pid], let loadBase = process.modules[module]?.loadBase else { return }
    process.records.append(
      FirstCall(
        module: module, address: runtimeAddress &- loadBase, timeNanoseconds: time,
        threadID: UInt32(bitPattern: thread), phase: launch ? .launch : .postWindow))
  }

  func windowClosed(pid: Int32, reason: WindowReason, time: UInt64) {
    live[pid]?.windowEnd = time
    live[pid]?.windowReason = reason
  }

  /// `interrupted`: let go because the recorder was sent a termination signal, which it
  /// passed on; a window still open then ends there, marked so (`WindowReason.signal`).
  /// `recorderTime`: what the tracer took out of the program's clock, which every time after
  /// the process start is on.
  func processEnded(
    pid: Int32, replaced: Bool, time: UInt64, interrupted: Bool = false, recorderTime: RecorderTime? = nil
  ) {
    guard let process = live.removeValue(forKey: pid) else { return }
    var trace = trace(of: process, end: time)
    trace.header.recorderTime = recorderTime
    if interrupted && process.windowEnd == nil { trace.header.windowReason = .signal }
    finished.append(Finished(pid: pid, image: process.image, isFinalImage: !replaced, trace: trace))
  }

  /// The trace of a finished image: only modules that own a first call (and the executable),
  /// renumbered in the order they were mapped.
  private func trace(of process: Live, end: UInt64) -> Trace {
    let used = Set(process.records.map(\.module))
    var renumbered: [Int: Int] = [:]
    var modules: [TraceModule] = []
    for index in process.modules.keys.sorted() {
      guard var module = process.modules[index], used.contains(index) || module.isMainExecutable else { continue }
      renumbered[index] = modules.count
      module.index = modules.count
      modules.append(module)
    }
    let records = process.records.map { original -> FirstCall in
      var record = original
      record.module = renumbered[record.module] ?? 0
      return record
    }
    let windowOpen = process.windowEnd == nil
    let header = TraceHeader.recorded(
      pid: UInt32(bitPattern: process.pid),
      parentPID: process.parentPID.map { UInt32(bitPattern: $0) },
      forkRecordIndex: process.forkRecordIndex,
      recordCount: records.count,
      moduleCount: modules.count,
      processStartNanoseconds: process.processStart,
      processStartResolutionNanoseconds: Self.spawnResolutionNanoseconds,
      traceStartNanoseconds: process.traceStart,
      timeLimitNanoseconds: timeLimitNanoseconds,
      windowReason: windowOpen ? .exit : process.windowReason,
      windowEndNanoseconds: process.windowEnd ?? end,
      endNanoseconds: end)
    return Trace(path: "", header: header, modules: modules, records: records)
  }
}

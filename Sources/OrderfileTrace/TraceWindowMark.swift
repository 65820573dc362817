import Foundation
import OrderfileTraceFormat

/// Marks, in place, a trace whose recording `record` stopped on a signal it passed on.
///
/// A runtime in the program writes its own trace; when the program dies of the signal the
/// runtime never closes the window, and when its own handler exits the window reads as
/// ended by exit. Either way the reader would not learn that the user stopped the launch,
/// so `record` sets the window reason afterwards. Only the mutable, unchecksummed part of
/// the header changes, one aligned 4-byte field, so a reader never sees a torn header.
public enum TraceWindowMark {
  /// Sets the window reason of the trace at `path` to `WindowReason.signal` when the window
  /// was still open or ended by the exit; a window that ended on its own (a time limit,
  /// `orderfile_startup_complete`) keeps its reason. Returns whether the file changed.
  @discardableResult
  public static func markStoppedBySignal(path: String) throws -> Bool {
    let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { throw TraceError.unreadable(path: path, message: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    let offset = off_t(TraceLayout.Header.windowReason)
    var reason: UInt32 = 0
    guard pread(descriptor, &reason, 4, offset) == 4 else {
      throw TraceError.unreadable(path: path, message: "cannot read the window reason")
    }
    let current = UInt32(littleEndian: reason)
    guard current == WindowReason.open.rawValue || current == WindowReason.exit.rawValue else { return false }
    var signal = WindowReason.signal.rawValue.littleEndian
    guard pwrite(descriptor, &signal, 4, offset) == 4 else {
      throw TraceError.unreadable(
        path: path, message: "cannot write the window reason: \(String(cString: strerror(errno)))")
    }
    return true
  }
}

/// The launch window of a trace the runtime is still writing, from a few bytes of its
/// header: the tool reads it every few milliseconds while the program runs, to end the
/// program once its launch is over (`AfterLaunch`).
public struct LiveTraceWindow: Sendable, Equatable {
  /// The runtime closed the window (the `--until` function, `orderfile_startup_complete()`,
  /// or a first call after the time limit).
  public var closed: Bool
  /// CLOCK_MONOTONIC at the process's start, as the runtime found it.
  public var processStart: UInt64
  /// The recorder's own time so far, which the program's clock leaves out.
  public var recorderNanoseconds: UInt64

  public init(closed: Bool, processStart: UInt64, recorderNanoseconds: UInt64) {
    self.closed = closed
    self.processStart = processStart
    self.recorderNanoseconds = recorderNanoseconds
  }

  /// The header of the trace at `path`, or nil while the runtime has not written one.
  public static func read(path: String) -> LiveTraceWindow? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let size = TraceLayout.Header.arming
    var bytes = [UInt8](repeating: 0, count: size)
    guard pread(descriptor, &bytes, size, 0) == size else { return nil }
    func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
      T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
    }
    guard field(TraceLayout.Header.magic, UInt64.self) == TraceLayout.magic else { return nil }
    return LiveTraceWindow(
      closed: field(TraceLayout.Header.flags, UInt32.self) & UInt32(OFT_FLAG_WINDOW_CLOSED) != 0,
      processStart: field(TraceLayout.Header.processStart, UInt64.self),
      recorderNanoseconds: field(TraceLayout.Header.recorder, UInt64.self))
  }

  /// Whether a window of `limit` nanoseconds from the process's start is over at `now`
  /// (CLOCK_MONOTONIC), on the program's clock: the recorder's time does not count.
  public func isPast(limit: UInt64, now: UInt64) -> Bool {
    now >= processStart &+ limit &+ recorderNanoseconds
  }

  /// Closes, in place, the window of a trace whose program the tool ended at its time
  /// limit before the runtime noticed (a program idle after its launch makes no new first
  /// call to notice it with): ended by the time limit, at process start + `limit` on the
  /// program's clock. A window already closed keeps its reason. Returns whether it changed.
  @discardableResult
  public static func closeAtTimeLimit(path: String, limit: UInt64) throws -> Bool {
    let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { throw TraceError.unreadable(path: path, message: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    guard let window = read(path: path) else {
      throw TraceError.unreadable(path: path, message: "cannot read the header")
    }
    guard !window.closed else { return false }
    func write<T: FixedWidthInteger>(_ value: T, at offset: Int) throws {
      var little = value.littleEndian
      guard pwrite(descriptor, &little, MemoryLayout<T>.size, off_t(offset)) == MemoryLayout<T>.size else {
        throw TraceError.unreadable(
          path: path, message: "cannot write the window's end: \(String(cString: strerror(errno)))")
      }
    }
    // The end and the reason before the flag, so that a reader that sees the flag sees both.
    try write(window.processStart &+ limit, at: TraceLayout.Header.windowEnd)
    try write(UInt32(OFT_WINDOW_TIME_LIMIT), at: TraceLayout.Header.windowReason)
    var flags: UInt32 = 0
    guard pread(descriptor, &flags, 4, off_t(TraceLayout.Header.flags)) == 4 else {
      throw TraceError.unreadable(path: path, message: "cannot read the flags")
    }
    try write(UInt32(littleEndian: flags) | UInt32(OFT_FLAG_WINDOW_CLOSED), at: TraceLayout.Header.flags)
    return true
  }

  /// Cuts the trace at `path` after its last reserved record, as the runtime cuts a trace it
  /// closes: a program ended after its launch never closed its own, which keeps its whole
  /// reserved capacity (tens of MB of sparse zeroes). A trace whose `flock` a live runtime
  /// still holds (a process that outlived the end: it could still write past the cut, and
  /// die of SIGBUS) is left as it is. Returns whether the file got shorter.
  @discardableResult
  public static func trimToRecords(path: String) throws -> Bool {
    let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { throw TraceError.unreadable(path: path, message: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
    func field(_ offset: Int) -> UInt64? {
      var value: UInt64 = 0
      return pread(descriptor, &value, 8, off_t(offset)) == 8 ? UInt64(littleEndian: value) : nil
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, let offset = field(TraceLayout.Header.recordsOffset),
      let capacity = field(TraceLayout.Header.recordCapacity), let count = field(TraceLayout.Header.recordCount)
    else { return false }
    let end = offset &+ min(count, capacity) &* UInt64(TraceLayout.recordSize)
    guard end >= UInt64(TraceLayout.headerSize), end < UInt64(status.st_size) else { return false }
    guard ftruncate(descriptor, off_t(end)) == 0 else {
      throw TraceError.unreadable(
        path: path, message: "cannot cut it after its records: \(String(cString: strerror(errno)))")
    }
    return true
  }
}

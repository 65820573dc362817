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

import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Where `record` is asked to write a trace, checked before the program runs: a launch that
/// ran for minutes must not end in "cannot write" (a missing or read-only directory, a
/// directory where the file should be).
enum TraceDestination {
  /// Throws `RecordingError.outputNotWritable` naming `output` when its trace could not be
  /// written there. Every recorder calls it before it starts the program.
  static func check(_ output: String) throws {
    if let reason = problem(output) { throw RecordingError.outputNotWritable(path: output, reason: reason) }
  }

  /// What stands in the way, or nil.
  static func problem(_ output: String) -> String? {
    let directory = PathName.directory(of: output)
    var status = stat()
    if stat(output, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return "it is a directory" }
    guard stat(directory, &status) == 0 else {
      return errno == ENOENT || errno == ENOTDIR
        ? "its directory \(directory) does not exist"
        : "its directory \(directory): \(String(cString: strerror(errno)))"
    }
    guard status.st_mode & S_IFMT == S_IFDIR else { return "\(directory) is not a directory" }
    // The trace is written to a temporary file beside it, then renamed over it.
    guard access(directory, W_OK | X_OK) == 0 else { return "its directory \(directory) is not writable" }
    return nil
  }
}

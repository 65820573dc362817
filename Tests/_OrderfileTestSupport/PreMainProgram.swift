import OrderfileSupport

/// Tests/Fixtures/premain: a library whose constructor sleeps 5 ms and an executable whose
/// constructor sleeps 3 ms, each writing down when its sleep began and ended. The recording
/// tests check the time before main against it, the profile tests a series of launches.
public enum PreMainProgram {
  /// Builds the program into `directory`, with the runtime (`instrumented`) or as a release
  /// build, by clang or gcc; returns its path. It takes the file to write its sleeps to as
  /// its one argument.
  public static func build(in directory: TemporaryDirectory, instrumented: Bool, gcc: Bool = false) throws
    -> String
  {
    let sources = PackagePaths.fixtures + "/premain"
    let compiler = gcc ? Toolchain.gcc : Toolchain.clang
    let instrumentation =
      instrumented ? [gcc ? "-finstrument-functions" : "-finstrument-functions-after-inlining"] : []
    let runtime = try RuntimeBuilder.libraryDirectory()
    let link = instrumented ? ["-L", runtime, "-lOrderfileRuntime", "-Wl,-rpath," + runtime] : []
    try runChecked(
      compiler,
      ["-O2", "-g", "-fPIC", "-shared"] + instrumentation
        + [sources + "/premain_lib.c", "-o", directory.file("libpremain.so")] + link)
    let program = directory.file("premain")
    try runChecked(
      compiler,
      ["-O2", "-g", "-fPIE", "-pie"] + instrumentation + [
        sources + "/premain_main.c", "-o", program, "-L", directory.path, "-lpremain", "-Wl,-rpath," + directory.path,
      ] + link)
    return program
  }

  /// What the program measured itself: each constructor's sleep, CLOCK_MONOTONIC ns.
  public struct Sleeps: Sendable {
    public var library: Range<UInt64>
    public var executable: Range<UInt64>

    public init(path: String) throws {
      let numbers = try FileReading.text(atPath: path).split(whereSeparator: \.isWhitespace).compactMap {
        UInt64($0)
      }
      guard numbers.count == 4, numbers[0] <= numbers[1], numbers[2] <= numbers[3] else {
        throw TestSupportError("\(path): not two ordered pairs of times: \(numbers)")
      }
      library = numbers[0]..<numbers[1]
      executable = numbers[2]..<numbers[3]
    }
  }
}

import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
  /// The exit status, or 128 + the signal number when a signal ended it (as shells report it).
  public var status: Int32
  /// The signal that ended the process, if one did.
  public var signal: Int32?
  public var standardOutput: String
  public var standardError: String

  public var succeeded: Bool { status == 0 && signal == nil }
}

/// Runs programs and waits for them.
public enum ProcessRunner {
  /// Runs `executable` with `arguments` and returns its exit status and output.
  ///
  /// - Parameters:
  ///   - environment: variables added to (or replacing those of) this process's environment.
  ///   - captureOutput: when false the child writes straight to this process's stdout and stderr.
  public static func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    currentDirectory: String? = nil,
    captureOutput: Bool = true
  ) throws -> ProcessResult {
    let environment = ChildProcess.environment(adding: environment)
    let path = resolve(executable)
    guard captureOutput else {
      let child = try ChildProcess.spawn(
        path, arguments: [path] + arguments, environment: environment, program: executable,
        currentDirectory: currentDirectory)
      let (status, signal) = child.wait()
      return ProcessResult(status: status, signal: signal, standardOutput: "", standardError: "")
    }
    let output = try OutputPipe(program: executable)
    let errors = try OutputPipe(program: executable)
    defer {
      output.closeReading()
      errors.closeReading()
    }
    let child: ChildProcess
    do {
      child = try ChildProcess.spawn(
        path, arguments: [path] + arguments, environment: environment, program: executable,
        currentDirectory: currentDirectory, standardOutput: output.writing, standardError: errors.writing)
    } catch {
      output.closeWriting()
      errors.closeWriting()
      throw error
    }
    output.closeWriting()
    errors.closeWriting()
    // Drain both pipes while the child runs, so a chatty child cannot block on a full pipe.
    let (standardOutput, standardError) = OutputPipe.drain(output, errors)
    let (status, signal) = child.wait()
    return ProcessResult(
      status: status, signal: signal,
      standardOutput: String(decoding: standardOutput, as: UTF8.self),
      standardError: String(decoding: standardError, as: UTF8.self))
  }

  /// Runs `executable` with its stdout and stderr both appended to `log`, created (empty)
  /// before the program starts: a log named while the program runs already exists, and
  /// fills as the program writes. Returns the exit status; the output is in the file.
  ///
  /// - Throws: `SupportError.writing` naming `log` when it cannot be created, or the spawn's error.
  public static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    currentDirectory: String? = nil, log: String
  ) throws -> ProcessResult {
    let file = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard file >= 0 else { throw SupportError.writing("open", path: log) }
    defer { close(file) }
    let path = resolve(executable)
    let child = try ChildProcess.spawn(
      path, arguments: [path] + arguments, environment: ChildProcess.environment(adding: environment),
      program: executable, currentDirectory: currentDirectory, standardOutput: file, standardError: file)
    let (status, signal) = child.wait()
    return ProcessResult(status: status, signal: signal, standardOutput: "", standardError: "")
  }

  /// The absolute path of `program`, searching `PATH` when it has no slash.
  public static func resolve(_ program: String) -> String {
    if program.contains("/") { return program }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return program
  }
}

/// One pipe from a child's output to this process, both ends close-on-exec here (the child
/// gets the writing end as its 1 or 2 through the spawn's dup2).
private final class OutputPipe {
  let reading: Int32
  private(set) var writing: Int32

  init(program: String) throws {
    var ends: [Int32] = [-1, -1]
    guard let makePipe = Self.pipe2, makePipe(&ends, O_CLOEXEC) == 0 else {
      throw SupportError.launchFailed(
        program: program, message: "pipe: \(String(cString: strerror(errno)).lowercased())")
    }
    reading = ends[0]
    writing = ends[1]
  }

  /// glibc's `pipe2`. Not `pipe` and then `FD_CLOEXEC`: a child spawned by another thread
  /// in between would hold the writing end open, and this pipe would not end before that
  /// child does.
  private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
  private static let pipe2 = libcFunction("pipe2", as: Pipe2.self)

  func closeWriting() {
    if writing >= 0 { close(writing) }
    writing = -1
  }

  func closeReading() { close(reading) }

  /// Reads both pipes to their ends, whichever has data first.
  static func drain(_ first: OutputPipe, _ second: OutputPipe) -> ([UInt8], [UInt8]) {
    var collected: [[UInt8]] = [[], []]
    var descriptors = [
      pollfd(fd: first.reading, events: Int16(POLLIN), revents: 0),
      pollfd(fd: second.reading, events: Int16(POLLIN), revents: 0),
    ]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while descriptors.contains(where: { $0.fd >= 0 }) {
      if poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
        if errno == EINTR { continue }
        break
      }
      for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
        let count = buffer.withUnsafeMutableBytes { read(descriptors[index].fd, $0.baseAddress, $0.count) }
        if count > 0 {
          collected[index] += buffer[0..<count]
        } else if count == 0 || errno != EINTR {
          descriptors[index].fd = -1  // poll skips negative descriptors
        }
      }
    }
    return (collected[0], collected[1])
  }
}

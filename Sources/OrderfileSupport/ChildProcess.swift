import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program started with `posix_spawn`, as from a shell: default signal dispositions, an
/// empty signal mask, this process's stdin.
///
/// Not Foundation's `Process`: it spends milliseconds between being asked and the fork
/// (the recorder would count them as the program's loader time), and under many concurrent
/// launches from one process it has crashed the caller with a jump to a null pointer.
public struct ChildProcess: Sendable {
  public let pid: pid_t

  /// Starts `executable` (a path: see `ProcessRunner.resolve`).
  ///
  /// - Parameters:
  ///   - arguments: the whole argument vector, `argv[0]` included.
  ///   - environment: the whole environment, as `KEY=VALUE`.
  ///   - lastVariable: made right before the spawn and put last in the environment, for a
  ///     value that must be as fresh as possible (the recorder's spawn time).
  ///   - standardOutput, standardError: descriptors the child gets as 1 and 2; nil keeps ours.
  /// - Throws: `SupportError.launchFailed` naming `program` when the spawn fails.
  public static func spawn(
    _ executable: String, arguments: [String], environment: [String], program: String,
    currentDirectory: String? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
    lastVariable: (() -> String)? = nil
  ) throws -> ChildProcess {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) }
    if let standardError { posix_spawn_file_actions_adddup2(&actions, standardError, 2) }
    if let currentDirectory {
      guard let changeDirectory = Self.addChangeDirectory else {
        throw SupportError.launchFailed(
          program: program, message: "this C library cannot start a program in another directory")
      }
      _ = currentDirectory.withCString { changeDirectory(&actions, $0) }
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    var none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let argv = CStringArray(arguments)
    defer { argv.free() }
    let envp = CStringArray(environment + (lastVariable.map { [$0()] } ?? []))
    defer { envp.free() }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv.pointer, envp.pointer)
    guard result == 0 else {
      throw SupportError.launchFailed(
        program: program, message: String(cString: strerror(result)).lowercased(), errno: result)
    }
    return ChildProcess(pid: pid)
  }

  /// Waits for the child to end: its exit status, or 128 + the signal that ended it (as
  /// shells report it), and that signal.
  public func wait() -> (status: Int32, signal: Int32?) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      // Only EINTR can happen for our own child; anything else means it is gone already.
      if errno != EINTR { return (127, nil) }
    }
    return Self.decode(waitStatus: status)
  }

  /// A `waitpid` status as the exit status, or 128 + the signal that ended the process (as
  /// shells report it), and that signal.
  public static func decode(waitStatus status: Int32) -> (status: Int32, signal: Int32?) {
    // WIFEXITED / WTERMSIG, which do not import into Swift.
    let signal = status & 0x7f
    return signal == 0 ? ((status >> 8) & 0xff, nil) : (128 + signal, signal)
  }

  /// The whole of `environment` over this process's own, as `KEY=VALUE` in a stable order.
  public static func environment(adding environment: [String: String]) -> [String] {
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    return merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
  }

  /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later).
  private typealias AddChangeDirectory =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
  private static let addChangeDirectory = libcFunction(
    "posix_spawn_file_actions_addchdir_np", as: AddChangeDirectory.self)
}

/// A NULL-terminated array of C strings, for `argv` and `envp`.
public struct CStringArray {
  public let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

  public init(_ strings: [String]) {
    pointer = .allocate(capacity: strings.count + 1)
    for (index, string) in strings.enumerated() { pointer[index] = strdup(string) }
    pointer[strings.count] = nil
  }

  public func free() {
    var index = 0
    while let string = pointer[index] {
      Glibc.free(string)
      index += 1
    }
    pointer.deallocate()
  }
}

import Foundation
import OrderfileSupport

/// A user-mode emulator that runs a program built for another machine (`record
/// --emulator`), e.g. `qemu-aarch64-static -L /usr/aarch64-linux-gnu` for an arm64 program
/// on an x86-64 host.
///
/// ptrace sees the emulator, not the program it emulates, so under an emulator a launch is
/// recorded from inside the program: the in-process recorder built for the program's
/// machine, or the runtime of an instrumented build.
public struct Emulator: Sendable, Equatable {
  /// The emulator and its options, before the program.
  public var command: [String]

  public init(command: [String]) {
    self.command = command
  }

  /// Reads the words of `--emulator`: split at blanks; '…' and "…" keep blanks in a word.
  /// Nil for no word, or a quote left open.
  public init?(parsing text: String) {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    for character in text {
      if let open = quote {
        if character == open { quote = nil } else { word.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character.isWhitespace {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(character)
        inWord = true
      }
    }
    guard quote == nil else { return nil }
    if inWord { words.append(word) }
    guard !words.isEmpty else { return nil }
    command = words
  }

  /// qemu-user takes the program's variables as `-E NAME=VALUE`; other emulators pass
  /// their own environment on.
  var isQemu: Bool { PathName.base(of: command[0]).hasPrefix("qemu-") }

  /// The folder the emulated program's loader and libraries come from: qemu-user's `-L DIR`,
  /// else its `QEMU_LD_PREFIX`. A path the program opens is looked for there first.
  public func sysroot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    guard isQemu else { return nil }
    for (index, word) in command.enumerated().dropFirst() {
      if word == "-L", index + 1 < command.count { return command[index + 1] }
      if word.hasPrefix("-L"), word.count > 2 { return String(word.dropFirst(2)) }
    }
    return environment["QEMU_LD_PREFIX"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The host file the emulated program opens as `path`: under the sysroot when it is
  /// there, as qemu-user looks it up, else the path itself.
  public func hostPath(ofGuestPath path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String
  {
    guard path.hasPrefix("/"), let sysroot = sysroot(environment: environment) else { return path }
    let inside = (sysroot.hasSuffix("/") ? String(sysroot.dropLast()) : sysroot) + path
    return FileManager.default.fileExists(atPath: inside) ? inside : path
  }

  /// The command line that runs `program` under the emulator, and the variables left for
  /// the emulator's own environment. The loader's variables (`LD_*`) reach only the
  /// emulated program: a dynamically linked emulator's own loader would read them too.
  public func invocation(program: String, arguments: [String], environment: [String: String]) -> (
    arguments: [String], environment: [String: String]
  ) {
    guard isQemu else { return (Array(command.dropFirst()) + [program] + arguments, environment) }
    let guestOnly = environment.filter { $0.key.hasPrefix("LD_") }
    let flags = guestOnly.keys.sorted().flatMap { ["-E", $0 + "=" + guestOnly[$0, default: ""]] }
    return (
      Array(command.dropFirst()) + flags + [program] + arguments, environment.filter { !$0.key.hasPrefix("LD_") }
    )
  }

  /// A library the emulated program loads: the path its loader names it by, and the host
  /// file that is.
  public struct Library: Sendable, Equatable {
    public var guestPath: String
    public var hostPath: String
  }

  /// The shared libraries the emulated program's own loader resolves for `program`, as
  /// `ldd` lists them on its machine (the loader run with `LD_TRACE_LOADED_OBJECTS`, under
  /// the emulator: its search path, the sysroot, the program's run paths and
  /// `LD_LIBRARY_PATH` as the program will see them); nil when that cannot be told.
  public func linkedLibraries(of program: String) -> [Library]? {
    let (arguments, environment) = invocation(
      program: program, arguments: [], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
    guard let listed = try? ProcessRunner.run(command[0], arguments, environment: environment), listed.succeeded
    else { return nil }
    return LinkedLibraries.ldd(listing: listed.standardOutput).map {
      Library(guestPath: $0, hostPath: hostPath(ofGuestPath: $0))
    }
  }
}

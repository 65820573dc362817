import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// Why a recording run produced no usable trace.
public enum RecordingError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The program ran but wrote no trace for its own pid.
  case noTrace(program: String, status: Int32)
  /// The scratch directory for the run could not be made.
  case scratch(message: String)
  /// The program's binaries call the recording hooks, but the runtime was not among the
  /// libraries it loads, so glibc's no-op hooks answered them.
  case runtimeNotLoaded(program: String, status: Int32, instrumented: [String])
  /// Options of recording without a rebuild (`--until`, `--system-libraries`) given for an
  /// instrumented build, which `record` would otherwise record with its runtime.
  case noRebuildOptionsForInstrumented(program: String, options: [String])
  /// The trace could not be written at `path` (`reason` says why): found before the
  /// program runs.
  case outputNotWritable(path: String, reason: String)
  /// `--recorder in-process` for a program nothing can be preloaded into; `reason` says why.
  case inProcessImpossible(reason: String)
  /// The program is built for another machine than this one (an arm64 build on an x86-64
  /// host): it can be recorded only under an emulator, through its instrumented build.
  case otherMachine(program: String, machine: String, host: String)
  /// `--emulator` with a recording only ptrace could make (`--recorder tracer`, or a
  /// program nothing can be preloaded into: `reason` says why); ptrace sees the emulator,
  /// not the program it emulates.
  case tracerUnderEmulator(reason: String?)

  public var errorDescription: String? {
    switch self {
    case .noTrace(let program, let status):
      return
        "\(program) exited with status \(status) and wrote no trace: is it compiled with -finstrument-functions and linked with the runtime (see 'orderfile flags --instrument')?"
    case .runtimeNotLoaded(let program, let status, let instrumented):
      return
        "\(program) exited with status \(status) and wrote no trace: \(instrumented.joined(separator: ", ")) \(instrumented.count == 1 ? "calls" : "call") __cyg_profile_func_enter, but libOrderfileRuntime is not among the libraries it loads (ldd), so glibc's no-op hooks answered. A -Wl,--as-needed before the runtime drops it: link it as -Wl,--no-as-needed -lOrderfileRuntime -Wl,--as-needed (what 'orderfile flags --instrument' prints), or LD_PRELOAD it"
    case .outputNotWritable(let path, let reason):
      return "cannot write the trace '\(path)': \(reason); nothing was run"
    case .scratch(let message):
      return "cannot create a scratch directory: \(message)"
    case .inProcessImpossible(let reason):
      return "\(reason); record it with --recorder tracer"
    case .otherMachine(let program, let machine, let host):
      return
        "\(program) is an \(machine) program and this machine is \(host): record it under an emulator (orderfile record --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' -o launch.trace -- \(program)) or on the device (see 'orderfile flags --instrument --target')"
    case .tracerUnderEmulator(let reason):
      return (reason.map { $0 + ", and " } ?? "")
        + "--recorder tracer cannot record under --emulator: ptrace sees qemu-user, not the program it emulates; leave out --recorder to record in-process, or record an instrumented build"
    case .noRebuildOptionsForInstrumented(let program, let options):
      return
        "\(program) is an instrumented build, which record records with its runtime, but \(options.joined(separator: " and ")) \(options.count == 1 ? "is" : "are") for recording without a rebuild: add --no-rebuild to record it that way, or leave \(options.count == 1 ? "it" : "them") out and end the window with orderfile_startup_complete() (or --time-limit)"
    }
  }

  /// Throws `otherMachine` when the program at `path` is an ELF file of another machine than
  /// this one (the kernel would refuse it, or hand it to an emulator that ptrace cannot see into).
  public static func checkMachine(of path: String, program: String) throws {
    guard let machine = ELFMachine.of(fileAt: path), let host = ELFMachine.host, machine != host else { return }
    throw otherMachine(program: program, machine: machine.displayName, host: host.displayName)
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .noTrace, .runtimeNotLoaded, .otherMachine: return .dataError
    case .scratch, .outputNotWritable: return .ioError
    case .noRebuildOptionsForInstrumented, .inProcessImpossible, .tracerUnderEmulator: return .usage
    }
  }
}

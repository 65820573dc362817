import Foundation
import OrderfileSupport

/// Why a layout could not be estimated or verified.
public enum LayoutError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The orderfile has no entries.
  case emptyOrderfile(path: String)
  /// `--measure` needs the page probe, built and installed beside the runtime.
  case noPageProbe(path: String)
  /// The measured program left no probe output (it could not start, or the probe could not write).
  case probeWroteNothing(program: String, status: Int32)
  /// The measured run never loaded this binary (a wrapper that started another program).
  case notMeasured(binary: String)
  /// A line of the probe's output this version does not read.
  case badProbeOutput(program: String, line: String)
  /// A module to measure (the `--until` function's, an app's library) cannot be found.
  case unresolvable(path: String, reason: String)
  /// A page-cache call on a file failed (evicting it, reading which of its pages are cached).
  case pageCache(path: String, call: String, reason: String)
  /// `diff --measure-cold` was given a shared library: a cold launch is counted for programs.
  case coldLibrary(path: String)
  /// `perf trace` could not count the major faults of a cold launch.
  case perfFailed(program: String, reason: String)
  /// `--measure` of a program built for another machine (`machine`) than this one (`host`),
  /// without `--emulator`; `emulator` is the one that would run it here, when one is known.
  case otherMachine(program: String, machine: String, host: String, emulator: String?)

  public var errorDescription: String? {
    switch self {
    case .emptyOrderfile(let path):
      return "\(path): the orderfile has no entries"
    case .noPageProbe(let path):
      return
        "\(path): the page probe is missing; build it with Scripts/build-runtime (Scripts/install puts it beside the runtime)"
    case .probeWroteNothing(let program, let status):
      return "\(program): the page probe recorded nothing (exit status \(status)); is it a dynamically linked program?"
    case .notMeasured(let binary):
      return "\(binary): the measured run never loaded it; give the binary itself, not a wrapper that starts it"
    case .badProbeOutput(let program, let line):
      return "\(program): unreadable page probe output: '\(line)'"
    case .unresolvable(let path, let reason):
      return "\(path): cannot be measured: \(reason.lowercased())"
    case .pageCache(let path, let call, let reason):
      return "\(path): \(call) failed: \(reason.lowercased())"
    case .coldLibrary(let path):
      return
        "\(path): a shared library; --measure-cold runs programs (measure the program with 'estimate --measure-cold', which counts its libraries too)"
    case .perfFailed(let program, let reason):
      return "\(program): cannot count major faults with perf: \(reason)"
    case .otherMachine(let program, let machine, let host, let emulator):
      return
        "\(program) is an \(machine) program and this machine is \(host): measure it under an emulator with --measure --emulator '\(emulator ?? "COMMAND")'"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .emptyOrderfile, .probeWroteNothing, .notMeasured, .coldLibrary, .otherMachine: return .dataError
    case .noPageProbe, .badProbeOutput: return .internalError
    case .pageCache: return .ioError
    case .unresolvable: return .noInput
    case .perfFailed: return .unavailable
    }
  }
}

import Foundation
import OrderfileSupport

/// Why the BOLT step could not run or finish.
public enum BoltError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// No llvm-bolt was found: the names and paths looked at.
  case notInstalled(searched: [String])
  /// `--bolt` names no executable file.
  case notExecutable(path: String)
  /// The binary was linked without `--emit-relocs`: BOLT can then only move code within
  /// each function, never whole functions or their cold blocks.
  case noRelocations(binary: String)
  /// The binary was already rewritten by BOLT (it has a `.bolt.org.text` section).
  case alreadyRewritten(binary: String)
  /// The output would overwrite the binary it is made from.
  case outputIsInput(path: String)
  /// The program after `--` is not the binary, so its instrumented copy cannot stand in.
  case commandRunsOtherProgram(program: String, binary: String)
  /// llvm-bolt failed: the step ("instrument", "optimize"), its exit status and the last
  /// line it printed.
  case boltFailed(step: String, status: Int32, message: String)
  /// The instrumented launch left no profile: the program and how it ended.
  case noProfile(program: String, status: Int32)
  /// The orderfile names no function of the binary.
  case noOrderedFunction(order: String, binary: String)

  public var errorDescription: String? {
    switch self {
    case .notInstalled(let searched):
      return
        "llvm-bolt not found (looked for \(searched.map { "'\($0)'" }.joined(separator: ", "))): install bolt-22 (apt-get install bolt-22) or give --bolt"
    case .notExecutable(let path):
      return "'\(path)' is not an executable llvm-bolt"
    case .noRelocations(let binary):
      return "\(binary): no relocations (no .rela.text section): relink with -Wl,--emit-relocs"
    case .alreadyRewritten(let binary):
      return "\(binary): already rewritten by BOLT (it has .bolt.org.text): give the binary the linker wrote"
    case .outputIsInput(let path):
      return "'\(path)' is both the binary and the output: write the optimized binary elsewhere"
    case .commandRunsOtherProgram(let program, let binary):
      return "the command runs '\(program)', not the binary '\(binary)': put the binary first after '--'"
    case .boltFailed(let step, let status, let message):
      return "llvm-bolt failed to \(step) (exit \(status)): \(message)"
    case .noProfile(let program, let status):
      return
        "the instrumented '\(program)' exited with status \(status) and wrote no profile: the launch must end by exit or return from main"
    case .noOrderedFunction(let order, let binary):
      return "\(order): names no function of '\(binary)': was it generated for another program?"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .notInstalled, .notExecutable: return .noInput
    case .noRelocations, .alreadyRewritten, .noOrderedFunction, .noProfile: return .dataError
    case .outputIsInput, .commandRunsOtherProgram: return .usage
    case .boltFailed: return .internalError
    }
  }
}

import Foundation
import OrderfileBuild
import OrderfileLayout
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization

/// `estimate --measure`: run the shipped binary once under the page probe.
public struct MeasureRequest {
  /// The program and its arguments.
  public var command: [String]
  /// Functions whose first call ends the count (names as `record --until` takes them).
  public var until: [String]
  public var timeLimitMilliseconds: Int?
  /// The page probe library; by default the one beside the runtime (`RuntimeLocation`), or
  /// under an emulator the one built for the program's machine.
  public var probeLibrary: String?
  /// The emulator command that runs a program of another machine (`--emulator`, as `record`
  /// takes it), split into words; nil: run it here.
  public var emulator: [String]?

  public init(
    command: [String], until: [String] = [], timeLimitMilliseconds: Int? = nil, probeLibrary: String? = nil,
    emulator: [String]? = nil
  ) {
    self.command = command
    self.until = until
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.probeLibrary = probeLibrary
    self.emulator = emulator
  }

  /// The probe beside the runtime the running tool finds.
  public static func defaultProbeLibrary() -> String {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      RuntimeLocation.find(executablePath: RuntimeLocation.runningTool, environment: environment)?.libraryDirectory
      ?? PathName.directory(of: RuntimeLocation.runningTool)
    return directory + "/" + PageProbe.libraryName
  }

  /// The probe for the program at `path`: the host's, or under an emulator the one built for
  /// the program's machine (`RuntimeLocation.library(named:for:)`). Without an emulator, a
  /// program of another machine is refused before it runs, naming `--emulator`: the kernel
  /// would refuse it (exec format error) or hand it to an emulator the host's probe cannot
  /// enter.
  static func probeLibrary(for path: String, emulated: Bool) throws -> String {
    guard let machine = ELFMachine.of(fileAt: path), let host = ELFMachine.host, machine != host else {
      return defaultProbeLibrary()
    }
    guard emulated else {
      let emulator = CrossTarget.Architecture(machine: machine).flatMap {
        CrossTarget(architecture: $0).emulator(host: CrossTarget.Architecture(machine: host))
      }
      throw LayoutError.otherMachine(
        program: path, machine: machine.displayName, host: host.displayName,
        emulator: emulator.map(BuildFlags.shellLine))
    }
    return try RuntimeLocation.library(named: PageProbe.libraryName, for: machine)
  }

  /// Runs the program; `--until` names are looked up in `binary`, the module the estimate is
  /// about, or else in the program's executable: an app's launch may end in its library
  /// (`--binary libapp.so --until app_ready`) or in the executable that loads it (`--until main`).
  func measure(binary: String, pageSizes: [UInt64]) throws -> (MeasuredLaunch, unmatchedUntil: [String]) {
    var module = binary
    var (addresses, unmatched) = try UntilFunction.entries(self.until, binary: binary)
    let executable = ProcessRunner.resolve(command[0])
    if !unmatched.isEmpty, !FileIdentity.same(executable, binary),
      let (others, missing) = try? UntilFunction.entries(self.until, binary: executable),
      missing.count < unmatched.count
    {
      (module, addresses, unmatched) = (executable, others, missing)
    }
    let until = self.until.isEmpty ? nil : PageProbe.Until(module: module, addresses: addresses)
    let probe = PageProbe(
      library: try probeLibrary ?? Self.probeLibrary(for: executable, emulated: emulator != nil), pageSizes: pageSizes,
      launcher: emulator.map { words in
        let emulator = Emulator(command: words)
        return { program, arguments, environment in
          let (emulated, variables) = emulator.invocation(
            program: program, arguments: arguments, environment: environment)
          return ([words[0]] + emulated, variables)
        }
      })
    let launch = try probe.measure(
      program: command[0], arguments: Array(command.dropFirst()), until: until,
      timeLimitMilliseconds: timeLimitMilliseconds)
    return (launch, unmatched)
  }
}

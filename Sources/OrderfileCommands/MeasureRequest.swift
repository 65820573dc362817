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
  /// The page probe library; by default the one beside the runtime (`RuntimeLocation`).
  public var probeLibrary: String?

  public init(command: [String], until: [String] = [], timeLimitMilliseconds: Int? = nil, probeLibrary: String? = nil) {
    self.command = command
    self.until = until
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.probeLibrary = probeLibrary
  }

  /// The probe beside the runtime the running tool finds.
  public static func defaultProbeLibrary() -> String {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      RuntimeLocation.find(executablePath: RuntimeLocation.runningTool, environment: environment)?.libraryDirectory
      ?? PathName.directory(of: RuntimeLocation.runningTool)
    return directory + "/" + PageProbe.libraryName
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
    let probe = PageProbe(library: probeLibrary ?? Self.defaultProbeLibrary(), pageSizes: pageSizes)
    let launch = try probe.measure(
      program: command[0], arguments: Array(command.dropFirst()), until: until,
      timeLimitMilliseconds: timeLimitMilliseconds)
    return (launch, unmatched)
  }
}

import OrderfileLayout
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace

/// `estimate --measure-cold` and `report --measure-cold`: run the program once cold and count
/// what it read of its files.
public struct ColdLaunchRequest: Sendable {
  /// The program and its arguments.
  public var command: [String]
  public var timeLimitMilliseconds: Int?
  public var method: ColdLaunchReferee.MethodChoice

  public init(command: [String], timeLimitMilliseconds: Int? = nil, method: ColdLaunchReferee.MethodChoice = .automatic)
  {
    self.command = command
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.method = method
  }

  /// Runs it cold; the files counted are the executable, `binary` and the program's own
  /// shared libraries as the loader resolves them (not the system's, which other processes
  /// keep cached and which an orderfile does not lay out).
  func measure(binary: String) throws -> ColdLaunch {
    let executable = ProcessRunner.resolve(command[0])
    let libraries = (LinkedLibraries.of(executable) ?? []).filter {
      !TraceModule.isSystemLibrary(path: $0)
    }
    return try ColdLaunchReferee(method: method).measure(
      program: command[0], arguments: Array(command.dropFirst()), files: [binary] + libraries,
      timeLimitMilliseconds: timeLimitMilliseconds)
  }

  /// `measure(binary:)`, warning in `output` of each file another process kept cached (the
  /// launch found those pages warm, so its counts are low).
  func measure(binary: String, warningInto output: inout CommandOutput) throws -> ColdLaunch {
    let cold = try measure(binary: binary)
    for module in cold.modules where module.residentBefore > 0 {
      output.warning(
        "\(module.path): \(module.residentBefore) of its pages stayed cached (another process maps them): the launch found them warm"
      )
    }
    return cold
  }
}

import OrderfileLayout
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace

/// `estimate --measure-cold`: run the program once cold and count what it read of its files.
public struct ColdLaunchRequest {
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
    let libraries = (RuntimeRecorder.linkedLibraries(executable) ?? []).filter {
      !TraceModule.isSystemLibrary(path: $0)
    }
    return try ColdLaunchReferee(method: method).measure(
      program: command[0], arguments: Array(command.dropFirst()), files: [binary] + libraries,
      timeLimitMilliseconds: timeLimitMilliseconds)
  }
}

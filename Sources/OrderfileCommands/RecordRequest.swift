import Foundation
import OrderfileBuild
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// `orderfile record`: run a program once and save the trace of its launch.
///
/// The recording goes whole to `RecorderChooser`, which picks the recorder: a mode given,
/// or the one the program calls for.
public struct RecordRequest {
  public var recording: RecordingRequest
  /// Print only warnings and errors, not the summary of what was recorded.
  public var quiet: Bool

  public init(_ recording: RecordingRequest, quiet: Bool = false) {
    self.recording = recording
    self.quiet = quiet
  }

  /// The chooser `record` uses: the in-process recorder the running tool finds, built for
  /// the program's machine; the user's ^C, SIGTERM and SIGHUP end the recording and reach
  /// the program.
  var chooser: RecorderChooser {
    let emulated = recording.emulator != nil
    return RecorderChooser(
      inProcessLibrary: { emulated ? try Self.inProcessLibrary(for: $0) : Self.defaultInProcessLibrary() },
      passesTerminationSignals: true)
  }

  /// The in-process recorder beside the runtime the running tool finds.
  public static func defaultInProcessLibrary() -> String {
    // The page probe's directory: both are installed beside the runtime.
    PathName.directory(of: MeasureRequest.defaultProbeLibrary()) + "/" + InProcessRecorder.libraryName
  }

  /// The in-process recorder built for the machine of the program at `path`: for another
  /// machine's program (run under `--emulator`), `lib/<triple>/` beside the host's libraries,
  /// where `Scripts/install --target` puts it (`RuntimeLocation.library(named:for:)`).
  static func inProcessLibrary(for path: String) throws -> String {
    guard let machine = ELFMachine.of(fileAt: path), machine != ELFMachine.host else {
      return defaultInProcessLibrary()
    }
    return try RuntimeLocation.library(named: InProcessRecorder.libraryName, for: machine)
  }

  /// Runs the program; the command then ends with the program's own exit status.
  public func run() throws -> CommandOutput {
    try run(with: chooser)
  }

  /// Runs the program with `recorder`.
  func run(with recorder: any Recorder) throws -> CommandOutput {
    let program = self.recording.program
    let recording = try recorder.record(self.recording)
    let trace = try recording.trace ?? TraceReader.read(path: recording.tracePath)
    var output = CommandOutput()
    if !quiet {
      let later = trace.records.count - trace.launchRecords.count
      output.note(
        "recorded \(TextFormatting.count(trace.launchRecords.count, "launch function")) (\(later) after the window) in \(TextFormatting.count(trace.modules.count, "module")) to \(recording.tracePath)"
      )
      for child in recording.childTraces { output.note("another process's trace: \(child)") }
      for image in recording.execTraces { output.note("another image of the same process (exec): \(image)") }
      for note in recording.notes { output.note(note) }
    }
    for warning in recording.warnings { output.warning(warning) }
    if self.recording.timingLaunch && !recording.timingLaunchAttempted {
      output.warning("no timing launch: it is made by the in-process recorder, and this recording used another")
    }
    if trace.header.droppedCount > 0 {
      output.warning("\(trace.header.droppedCount) first calls were dropped: raise --capacity")
    }
    if let signal = recording.interruptedBy {
      // Stopped by a signal: end as a process that signal ended, whatever the program's status.
      output.end(with: ExitStatus(rawValue: 128 + signal))
    } else if recording.endedAfterLaunch {
      if !quiet {
        output.note(
          "the launch window closed with \(program) still running: it was ended (SIGTERM, then SIGKILL after \(AfterLaunch.defaultGraceMilliseconds / 1000) s), as were the processes it started; --wait-for-exit leaves it running"
        )
      }
    } else if recording.status != 0 {
      output.warning("\(program) exited with status \(recording.status)")
      output.end(with: ExitStatus(rawValue: recording.status))
    }
    return output
  }
}

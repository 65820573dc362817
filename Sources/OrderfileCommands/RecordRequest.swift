import OrderfileRecording
import OrderfileSupport
import OrderfileTrace

/// `orderfile record`: run a program once and save the trace of its launch.
public struct RecordRequest {
  /// How the program is run and its trace collected.
  public var recorder: any Recorder
  public var program: String
  public var arguments: [String]
  /// Print only warnings and errors, not the summary of what was recorded.
  public var quiet: Bool

  public init(recorder: any Recorder, program: String, arguments: [String] = [], quiet: Bool = false) {
    self.recorder = recorder
    self.program = program
    self.arguments = arguments
    self.quiet = quiet
  }

  /// The in-process recorder beside the runtime the running tool finds.
  public static func defaultInProcessLibrary() -> String {
    // The page probe's directory: both are installed beside the runtime.
    PathName.directory(of: MeasureRequest.defaultProbeLibrary()) + "/" + InProcessRecorder.libraryName
  }

  /// Runs the program; the command then ends with the program's own exit status.
  public func run() throws -> CommandOutput {
    let recording = try recorder.record(program: program, arguments: arguments)
    let trace = try TraceReader.read(path: recording.tracePath)
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
    if trace.header.droppedCount > 0 {
      output.warning("\(trace.header.droppedCount) first calls were dropped: raise --capacity")
    }
    if let signal = recording.interruptedBy {
      // Stopped by a signal: end as a process that signal ended, whatever the program's status.
      output.end(with: ExitStatus(rawValue: 128 + signal))
    } else if recording.status != 0 {
      output.warning("\(program) exited with status \(recording.status)")
      output.end(with: ExitStatus(rawValue: recording.status))
    }
    return output
  }
}

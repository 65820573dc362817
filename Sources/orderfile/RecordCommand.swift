import ArgumentParser
import Foundation
import OrderfileRecording
import OrderfileTrace

struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Run an instrumented program once and save the trace of its launch.",
    discussion: """
      The program must be built with the flags from 'orderfile flags
      --instrument'. It runs with this terminal's stdin, stdout and stderr,
      and its exit status becomes this command's. Traces of processes it
      forks are saved beside the main one as <trace>.<pid>.

      Example:
        orderfile record -o launch.trace -- ./app --open example.doc
        orderfile record -o launch.trace --time-limit 2000 -- ./server --port 8080
        for i in 1 2 3; do orderfile record -q -o run$i.trace -- ./app; done
      """
  )

  @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the trace.", valueName: "trace"))
  var output: String

  @Option(help: ArgumentHelp("End the launch window this many milliseconds after process start, for programs that never call orderfile_startup_complete().", valueName: "ms"))
  var timeLimit: Int?

  @Option(help: ArgumentHelp("Record at most this many distinct functions.", valueName: "count"))
  var capacity: Int?

  @Flag(name: .shortAndLong, help: "Print only warnings and errors, not the summary of what was recorded.")
  var quiet = false

  @Argument(parsing: .captureForPassthrough, help: "The program and its arguments, after '--'.")
  var command: [String] = []

  func validate() throws {
    if let timeLimit, timeLimit <= 0 { throw ValidationError("--time-limit must be a positive number of milliseconds") }
    if let capacity, capacity < 1024 { throw ValidationError("--capacity must be at least 1024") }
    if program == nil { throw ValidationError("give the program to run after '--', e.g. orderfile record -o launch.trace -- ./app") }
  }

  var program: String? {
    let words = command.first == "--" ? Array(command.dropFirst()) : command
    return words.first
  }

  func run() throws {
    try reportingErrors {
      let words = command.first == "--" ? Array(command.dropFirst()) : command
      guard let program = words.first else { throw ValidationError("no program given") }
      let recorder = RuntimeRecorder(output: output, timeLimitMilliseconds: timeLimit, capacity: capacity)
      let recording = try recorder.record(program: program, arguments: Array(words.dropFirst()))
      let trace = try TraceReader.read(path: recording.tracePath)
      if !quiet {
        Diagnostics.note(
          "recorded \(trace.launchRecords.count) launch functions (\(trace.records.count - trace.launchRecords.count) after the window) in \(trace.modules.count) modules to \(recording.tracePath)"
        )
        for child in recording.childTraces { Diagnostics.note("a forked child's trace: \(child)") }
      }
      if trace.header.droppedCount > 0 {
        Diagnostics.warning("\(trace.header.droppedCount) first calls were dropped: raise --capacity")
      }
      if recording.status != 0 {
        Diagnostics.warning("\(program) exited with status \(recording.status)")
        throw ExitCode(recording.status)
      }
    }
  }
}

import ArgumentParser
import OrderfileCommands
import OrderfileRecording

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

  @Option(
    help: ArgumentHelp(
      "End the launch window this many milliseconds after process start, for programs that never call orderfile_startup_complete().",
      valueName: "ms"))
  var timeLimit: Int?

  @Option(help: ArgumentHelp("Record at most this many distinct functions.", valueName: "count"))
  var capacity: Int?

  @Flag(name: .shortAndLong, help: "Print only warnings and errors, not the summary of what was recorded.")
  var quiet = false

  @Argument(parsing: .captureForPassthrough, help: "The program and its arguments, after '--'.")
  var command: [String] = []

  /// The program and its arguments, without the `--` that separates them from the options.
  var words: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

  func validate() throws {
    if let timeLimit, timeLimit <= 0 { throw ValidationError("--time-limit must be a positive number of milliseconds") }
    if let capacity, capacity < 1024 { throw ValidationError("--capacity must be at least 1024") }
    if words.isEmpty {
      throw ValidationError("give the program to run after '--', e.g. orderfile record -o launch.trace -- ./app")
    }
  }

  func run() throws {
    let recorder = RuntimeRecorder(output: output, timeLimitMilliseconds: timeLimit, capacity: capacity)
    try Terminal.run {
      try RecordRequest(recorder: recorder, program: words[0], arguments: Array(words.dropFirst()), quiet: quiet).run()
    }
  }
}

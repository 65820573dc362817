import ArgumentParser

/// A command that ends a program's run at a time limit: what its help says `--time-limit`
/// ends. The option is declared once, in `TimeLimitOption`.
protocol LimitsLaunch {
  static var timeLimitHelp: String { get }
}

/// A command that runs a program: what its help says of the program after `--`, and how
/// it reads that program. The options themselves are declared once, in `ProgramOptions`
/// and `LaunchOptions`.
protocol RunsProgram: LimitsLaunch {
  /// The words after `--`, as the help names them.
  static var programHelp: String { get }
  static var programValueName: String { get }
  /// `.captureForPassthrough` (everything after the program is its own, `--` optional) or
  /// `.postTerminator` (only what follows `--`).
  static var programParsing: ArgumentArrayParsingStrategy { get }
}

extension RunsProgram {
  static var programValueName: String { "command" }
}

/// A command that also ends a launch at a function's first call (`--until`).
protocol EndsAtFunction: RunsProgram {
  static var untilHelp: String { get }
}

/// `--time-limit`, for every command that runs a program: `record`, `estimate --measure`,
/// `diff --base-binary`, `bolt`, `report --measure-cold`.
struct TimeLimitOption<Command: LimitsLaunch>: ParsableArguments {
  @Option(help: ArgumentHelp(Command.timeLimitHelp, valueName: "ms"))
  var timeLimit: Int?

  func validate() throws {
    if let timeLimit, timeLimit <= 0 {
      throw ValidationError("--time-limit must be a positive number of milliseconds")
    }
  }
}

/// The program a command runs, after `--`, and `--time-limit`: `record`, `estimate
/// --measure`, `diff --base-binary`, `bolt`.
struct ProgramOptions<Command: RunsProgram>: ParsableArguments {
  @OptionGroup var limit: TimeLimitOption<Command>

  @Argument(
    parsing: Command.programParsing, help: ArgumentHelp(Command.programHelp, valueName: Command.programValueName))
  var command: [String] = []

  var timeLimit: Int? { limit.timeLimit }

  /// The program and its arguments, without the `--` that separates them from the options.
  var words: [String] { command.first == "--" ? Array(command.dropFirst()) : command }
}

/// `ProgramOptions` and `--until`, for the commands whose launch can end at a function's
/// first call: `record` and `estimate --measure`.
struct LaunchOptions<Command: EndsAtFunction>: ParsableArguments {
  @OptionGroup var program: ProgramOptions<Command>

  @Option(help: ArgumentHelp(Command.untilHelp, valueName: "function"))
  var until: [String] = []

  var timeLimit: Int? { program.timeLimit }
  var words: [String] { program.words }

  func validate() throws {
    if until.contains(where: \.isEmpty) { throw ValidationError("--until needs a function name") }
  }
}

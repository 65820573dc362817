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

/// The checks a command makes alike when only some of its flags run a program (`estimate
/// --measure` or `--measure-cold`, `report --measure-cold`): the program after `--` and
/// `--time-limit` come with one of them, and one of them needs the program.
enum RunWhenAsked {
  /// `running` is the flag given that runs the program (nil when none is); `flags` are the
  /// ones that would.
  static func check(words: [String], timeLimit: Int?, running: String?, flags: [String]) throws {
    let any = flags.joined(separator: " or ")
    if let running, words.isEmpty {
      throw ValidationError(
        "\(running) runs the program: give the command after '--', e.g. \(running) -- ./app --version")
    }
    guard running == nil else { return }
    if !words.isEmpty { throw ValidationError("a command after '--' is run only with \(any)") }
    if timeLimit != nil { throw ValidationError("--time-limit needs \(any)") }
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

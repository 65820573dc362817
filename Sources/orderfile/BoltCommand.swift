import ArgumentParser
import OrderfileCommands

struct BoltCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bolt",
    abstract: "Rewrite a release binary with LLVM BOLT: the orderfile's order, cold blocks split out.",
    discussion: """
      An optional last step after relinking with the orderfile. The first-call
      order puts whole launch functions together; BOLT also moves the blocks
      of those functions that the launch never runs (error paths, rare cases)
      out of them, so the launch touches fewer pages than any order of whole
      functions can.

      What it needs: llvm-bolt (Debian: apt-get install bolt-22), and the
      release binary linked with -Wl,--emit-relocs (a relink, not a
      recompile: 'orderfile flags --release app.order --emit-relocs').

      What it does: 'llvm-bolt -instrument' makes a copy of the binary that
      counts branches; the command after '--' runs once with that copy in the
      binary's place (give a command that launches and exits) and leaves a
      profile; llvm-bolt then rewrites the binary: functions in the
      orderfile's order (-reorder-functions=user), blocks by ext-tsp, every
      block the launch did not run split into a cold part (foo.cold.0).
      'orderfile estimate' and 'verify' understand the split binary.

      A program that never exits by itself (an app, a server) needs
      --time-limit: the instrumented copy then writes its profile every
      second, and once one written after the limit is there the program is
      ended with every process it started (SIGTERM, SIGKILL 2 s later).

      What it costs: two llvm-bolt runs and one instrumented launch (the
      report prints the seconds of each), and file size: BOLT keeps the old
      text and writes the new code into a new segment aligned to 4 KiB pages
      (-no-huge-pages; BOLT's default 2 MiB alignment made a 120 KB program
      6.3 MB). The report gives both sizes and warns when the output is more
      than 1.5 times the binary. --old-text asks BOLT to write the new code
      where the old text was (-use-old-text); it does so only when the code
      fits there, and the report says whether it did. BOLT drops the binary's
      debug info unless --keep-debug-info asks it to rewrite it
      (-update-debug-sections); the report says when it was dropped, since
      that, not the code, is most of a size drop.

      Examples:
        orderfile bolt --binary app --order app.order -o app.bolt -- ./app --version
        orderfile bolt --binary app --order app.order -o app.bolt --json
        orderfile bolt --binary server --order server.order -o server.bolt \\
          --time-limit 2000 -- ./server --port 8080
      """
  )

  @Option(help: ArgumentHelp("The release binary, linked with -Wl,--emit-relocs.", valueName: "path"))
  var binary: String

  @Option(help: ArgumentHelp("The orderfile that decides the function order.", valueName: "orderfile"))
  var order: String

  @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the rewritten binary.", valueName: "path"))
  var output: String

  @Option(
    name: .customLong("bolt"),
    help: ArgumentHelp("The llvm-bolt to run (default: llvm-bolt-22 or llvm-bolt on PATH).", valueName: "path"))
  var boltPath: String?

  @Flag(
    name: .customLong("old-text"),
    help: "Ask BOLT to put the new code where the old text was (-use-old-text), when it fits.")
  var oldText = false

  @Flag(
    name: .customLong("keep-debug-info"),
    help: "Rewrite the binary's debug info for the new layout (-update-debug-sections); BOLT drops it otherwise.")
  var keepDebugInfo = false

  @OptionGroup var launch: ProgramOptions<Self>

  @OptionGroup var format: OutputFormatOptions<JSONFlag>

  func run() throws {
    try Terminal.run {
      try BoltRequest(
        binary: binary, order: order, output: output, boltPath: boltPath, command: launch.words, oldText: oldText,
        keepDebugInfo: keepDebugInfo, reportFormat: format.format, timeLimitMilliseconds: launch.timeLimit
      ).run()
    }
  }
}

extension BoltCommand: RunsProgram {
  static let timeLimitHelp =
    "End the profiled launch this many milliseconds after its start, for a program that never exits by itself."
  static let programHelp =
    "The launch to profile, after '--': the binary and its arguments (default: the binary alone)."
  static let programParsing = ArgumentArrayParsingStrategy.captureForPassthrough
}

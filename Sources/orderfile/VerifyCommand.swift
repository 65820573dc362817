import ArgumentParser
import OrderfileCommands

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check that a relinked binary really follows an orderfile.",
    discussion: """
      Reports the share of entries present in the binary, the share that sit
      in order and adjacent, and the first entries out of place. Exits 1 when
      either share is below --threshold, naming the likely cause: a build
      without -ffunction-sections, an orderfile in the wrong format for the
      linker, functions renamed between the instrumented and release builds, or
      functions the release build inlined.

      Examples:
        orderfile verify --binary build/release/app --order app.order
        orderfile verify --binary app --order app.order --threshold 0.9 --json
      """
  )

  @Option(help: ArgumentHelp("The relinked binary.", valueName: "path"))
  var binary: String

  @Option(help: ArgumentHelp("The orderfile it was linked with.", valueName: "orderfile"))
  var order: String

  @Option(
    help: ArgumentHelp("The least share of entries present, and in order, that passes: 0.95 or 95%.", valueName: "rate")
  )
  var threshold = Rate(0.95)

  @OptionGroup var output: OutputFormatOptions<JSONFlag>

  func run() throws {
    try Terminal.run {
      try VerifyRequest(binary: binary, order: order, threshold: threshold, reportFormat: output.format).run()
    }
  }
}

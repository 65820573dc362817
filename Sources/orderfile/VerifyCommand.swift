import ArgumentParser
import Foundation
import OrderfileLayout
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check that a relinked binary really follows an orderfile.",
    discussion: """
      Reports the share of entries present in the binary, the share that sit
      in order and adjacent, and the first entries out of place. Exits 1 when
      either share is below --threshold, naming the likely cause: a build
      without -ffunction-sections, an orderfile in the wrong format for the
      linker, or functions renamed between the instrumented and release builds.

      Examples:
        orderfile verify --binary build/release/app --order app.order
        orderfile verify --binary app --order app.order --threshold 0.9 --json
      """
  )

  @Option(help: ArgumentHelp("The relinked binary.", valueName: "path"))
  var binary: String

  @Option(help: ArgumentHelp("The orderfile it was linked with.", valueName: "orderfile"))
  var order: String

  @Option(help: ArgumentHelp("The least share of entries present, and in order, that passes: 0.95 or 95%.", valueName: "rate"))
  var threshold: String = "0.95"

  @OptionGroup var output: OutputOptions

  func validate() throws {
    if GenerateCommand.parseRate(threshold) == nil {
      throw ValidationError("--threshold: '\(threshold)' is not a rate between 0 and 1 (or 0% and 100%)")
    }
  }

  func run() throws {
    try reportingErrors {
      let orderfile = try Orderfile.read(path: order)
      guard !orderfile.lines.isEmpty else { throw LayoutError.emptyOrderfile(path: order) }
      let symbolizer = try ELFSymbolizer(path: binary)
      let verifier = LayoutVerifier(threshold: GenerateCommand.parseRate(threshold) ?? 0.95)
      let verification = verifier.verify(
        order: orderfile, symbolizer: symbolizer,
        linker: try BinaryLocator.linker(ofFileAt: binary))
      if output.json {
        try printJSON(verification)
      } else {
        printReport(VerificationTextRenderer().render(verification))
      }
      if !verification.passed { throw ExitCode(ExitStatus.gateFailed.rawValue) }
    }
  }
}

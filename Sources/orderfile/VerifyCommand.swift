import ArgumentParser
import OrderfileCommands

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check that a relinked binary really follows an orderfile.",
    discussion: """
      Reports the share of entries present in the binary, the share that sit
      in order and adjacent, and the first entries out of place. Exits 1 when
      either share is below --min-in-order, naming the likely cause: a build
      without -ffunction-sections, an orderfile in the wrong format for the
      linker, functions renamed between the instrumented and release builds, or
      functions the release build inlined.

      It also reads the tables the dynamic loader reads at launch and names
      each loader option 'flags --release' adds that the link lacks, with the
      flag to add: -Wl,-z,pack-relative-relocs when relative relocations sit
      in RELA and the linker and the target's glibc support RELR,
      -Wl,--hash-style=gnu when a System V hash table is there. These lines
      do not change the exit status.

      Examples:
        orderfile verify --binary build/release/app --order app.order
        orderfile verify --binary app --order app.order --min-in-order 0.9 --json
      """
  )

  @Option(help: ArgumentHelp("The relinked binary.", valueName: "path"))
  var binary: String

  @Option(help: ArgumentHelp("The orderfile it was linked with.", valueName: "orderfile"))
  var order: String

  @Option(
    name: .customLong(Gate.minInOrder.name),
    help: ArgumentHelp(
      "The least share of entries present, and of those in order, that passes: 0.95 or 95%.", valueName: "rate"))
  var minInOrder = VerifyRequest.defaultMinInOrder

  @Option(
    help: ArgumentHelp(
      "The root of the system the binary runs on, whose libc.so.6 decides which loader options it should have (default: this machine's, or the cross sysroot of the binary's machine).",
      valueName: "dir"))
  var sysroot: String?

  @OptionGroup var output: OutputFormatOptions<JSONFlag>

  func run() throws {
    try Terminal.run {
      try VerifyRequest(
        binary: binary, order: order, minInOrder: minInOrder, reportFormat: output.format, sysroot: sysroot
      ).run()
    }
  }
}

import ArgumentParser
import Foundation
import OrderfileBuild
import OrderfileOrdering

struct FlagsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flags",
    abstract: "Print the compile and link flags for the recording build or the ordered release build.",
    discussion: """
      Recording build (compile the launch path instrumented, link the runtime):
        orderfile flags --instrument
        make CFLAGS="$(orderfile flags --instrument --cflags)" \\
             LDFLAGS="$(orderfile flags --instrument --ldflags)"

      Release build (one section per function, then the order at link time):
        orderfile flags --release app.order
        orderfile flags --release app.order --format gold --ldflags

      --build-system prints a snippet for Make, CMake or SwiftPM instead.
      """
  )

  @Flag(help: "Flags for the instrumented build that records a launch.")
  var instrument = false

  @Option(help: ArgumentHelp("Flags for the release build that applies this orderfile.", valueName: "orderfile"))
  var release: String?

  @Option(help: "The compiler of the instrumented build: \(InstrumentingCompiler.allCases.map(\.rawValue).joined(separator: ", ")).")
  var compiler: InstrumentingCompiler = .clang

  @Option(help: "The orderfile's format, which picks the linker: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
  var format: OrderfileFormat = .lld

  @Flag(help: "Print only the compile flags, on one line.")
  var cflags = false

  @Flag(help: "Print only the link flags, on one line.")
  var ldflags = false

  @Option(help: "Print a snippet for this build system: \(BuildSystem.allCases.map(\.rawValue).joined(separator: ", ")).")
  var buildSystem: BuildSystem?

  @OptionGroup var output: OutputOptions

  func validate() throws {
    if instrument == (release != nil) {
      throw ValidationError("give exactly one of --instrument or --release <orderfile>")
    }
    if cflags && ldflags { throw ValidationError("--cflags and --ldflags print one line each: give one") }
  }

  func run() throws {
    try reportingErrors {
      let flags = try BuildFlags.forBuild(
        release.map { .release(orderfile: $0, format: format) } ?? .instrumented(compiler))
      if output.json {
        try printJSON(flags)
      } else if cflags {
        print(BuildFlags.shellLine(flags.compile))
      } else if ldflags {
        print(BuildFlags.shellLine(flags.link))
      } else if let buildSystem {
        print(buildSystem.snippet(flags))
      } else {
        let what = instrument ? "the instrumented (recording) build" : "the ordered release build"
        print("# Compile flags for \(what):")
        print(BuildFlags.shellLine(flags.compile))
        print("# Link flags for \(what):")
        print(BuildFlags.shellLine(flags.link))
      }
    }
  }
}

extension BuildSystem: ExpressibleByArgument {}

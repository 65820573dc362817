import ArgumentParser
import Foundation
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

  @Option(help: "Print a snippet for this build system: make, cmake, swiftpm.")
  var buildSystem: BuildSystem?

  @OptionGroup var output: OutputOptions

  enum BuildSystem: String, ExpressibleByArgument, CaseIterable {
    case make, cmake, swiftpm
  }

  func validate() throws {
    if instrument == (release != nil) {
      throw ValidationError("give exactly one of --instrument or --release <orderfile>")
    }
    if cflags && ldflags { throw ValidationError("--cflags and --ldflags print one line each: give one") }
  }

  func run() throws {
    try reportingErrors {
      let flags: BuildFlags
      if let release {
        guard FileManager.default.fileExists(atPath: release) else {
          throw ValidationError("--release: no orderfile at '\(release)'")
        }
        let absolute = URL(fileURLWithPath: release).standardizedFileURL.path
        flags = .release(orderfile: absolute, format: format)
      } else {
        let executable =
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        guard
          let runtime = RuntimeLocation.find(
            executablePath: executable, environment: ProcessInfo.processInfo.environment)
        else {
          throw ValidationError(
            "cannot find libOrderfileRuntime.so and orderfile.h near \(executable); build the runtime with 'Scripts/build-runtime <dir of orderfile>' or set ORDERFILE_RUNTIME_DIR and ORDERFILE_INCLUDE_DIR"
          )
        }
        flags = .instrumented(compiler: compiler, runtime: runtime)
      }
      if output.json {
        try printJSON(flags)
      } else if cflags {
        print(BuildFlags.shellLine(flags.compile))
      } else if ldflags {
        print(BuildFlags.shellLine(flags.link))
      } else if let buildSystem {
        print(snippet(flags, for: buildSystem))
      } else {
        let what = instrument ? "the instrumented (recording) build" : "the ordered release build"
        print("# Compile flags for \(what):")
        print(BuildFlags.shellLine(flags.compile))
        print("# Link flags for \(what):")
        print(BuildFlags.shellLine(flags.link))
      }
    }
  }

  func snippet(_ flags: BuildFlags, for system: BuildSystem) -> String {
    let compile = BuildFlags.shellLine(flags.compile)
    let link = BuildFlags.shellLine(flags.link)
    switch system {
    case .make:
      return """
        # GNU Make: add to the flags of the targets on the launch path.
        CFLAGS   += \(compile)
        CXXFLAGS += \(compile)
        LDFLAGS  += \(link)
        """
    case .cmake:
      let quotedCompile = flags.compile.map { "\"\($0)\"" }.joined(separator: " ")
      let quotedLink = flags.link.map { "\"\($0)\"" }.joined(separator: " ")
      return """
        # CMake: add to the targets on the launch path (or pass -DCMAKE_C_FLAGS=... at configure time).
        target_compile_options(app PRIVATE \(quotedCompile))
        target_link_options(app PRIVATE \(quotedLink))
        """
    case .swiftpm:
      let cc = flags.compile.flatMap { ["-Xcc", $0] }
      var ld: [String] = []
      for flag in flags.link {
        if flag.hasPrefix("-fuse-ld=") {
          ld += ["-Xswiftc", "-use-ld=" + flag.dropFirst("-fuse-ld=".count)]
        } else if flag.hasPrefix("-Wl,") {
          ld += flag.dropFirst(4).split(separator: ",").flatMap { ["-Xlinker", String($0)] }
        } else {
          ld += ["-Xlinker", flag]
        }
      }
      return """
        # SwiftPM: C targets take -Xcc flags, the link takes -Xlinker flags.
        # (Swift code itself is not instrumented by these flags; see Docs/Reference.md.)
        swift build -c release \(BuildFlags.shellLine(cc + ld))
        """
    }
  }
}

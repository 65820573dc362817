import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// One flag name, one meaning: `--binary` is the binary a command measures, `--search-path`
/// where recorded binaries are found, `--trace-module` the module a binary is. Where a name
/// once meant something else (`generate --binary`, `estimate --module`), it is now an
/// unknown option, never a silent second meaning.
@Suite("Flag spellings")
struct FlagSpellingCLITests {
  /// A traced binary moved away from the path its trace recorded, so that only a search
  /// path finds it.
  static func movedFixture() throws -> (fixture: TracedBinary, moved: String) {
    let fixture = try TracedBinary(called: ["main", "alpha", "beta", "gamma_"])
    let moved = fixture.directory.file("moved")
    try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: fixture.binary, toPath: moved + "/tool")
    return (fixture, moved)
  }

  @Test("generate finds a moved binary through --search-path; --binary is an unknown option there")
  func generateSearchPath() throws {
    let (fixture, moved) = try Self.movedFixture()
    defer { fixture.directory.remove() }
    let lost = try orderfile(["generate", fixture.trace])
    #expect(lost.status != 0, "the moved binary was found without a search path: \(lost.standardOutput)")
    let new = try orderfile(["generate", fixture.trace, "--search-path", moved])
    #expect(new.status == 0, "\(new.standardError)")
    #expect(new.standardOutput == "main\nalpha\nbeta\ngamma_\n")
    for command in ["generate", "merge", "report"] {
      let former = try orderfile([command, fixture.trace, "--binary", moved])
      #expect(former.status == 64, "\(command) --binary: \(former.standardError)")
      #expect(former.standardError.contains("Unknown option '--binary'"), "\(command): \(former.standardError)")
      #expect(former.standardOutput.isEmpty, "\(command) --binary printed: \(former.standardOutput)")
    }
  }

  @Test(
    "estimate takes --trace-module and --search-path; --module and --instrumented are unknown there, --module in diff too"
  )
  func estimateSpellings() throws {
    let (fixture, moved) = try Self.movedFixture()
    defer { fixture.directory.remove() }
    // Another build of the same program: its build-id differs, so the estimate needs the
    // recorded binary (moved) to name the recorded addresses.
    let relinked = fixture.directory.file("tool.relinked")
    try runChecked(Toolchain.clang, ["-O1", "-g", fixture.directory.file("tool.c"), "-o", relinked])
    let estimate = ["estimate", "--trace", fixture.trace, "--binary", relinked, "--json"]
    let lost = try orderfile(estimate)
    #expect(lost.status != 0, "the recorded binary was found without a search path")
    let new = try orderfile(estimate + ["--search-path", moved, "--trace-module", "tool"])
    #expect(new.status == 0, "\(new.standardError)")
    #expect(new.standardOutput.contains("\"launchFunctions\""))
    let instrumented = try orderfile(estimate + ["--instrumented", moved, "--trace-module", "tool"])
    #expect(instrumented.status == 64)
    #expect(instrumented.standardError.contains("Unknown option '--instrumented'"), "\(instrumented.standardError)")

    let wrong = try orderfile(estimate + ["--search-path", moved, "--trace-module", "nothing"])
    #expect(wrong.status == 65)
    // `--module` picks the module to write in generate and merge; estimate and diff take
    // the module a binary is as --trace-module alone.
    let empty = fixture.directory.file("empty.order")
    try AtomicFile.write("", to: empty)
    let diff = ["diff", empty, empty, "--trace", fixture.trace, "--binary", relinked]
    for command in [estimate, diff] {
      let module = try orderfile(command + ["--search-path", moved, "--module", "tool"])
      #expect(module.status == 64, "\(command[0]) --module: \(module.standardError)")
      #expect(module.standardError.contains("Unknown option '--module'"), "\(command[0]): \(module.standardError)")
      #expect(module.standardOutput.isEmpty)
    }
  }

  @Test("--help shows each meaning under its one name, never the former spellings")
  func helpShowsNewNames() throws {
    for command in ["generate", "merge", "report"] {
      let help = try orderfile([command, "--help"]).standardOutput
      #expect(help.contains("--search-path <path>"), "\(command) --help")
      #expect(!help.contains("--binary"), "\(command) --help shows --binary:\n\(help)")
    }
    for command in ["estimate", "diff"] {
      let help = try orderfile([command, "--help"]).standardOutput
      #expect(help.contains("--binary <path>"), "\(command) --help")
      #expect(help.contains("--search-path <path>") && help.contains("--trace-module <name>"), "\(command) --help")
      #expect(!help.contains("--instrumented") && !help.contains("--module <"), "\(command) --help:\n\(help)")
    }
    let generate = try orderfile(["generate", "--help"]).standardOutput
    #expect(generate.contains("--module <name>"))
    #expect(try orderfile(["record", "--help"]).standardOutput.contains("--instrumented "))
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// One flag name, one meaning: `--binary` is the binary a command measures, `--search-path`
/// where recorded binaries are found, `--trace-module` the module a binary is. The former
/// spellings still work for a release, hidden from `--help`.
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

  @Test("generate finds a moved binary through --search-path, and through the former --binary")
  func generateSearchPath() throws {
    let (fixture, moved) = try Self.movedFixture()
    defer { fixture.directory.remove() }
    let lost = try orderfile(["generate", fixture.trace])
    #expect(lost.status != 0, "the moved binary was found without a search path: \(lost.standardOutput)")
    let new = try orderfile(["generate", fixture.trace, "--search-path", moved])
    #expect(new.status == 0, "\(new.standardError)")
    #expect(new.standardOutput == "main\nalpha\nbeta\ngamma_\n")
    let former = try orderfile(["generate", fixture.trace, "--binary", moved])
    #expect(former.status == 0, "\(former.standardError)")
    #expect(former.standardOutput == new.standardOutput)
  }

  @Test(
    "estimate takes --trace-module and --search-path, and the former spelling --module; --instrumented is record's alone"
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
    let former = try orderfile(estimate + ["--search-path", moved, "--module", "tool"])
    #expect(former.status == 0, "\(former.standardError)")
    #expect(former.standardOutput == new.standardOutput)
    let instrumented = try orderfile(estimate + ["--instrumented", moved, "--trace-module", "tool"])
    #expect(instrumented.status == 64)
    #expect(instrumented.standardError.contains("Unknown option '--instrumented'"), "\(instrumented.standardError)")

    // The module names mean the same under either spelling: the same error for no such module.
    let wrongNew = try orderfile(estimate + ["--search-path", moved, "--trace-module", "nothing"])
    let wrongFormer = try orderfile(estimate + ["--search-path", moved, "--module", "nothing"])
    #expect(wrongNew.status == 65)
    #expect(wrongFormer.status == 65)
    #expect(wrongNew.standardError == wrongFormer.standardError)
    let both = try orderfile(estimate + ["--trace-module", "tool", "--module", "tool"])
    #expect(both.status == 64)
    #expect(both.standardError.contains("--module is the former spelling of --trace-module"))
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

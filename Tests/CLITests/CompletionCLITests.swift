import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The completions and the manual come from the same command definitions as `--help`
/// (swift-argument-parser generates all of them); these tests hold them to that.
@Suite("completions and --help")
struct CompletionCLITests {
  /// The subcommands `orderfile --help` lists, from its SUBCOMMANDS section.
  static func subcommandsInHelp() throws -> [String] {
    let help = try orderfile(["--help"])
    guard help.succeeded else { throw TestSupportError("orderfile --help exited \(help.status)") }
    let lines = help.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("SUBCOMMANDS:") }) else {
      throw TestSupportError("no SUBCOMMANDS section in:\n\(help.standardOutput)")
    }
    var names: [String] = []
    for line in lines[(start + 1)...] {
      // Entries are indented two spaces; their wrapped abstracts are indented further.
      guard line.hasPrefix("  ") else { break }
      guard !line.hasPrefix("   "), let name = line.split(separator: " ").first else { continue }
      names.append(String(name))
    }
    return names
  }

  @Test("--help lists every command the tool dispatches to")
  func helpListsCommands() throws {
    let names = try Self.subcommandsInHelp()
    #expect(
      Set(names).isSuperset(of: ["flags", "record", "generate", "merge", "diff", "verify", "report"]), "\(names)")
  }

  @Test("each completion script names every subcommand of --help", arguments: ["bash", "zsh", "fish"])
  func completionNamesEverySubcommand(shell: String) throws {
    let names = try Self.subcommandsInHelp()
    #expect(!names.isEmpty)
    let script = try orderfile(["--generate-completion-script", shell])
    #expect(script.succeeded, "\(script.standardError)")
    for name in names {
      // A whole word: 'diff' must not pass on the strength of 'difference'.
      let pattern = try Regex("(^|[^A-Za-z0-9_-])\(name)($|[^A-Za-z0-9_-])")
      #expect(script.standardOutput.contains(pattern), "the \(shell) completion does not name '\(name)'")
    }
  }

  @Test("a shell name the generator does not know is refused")
  func unknownShellIsRefused() throws {
    let result = try orderfile(["--generate-completion-script", "tcsh"])
    #expect(result.status != 0)
    #expect(result.standardError.contains("tcsh"), "\(result.standardError)")
  }
}

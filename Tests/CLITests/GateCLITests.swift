import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A gate has one name: the option of the commands that take it, the key under a
/// `regenerate` configuration's `gates`, and the row of Docs/Reference.md's gate table.
@Suite("Gate names")
struct GateCLITests {
  /// The commands whose options each gate is.
  static let commands: [Gate: [String]] = [
    .minMatch: ["generate", "merge"], .minInOrder: ["verify"], .maxPageGrowth: ["diff"], .maxColdGrowth: ["diff"],
  ]

  @Test("each gate is an option of its commands under its one name, and a row of Reference.md's gate table")
  func everyGateNamedOnce() throws {
    let reference = try String(contentsOfFile: PackagePaths.root + "/Docs/Reference.md", encoding: .utf8)
    for gate in Gate.allCases {
      let commands = try #require(Self.commands[gate], "\(gate) belongs to no command")
      for command in commands {
        let help = try orderfile([command, "--help"]).standardOutput
        #expect(help.contains("\(gate.option) <"), "\(command) --help lacks \(gate.option):\n\(help)")
      }
      #expect(reference.contains("| `\(gate.name)` |"), "Docs/Reference.md's gate table lacks \(gate.name)")
    }
  }

  @Test(
    "the spellings the gates replaced are unknown options",
    arguments: [
      ["verify", "--binary", "app", "--order", "app.order", "--threshold", "0.9"],
      ["diff", "a.order", "b.order", "--trace", "t", "--binary", "b", "--fail-if-pages-regress", "2"],
      [
        "diff", "a.order", "b.order", "--base-binary", "a", "--head-binary", "b", "--measure-cold",
        "--fail-if-cold-faults-regress", "2",
      ],
    ])
  func formerSpellings(arguments: [String]) throws {
    let result = try orderfile(arguments)
    let former = arguments[arguments.count - 2]
    #expect(result.status == 64, "\(arguments): \(result.standardError)")
    #expect(result.standardError.contains("Unknown option '\(former)'"), "\(result.standardError)")
    #expect(result.standardOutput.isEmpty)
  }

  @Test("verify --min-in-order: 4 of 5 entries present fails the default 95% and passes 80%")
  func verifyMinInOrder() throws {
    let fixture = try TracedBinary(called: ["main"])
    defer { fixture.directory.remove() }
    // The functions as they sit in the binary (so all present ones are in order), and one
    // it lacks.
    let laidOut = ["alpha", "beta", "gamma_", "main"].sorted {
      fixture.addresses[$0, default: 0] < fixture.addresses[$1, default: 0]
    }
    let order = fixture.directory.file("tool.order")
    try (laidOut + ["absent"]).map { $0 + "\n" }.joined().write(toFile: order, atomically: true, encoding: .utf8)
    let verify = ["verify", "--binary", fixture.binary, "--order", order]

    let strict = try orderfile(verify)
    #expect(strict.status == 1, "\(strict.standardOutput)\(strict.standardError)")
    #expect(
      strict.standardOutput.contains("FAIL (--min-in-order 95.0%: present and in order)"), "\(strict.standardOutput)")
    let lenient = try orderfile(verify + ["--min-in-order", "80%", "--json"])
    #expect(lenient.status == 0, "\(lenient.standardOutput)\(lenient.standardError)")
    let report = try JSONSerialization.jsonObject(with: Data(lenient.standardOutput.utf8)) as? [String: Any] ?? [:]
    #expect(report["minInOrder"] as? Double == 0.8, "\(report)")
    #expect(report["presentShare"] as? Double == 0.8 && report["inOrderShare"] as? Double == 1, "\(report)")
    #expect(report["threshold"] == nil)
  }
}

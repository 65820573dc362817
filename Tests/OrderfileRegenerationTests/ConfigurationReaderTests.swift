import Foundation
import OrderfileRegeneration
import OrderfileSupport
import Testing

/// A configuration every test varies by one line.
private let valid = """
  orderfiles: orderfiles
  build: make release
  relink: make release ORDER_DIR="$ORDERFILE_NEW_DIR"
  binaries:
    app: build/app
    libcore.so: build/libcore.so
  scenarios:
    - name: cold
      weight: 3
      command: [app, --quit-after-launch]
      until: [first_frame]
    - name: paper-theme
      command: app --theme paper
      environment:
        THEME: paper
      time-limit: 2000
  runs: 4
  gates:
    min-match: 90%
    max-page-growth: 2
  """

/// Only `sh` is a program on PATH here; the rest must be configured binaries.
private let reader = ConfigurationReader(findProgram: { $0 == "sh" ? "/bin/sh" : nil })

/// The error `text` fails with.
private func failure(_ text: String) -> RegenerationError? {
  do {
    _ = try reader.parse(text, file: "/project/orderfile.yml")
    return nil
  } catch {
    return error as? RegenerationError
  }
}

@Suite("ConfigurationReader")
struct ConfigurationReaderTests {
  @Test("a valid file: paths from the file's directory, scenarios in order, defaults filled in")
  func validFile() throws {
    let configuration = try reader.parse(valid, file: "/project/orderfile.yml")
    #expect(configuration.projectDirectory == "/project")
    #expect(configuration.orderfileDirectory == "/project/orderfiles")
    #expect(configuration.binaries.map(\.module) == ["app", "libcore.so"])
    #expect(configuration.binaries.map(\.path) == ["/project/build/app", "/project/build/libcore.so"])
    #expect(configuration.scenarios.map(\.name) == ["cold", "paper-theme"])
    #expect(configuration.scenarios[0].weight == 3 && configuration.scenarios[1].weight == 1)
    #expect(configuration.scenarios[0].until == ["first_frame"])
    #expect(configuration.scenarios[1].arguments == ["--theme", "paper"])
    #expect(configuration.scenarios[1].environment == ["THEME": "paper"])
    #expect(configuration.scenarios[1].timeLimitMilliseconds == 2000)
    #expect(configuration.runs == 4)
    #expect(configuration.gates.minMatch == Rate(0.9))
    #expect(configuration.gates.minInOrder == Rate(0.95), "verify's default")
    #expect(configuration.gates.maxPageGrowth == Percentage(2))
    #expect(configuration.recording == .release)
    #expect(configuration.workDirectory == "/project/.orderfile")
    #expect(configuration.report == "/project/.orderfile/report.md")
  }

  @Test("an unknown key fails naming the file, its line and the nearest known key")
  func unknownKey() {
    let text = valid.replacingOccurrences(of: "runs: 4", with: "rusn: 4")
    let error = failure(text)
    #expect(
      error
        == .configuration(
          file: "/project/orderfile.yml", line: 17, key: "rusn",
          message:
            "unknown key (did you mean 'runs'?); known keys: \(ConfigurationReader.topLevelKeys.joined(separator: ", "))"
        ))
    #expect(error?.errorDescription?.hasPrefix("/project/orderfile.yml:17: rusn: unknown key") == true)
  }

  @Test("every gate is a key under gates by its option's name, value and unit; a command's former spelling is not")
  func gateKeys() throws {
    let gates = "  min-match: 0.8\n  min-in-order: 90%\n  max-page-growth: 3%\n  max-cold-growth: 10\n"
    let text = valid.replacingOccurrences(of: "  min-match: 90%\n  max-page-growth: 2", with: gates)
    let configuration = try reader.parse(text, file: "/project/orderfile.yml")
    #expect(
      configuration.gates
        == .init(
          minMatch: Rate(0.8), minInOrder: Rate(0.9), maxPageGrowth: Percentage(3), maxColdGrowth: Percentage(10)))
    for gate in Gate.allCases {
      #expect(text.contains("  \(gate.name): "), "\(gate) is not set above")
    }
    let former = valid.replacingOccurrences(of: "max-page-growth: 2", with: "fail-if-pages-regress: 2")
    guard case .configuration(_, let line, let key, let message) = failure(former) else {
      Issue.record("fail-if-pages-regress was read")
      return
    }
    #expect(line == 20 && key == "gates.fail-if-pages-regress" && message.hasPrefix("unknown key"), "\(message)")
  }

  @Test("an unknown key inside a scenario names the scenario and the line")
  func unknownScenarioKey() {
    let text = valid.replacingOccurrences(of: "    weight: 3", with: "    wieght: 3")
    guard case .configuration(_, let line, let key, _) = failure(text) else {
      Issue.record("no configuration error")
      return
    }
    #expect(line == 9 && key == "scenarios[0].wieght")
  }

  @Test("a scenario without a command fails naming its line")
  func scenarioWithoutCommand() {
    let text = valid.replacingOccurrences(of: "    command: [app, --quit-after-launch]\n", with: "")
    let error = failure(text)
    #expect(
      error?.errorDescription
        == "/project/orderfile.yml:8: scenarios[0]: scenario 'cold' has no command: give `command: [program, arguments…]`"
    )
  }

  @Test("a scenario program that is neither a configured binary nor a program fails naming its line")
  func missingBinary() {
    let text = valid.replacingOccurrences(
      of: "command: [app, --quit-after-launch]", with: "command: [ap, --quit-after-launch]")
    let error = failure(text)
    #expect(
      error?.errorDescription?.hasPrefix(
        "/project/orderfile.yml:10: scenarios[0].command: 'ap' is neither a module of binaries (app, libcore.so)")
        == true, "\(String(describing: error))")
    // A program on PATH is fine (a wrapper such as env).
    #expect(failure(text.replacingOccurrences(of: "[ap,", with: "[sh,")) == nil)
  }

  @Test("missing binaries and a bad value name their key")
  func missingAndBadValues() {
    let noBinaries = valid.replacingOccurrences(
      of: "binaries:\n  app: build/app\n  libcore.so: build/libcore.so\n", with: "")
    #expect(failure(noBinaries)?.errorDescription == "/project/orderfile.yml:1: missing key 'binaries'")
    let badRuns = valid.replacingOccurrences(of: "runs: 4", with: "runs: many")
    #expect(
      failure(badRuns)?.errorDescription == "/project/orderfile.yml:17: runs: 'many' is not a positive whole number")
    let badGate = valid.replacingOccurrences(of: "min-match: 90%", with: "min-match: 190%")
    #expect(
      failure(badGate)?.errorDescription
        == "/project/orderfile.yml:19: gates.min-match: '190%' is not a share: 0.9 or 90%")
    let badInOrder = valid.replacingOccurrences(of: "min-match: 90%", with: "min-in-order: most")
    #expect(
      failure(badInOrder)?.errorDescription
        == "/project/orderfile.yml:19: gates.min-in-order: 'most' is not a share: 0.9 or 90%")
    let notYAML = failure("orderfiles: [unclosed")?.errorDescription
    #expect(
      notYAML == "/project/orderfile.yml:2: not YAML: did not find expected ',' or ']'",
      "\(String(describing: notYAML))")
  }

  @Test("an instrumented section records that build, with its compiler")
  func instrumented() throws {
    let text =
      valid.replacingOccurrences(of: "    until: [first_frame]\n", with: "")
      + "\ninstrumented:\n  build: make instrumented\n  compiler: gcc\n  binaries:\n    app: build-instrumented/app\n"
    let configuration = try reader.parse(text, file: "/project/orderfile.yml")
    #expect(
      configuration.recording
        == .instrumented(
          build: "make instrumented", binaries: [.init(module: "app", path: "/project/build-instrumented/app")],
          compiler: .gcc))
    // `until` is for recording without a rebuild.
    let withUntil =
      valid + "\ninstrumented:\n  build: make instrumented\n  binaries:\n    app: build-instrumented/app\n"
    #expect(failure(withUntil)?.errorDescription?.contains("scenarios[0].until: an instrumented build ends") == true)
  }
}

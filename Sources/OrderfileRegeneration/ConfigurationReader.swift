import Foundation
import OrderfileBuild
import OrderfileOrdering
import OrderfileSupport
import Yams

/// Reads and checks a configuration file before anything runs.
///
/// Every error names the file, the line and the key: an unknown key (with the nearest known
/// one), a missing or mistyped value, a scenario without a command, a scenario program that
/// is neither a configured binary nor a program that exists.
public struct ConfigurationReader: Sendable {
  /// Looks up a program named without a slash; tests replace it.
  public var findProgram: @Sendable (String) -> String?

  public init(findProgram: @escaping @Sendable (String) -> String? = ConfigurationReader.onPath) {
    self.findProgram = findProgram
  }

  /// The executable `name` resolves to on PATH, if any.
  @Sendable public static func onPath(_ name: String) -> String? {
    let resolved = ProcessRunner.resolve(name)
    return resolved.contains("/") && FileManager.default.isExecutableFile(atPath: resolved) ? resolved : nil
  }

  public static let topLevelKeys = [
    "orderfiles", "format", "work", "report", "build", "relink", "binaries", "scenarios", "runs", "gates",
    "ignore-churn-below", "instrumented", "data",
  ]
  static let scenarioKeys = ["name", "weight", "command", "environment", "until", "time-limit"]
  static let gateKeys = Gate.allCases.map(\.name)
  static let instrumentedKeys = ["build", "binaries", "compiler"]

  public func read(path: String) throws -> RegenerationConfiguration {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw RegenerationError.configurationNotFound(path: path)
    }
    return try parse(String(decoding: data, as: UTF8.self), file: path)
  }

  public func parse(_ text: String, file: String) throws -> RegenerationConfiguration {
    let root: Node
    do {
      guard let node = try Yams.compose(yaml: text) else {
        throw RegenerationError.configuration(file: file, line: 0, key: "", message: "the file is empty")
      }
      root = node
    } catch let error as RegenerationError {
      throw error
    } catch let error as YamlError {
      throw RegenerationError.configuration(
        file: file, line: Self.line(of: error), key: "", message: "not YAML: \(Self.problem(of: error))")
    }
    let document = Fields(node: root, key: "", file: file)
    let top = try document.mapping(known: Self.topLevelKeys)
    let absolute = AbsolutePaths(
      directory: PathName.directory(of: Self.absolute(file, in: FileManager.default.currentDirectoryPath)))

    let binaries = try Self.binaries(try top.required("binaries"))
    let recording: RegenerationConfiguration.Recording
    if let instrumented = top.optional("instrumented") {
      let fields = try instrumented.mapping(known: Self.instrumentedKeys)
      var compiler = InstrumentingCompiler.clang
      if let field = fields.optional("compiler") {
        let text = try field.string()
        guard let named = InstrumentingCompiler(rawValue: text) else {
          throw field.error(
            "'\(text)' is not a compiler: \(InstrumentingCompiler.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        compiler = named
      }
      recording = .instrumented(
        build: try fields.required("build").string(), binaries: try Self.binaries(try fields.required("binaries")),
        compiler: compiler)
    } else {
      recording = .release
    }

    let scenariosField = try top.required("scenarios")
    guard let scenarioNodes = scenariosField.node.sequence, !scenarioNodes.isEmpty else {
      throw scenariosField.error("give at least one launch scenario, a list of `- name: …, command: […]`")
    }
    var scenarios: [RegenerationConfiguration.Scenario] = []
    var names = Set<String>()
    for (index, node) in scenarioNodes.enumerated() {
      let fields = try Fields(node: node, key: "scenarios[\(index)]", file: file).mapping(known: Self.scenarioKeys)
      let nameField = try fields.required("name")
      let name = try nameField.string()
      guard name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
        throw nameField.error("'\(name)' names trace files: use letters, digits, '-', '_' and '.'")
      }
      guard names.insert(name).inserted else { throw nameField.error("a second scenario named '\(name)'") }
      guard let commandField = fields.optional("command") else {
        throw fields.error("scenario '\(name)' has no command: give `command: [program, arguments…]`")
      }
      let words = try commandField.words()
      guard let program = words.first, !program.isEmpty else {
        throw commandField.error("scenario '\(name)' has an empty command")
      }
      let modules = Set(binaries.map(\.module))
      if !modules.contains(program) {
        if program.contains("/") {
          let path = absolute.path(program)
          guard
            binaries.contains(where: { absolute.path($0.path) == path })
              || FileManager.default.isExecutableFile(atPath: path)
          else {
            throw commandField.error(
              "'\(program)' is neither a module of binaries (\(binaries.map(\.module).joined(separator: ", "))) nor an executable file"
            )
          }
        } else if findProgram(program) == nil {
          throw commandField.error(
            "'\(program)' is neither a module of binaries (\(binaries.map(\.module).joined(separator: ", "))) nor a program on PATH"
          )
        }
      }
      let weight = try fields.optional("weight")?.positiveNumber() ?? 1
      let until = try fields.optional("until")?.words() ?? []
      let timeLimit = try fields.optional("time-limit")?.positiveInteger()
      if case .instrumented = recording, !until.isEmpty {
        throw try fields.required("until").error(
          "an instrumented build ends its launch window with orderfile_startup_complete(), not `until`")
      }
      var environment: [String: String] = [:]
      if let field = fields.optional("environment") {
        let variables = try field.mapping(known: nil)
        for key in variables.keys { environment[key] = try variables.required(key).string() }
      }
      scenarios.append(
        RegenerationConfiguration.Scenario(
          name: name, weight: weight, program: program, arguments: Array(words.dropFirst()), environment: environment,
          until: until, timeLimitMilliseconds: timeLimit))
    }

    var gates = RegenerationConfiguration.Gates()
    if let field = top.optional("gates") {
      let fields = try field.mapping(known: Self.gateKeys)
      for gate in Gate.allCases {
        guard let value = fields.optional(gate.name) else { continue }
        switch gate {
        case .minMatch: gates.minMatch = try value.rate()
        case .minInOrder: gates.minInOrder = try value.rate()
        case .maxPageGrowth: gates.maxPageGrowth = try value.percentage()
        case .maxColdGrowth: gates.maxColdGrowth = try value.percentage()
        }
      }
    }
    let formatField = top.optional("format")
    let format =
      try formatField.map { field -> OrderfileFormat in
        let text = try field.string()
        guard let format = OrderfileFormat(rawValue: text) else {
          throw field.error(
            "'\(text)' is not a format: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return format
      } ?? .lld
    let runs = try top.optional("runs")?.positiveInteger() ?? 5
    let recordsData = try top.optional("data")?.boolean() ?? false
    if recordsData, case .instrumented = recording {
      throw try top.required("data").error(
        "an instrumented build's runtime records no data: `data: true` records the release binaries")
    }
    let work = absolute.path(try top.optional("work")?.string() ?? ".orderfile")

    var configuration = RegenerationConfiguration(
      file: file, projectDirectory: absolute.directory,
      orderfileDirectory: absolute.path(try top.required("orderfiles").string()), format: format,
      workDirectory: work,
      report: try top.optional("report").map { absolute.path(try $0.string()) } ?? work + "/report.md",
      build: try top.required("build").string(), relink: try top.required("relink").string(),
      binaries: binaries.map { .init(module: $0.module, path: absolute.path($0.path)) },
      recording: {
        if case .instrumented(let build, let binaries, let compiler) = recording {
          return .instrumented(
            build: build, binaries: binaries.map { .init(module: $0.module, path: absolute.path($0.path)) },
            compiler: compiler)
        }
        return .release
      }(), scenarios: scenarios, runs: runs, gates: gates,
      ignoreChurnBelow: try top.optional("ignore-churn-below")?.percentage() ?? Percentage(0))
    configuration.recordsData = recordsData
    return configuration
  }

  /// `module: path` pairs, in the file's order.
  static func binaries(_ field: Fields) throws -> [RegenerationConfiguration.Binary] {
    let fields = try field.mapping(known: nil)
    guard !fields.keys.isEmpty else {
      throw field.error("name at least one release binary: `<module file name>: <path>`")
    }
    return try fields.keys.map { module in
      let path = try fields.required(module).string()
      guard !path.isEmpty else { throw try fields.required(module).error("empty path") }
      return .init(module: module, path: path)
    }
  }

  static func absolute(_ path: String, in directory: String) -> String {
    PathName.absolute(path, in: directory)
  }

  static func line(of error: YamlError) -> Int {
    switch error {
    case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
      return mark.line
    default:
      return 0
    }
  }

  static func problem(of error: YamlError) -> String {
    switch error {
    case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
      return problem
    default:
      return "\(error)"
    }
  }
}

/// Resolves paths of the file against the project directory.
struct AbsolutePaths {
  var directory: String
  func path(_ path: String) -> String { ConfigurationReader.absolute(path, in: directory) }
}

/// One node of the configuration with the key path and line its errors name.
struct Fields {
  var node: Node
  var key: String
  var file: String
  /// The keys of a mapping, in the file's order (set by `mapping(known:)`).
  var keys: [String] = []

  var line: Int { node.mark.map { $0.line } ?? 0 }

  func error(_ message: String) -> RegenerationError {
    .configuration(file: file, line: line, key: key, message: message)
  }

  private func child(_ name: String) -> String { key.isEmpty ? name : "\(key).\(name)" }

  /// This node as a mapping whose keys are all in `known` (any keys when nil).
  func mapping(known: [String]?) throws -> Fields {
    guard let mapping = node.mapping else { throw error("expected a mapping of `key: value` lines") }
    var result = self
    result.keys = []
    for (keyNode, _) in mapping {
      guard let name = keyNode.string else { throw error("keys must be text") }
      if let known, !known.contains(name) {
        let nearest = known.min { TextFormatting.editDistance($0, name) < TextFormatting.editDistance($1, name) }
        let hint =
          nearest.map {
            TextFormatting.editDistance($0, name) <= max(2, name.count / 3) ? " (did you mean '\($0)'?)" : ""
          } ?? ""
        throw RegenerationError.configuration(
          file: file, line: keyNode.mark?.line ?? line, key: child(name),
          message: "unknown key\(hint); known keys: \(known.joined(separator: ", "))")
      }
      result.keys.append(name)
    }
    return result
  }

  func optional(_ name: String) -> Fields? {
    guard let value = node.mapping?[name] else { return nil }
    return Fields(node: value, key: child(name), file: file)
  }

  func required(_ name: String) throws -> Fields {
    guard let field = optional(name) else { throw error("missing key '\(child(name))'") }
    return field
  }

  func scalarText() throws -> String {
    guard let scalar = node.scalar else { throw error("expected a single value") }
    return scalar.string
  }

  func string() throws -> String {
    let text = try scalarText()
    guard !text.isEmpty else { throw error("expected a value, found nothing") }
    return text
  }

  /// `true` or `false`.
  func boolean() throws -> Bool {
    switch try scalarText() {
    case "true": return true
    case "false": return false
    case let text: throw error("'\(text)' is not true or false")
    }
  }

  /// A list of words, or one string split at spaces (no shell: quote nothing).
  func words() throws -> [String] {
    if let sequence = node.sequence {
      return try sequence.enumerated().map { index, element in
        try Fields(node: element, key: "\(key)[\(index)]", file: file).scalarText()
      }
    }
    return try string().split(separator: " ").map(String.init)
  }

  func positiveNumber() throws -> Double {
    let text = try string()
    guard let value = Double(text), value.isFinite, value > 0 else { throw error("'\(text)' is not a positive number") }
    return value
  }

  func positiveInteger() throws -> Int {
    let text = try string()
    guard let value = Int(text), value > 0 else { throw error("'\(text)' is not a positive whole number") }
    return value
  }

  func rate() throws -> Rate {
    let text = try scalarText()
    guard let value = Rate(argument: text) else { throw error("'\(text)' is not a share: 0.9 or 90%") }
    return value
  }

  func percentage() throws -> Percentage {
    let text = try string()
    guard let value = Percentage(argument: text) else { throw error("'\(text)' is not a percentage: 2 or 2%") }
    return value
  }
}

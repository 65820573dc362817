import Foundation
import OrderfileSupport

/// What can stop `orderfile regenerate`.
public enum RegenerationError: LocalizedError, ExitStatusProviding, Equatable {
  /// The configuration file does not exist or cannot be read.
  case configurationNotFound(path: String)
  /// The configuration is not valid: `line` (1-based, 0 when unknown) and `key` (a dotted
  /// path such as `scenarios[1].command`) say where.
  case configuration(file: String, line: Int, key: String, message: String)
  /// A configured command (build, relink) ended with a failure; its output is in `log`.
  case commandFailed(step: String, status: Int32, log: String)
  /// A scenario's program ended with a failure on one run; its output is in `log`.
  case scenarioFailed(scenario: String, run: Int, status: Int32, log: String)
  /// A module of `binaries` has no file after the build.
  case binaryNotBuilt(module: String, path: String, step: String)
  /// A release binary has no GNU build-id, so its traces cannot be told from the relinked file.
  case noBuildID(module: String, path: String)
  /// No run recorded any module of `binaries`.
  case nothingRecorded(modules: [String])
  /// `data: true`, but the in-process recorder that records data is not at `path`.
  case noInProcessRecorder(path: String?)

  public var errorDescription: String? {
    switch self {
    case .configurationNotFound(let path):
      return "no configuration file at '\(path)' (write one as in Examples/ci/orderfile.yml, or pass --config)"
    case .configuration(let file, let line, let key, let message):
      let place = line > 0 ? "\(file):\(line)" : file
      return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    case .commandFailed(let step, let status, let log):
      return "the \(step) command failed with status \(status); its output: \(log)"
    case .scenarioFailed(let scenario, let run, let status, let log):
      return "scenario '\(scenario)' run \(run) exited with status \(status); its output: \(log)"
    case .binaryNotBuilt(let module, let path, let step):
      return "binaries.\(module): '\(path)' does not exist after the \(step) command"
    case .noBuildID(let module, let path):
      return
        "binaries.\(module): '\(path)' has no GNU build-id: link it with -Wl,--build-id, so that its traces are told from the relinked binary"
    case .nothingRecorded(let modules):
      return
        "no run recorded any of the configured modules (\(modules.joined(separator: ", "))): check binaries and the scenarios' commands"
    case .noInProcessRecorder(let path):
      return
        "data: true records with the in-process recorder, which is not \(path.map { "at '\($0)'" } ?? "installed") (Scripts/build-runtime builds it beside the runtime)"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .configurationNotFound: return .noInput
    case .configuration: return .dataError
    case .commandFailed, .scenarioFailed, .binaryNotBuilt: return .commandFailed
    case .noBuildID, .nothingRecorded: return .dataError
    case .noInProcessRecorder: return .unavailable
    }
  }
}

extension ExitStatus {
  /// A command the configuration names (build, relink, a scenario) failed.
  public static let commandFailed = ExitStatus(rawValue: 2)
}

import Foundation
import OrderfileSupport

/// Why traces could not be merged.
public enum MergeError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// A `TRACE:WEIGHT` argument whose weight is not a positive number.
  case badWeight(argument: String, weight: String)
  /// The weights are each fine but add up to more than a `Double` holds: each argument
  /// and its weight.
  case weightsOverflow(weights: [String])
  /// No traces were given.
  case noTraces
  /// The same module was recorded from two different builds (its build-ids differ), and
  /// mixed builds were not allowed.
  case mixedBuilds(module: String, trace: String, buildID: String, otherTrace: String, otherBuildID: String)
  /// The requested module is in none of the traces.
  case noSuchModule(name: String, available: [String])
  /// With one orderfile per module, `--previous` must name the directory of the previous ones.
  case previousNotDirectory(path: String)
  /// None of the traces has a record in its launch window: there is nothing to order.
  case noLaunchRecords(traces: [String])

  public var errorDescription: String? {
    switch self {
    case .badWeight(let argument, let weight):
      return "'\(argument)': weight '\(weight)' is not a positive number (write TRACE:WEIGHT, e.g. cold.trace:2)"
    case .weightsOverflow(let weights):
      return
        "the weights add up to more than the largest number (\(weights.joined(separator: " + "))): scale them down, keeping their ratios"
    case .noTraces:
      return "no traces to merge"
    case .mixedBuilds(let module, let trace, let buildID, let otherTrace, let otherBuildID):
      return
        "module '\(module)' comes from different builds: build-id \(buildID) in \(trace) but \(otherBuildID) in \(otherTrace); record every run from one build, or pass --allow-mixed-builds to merge by function name"
    case .noSuchModule(let name, let available):
      return "no trace has a module matching '\(name)'; the traces have: \(available.joined(separator: ", "))"
    case .previousNotDirectory(let path):
      return "--previous: with --output-dir give the directory of the previous orderfiles, not '\(path)'"
    case .noLaunchRecords(let traces):
      return
        "none of the \(traces.count) traces has launch records (\(traces.joined(separator: ", "))): each recorded process ran none of its modules' functions in its launch window"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .badWeight, .weightsOverflow, .noTraces, .previousNotDirectory: return .usage
    case .mixedBuilds, .noSuchModule, .noLaunchRecords: return .dataError
    }
  }
}

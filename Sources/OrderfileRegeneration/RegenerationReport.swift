import OrderfileDiff
import OrderfileSupport

/// What `orderfile regenerate` did, as data; the text, Markdown and JSON renderers turn it
/// into the summary on stdout and the merge-request body.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md). Paths are
/// relative to the project directory when they lie inside it, so that two runs of one
/// project give the same report.
public struct RegenerationReport: Codable, Sendable, Equatable {
  public enum Outcome: String, Codable, Sendable {
    /// The regenerated orderfiles equal the committed ones (or only reorder them below
    /// `ignore-churn-below`): nothing was written.
    case noChange
    /// The committed orderfiles were replaced.
    case replaced
    /// The order changed and every gate passed; with `--check` nothing was replaced.
    case changed
    /// A gate failed: nothing was replaced.
    case gateFailed
  }

  public struct Scenario: Codable, Sendable, Equatable {
    public var name: String
    public var weight: Double
    public var runs: Int
  }

  /// Launch pages of one page size: the binary as it shipped against the relinked one.
  public struct Pages: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    /// The fewest pages the launch functions fit in.
    public var lowerBound: Int
    /// base: the shipped binary (with the committed orderfile); head: the relinked one.
    public var pages: PageComparison.Delta
  }

  /// How much of the committed orderfile the code change left behind.
  public struct Decay: Codable, Sendable, Equatable {
    /// Entries of the committed orderfile.
    public var previousEntries: Int
    /// Those the shipped binary no longer has (renamed, removed or inlined).
    public var goneEntries: Int
    public var goneShare: Double
    /// Up to ten of them, in the committed order.
    public var gone: [String]
  }

  /// How the relinked binary follows its new orderfile.
  public struct Verified: Codable, Sendable, Equatable {
    public var entries: Int
    public var present: Int
    public var inOrder: Int
    public var passed: Bool
  }

  public struct Module: Codable, Sendable, Equatable {
    public var module: String
    /// The committed orderfile this replaces (or would create).
    public var orderfile: String
    public var hadCommitted: Bool
    /// The regenerated orderfile differs from the committed one.
    public var changed: Bool
    /// A pure reordering below `ignore-churn-below`: the committed one is kept.
    public var keptCommitted: Bool
    /// The lowest match rate of any run against the shipped binary.
    public var matchRate: Double
    public var diff: DiffReport
    public var verified: Verified
    /// Simulated launch pages (4 KiB and 16 KiB) of the first run's launch, on the binary
    /// as it shipped and as relinked: both real layouts, no orderfile simulated.
    public var pages: [Pages]
    /// Launch pages the first scenario really touched in the shipped and the relinked
    /// executable, counted by the page probe (nil without one, or for a shared library):
    /// see `RegenerationOptions.pageProbe`.
    public var measuredPages: [Pages]?
    /// With the `max-cold-growth` gate, for the first scenario's program: what a cold launch
    /// read of its shipped and of its relinked file, by section kind.
    public var coldLaunch: ColdLaunchComparison? = nil
    /// Present when there was a committed orderfile.
    public var decay: Decay?
  }

  /// A gate a module failed.
  public struct GateFailure: Codable, Sendable, Equatable {
    public var module: String
    public var gate: Gate
    public var message: String
  }

  /// Wall time of one step, with `--timings`.
  public struct StepTime: Codable, Sendable, Equatable {
    public var step: String
    public var seconds: Double
  }

  public var outcome: Outcome
  public var configuration: String
  public var orderfileDirectory: String
  /// `release` (the shipped binaries, without a rebuild) or `instrumented`.
  public var recorded: String
  public var runs: Int
  public var scenarios: [Scenario]
  public var modules: [Module]
  public var failedGates: [GateFailure]
  /// Where the Markdown body went.
  public var report: String
  public var steps: [StepTime]?
  public var wallSeconds: Double?
}

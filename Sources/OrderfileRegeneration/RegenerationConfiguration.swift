import Foundation
import OrderfileBuild
import OrderfileLayout
import OrderfileOrdering
import OrderfileSupport

/// What `orderfile regenerate` does for one project, as its configuration file says.
///
/// Paths are absolute here: relative ones in the file start at the file's directory, the
/// project directory, where the configured commands run too.
public struct RegenerationConfiguration: Sendable, Equatable {
  /// One release binary the project ships, by the module (file) name its orderfile is named after.
  public struct Binary: Sendable, Equatable {
    /// The module's name, e.g. `app` or `libcore.so.0`: its orderfile is `<module>.<ext>`. The
    /// recorded module it is follows from `path` (`ModuleFile`: build-id, real file, file name),
    /// so a library may be given by its SONAME link while the trace names its real file.
    public var module: String
    public var path: String

    public init(module: String, path: String) {
      self.module = module
      self.path = path
    }
  }

  /// One way the program is launched, recorded `runs` times.
  public struct Scenario: Sendable, Equatable {
    public var name: String
    /// How much this launch counts in the merge against the others.
    public var weight: Double
    /// The program: a module of `binaries` (replaced by the binary recorded), or a path or
    /// a name on PATH.
    public var program: String
    public var arguments: [String]
    /// Variables added to the program's environment, sorted by name.
    public var environment: [String: String]
    /// Without a rebuild: end the launch window at the first call of one of these functions.
    public var until: [String]
    /// End the launch window this many milliseconds after the start.
    public var timeLimitMilliseconds: Int?
  }

  /// Which build is recorded.
  public enum Recording: Sendable, Equatable {
    /// The release binaries themselves, with first-entry breakpoints: what the linker places.
    case release
    /// An instrumented build of its own, made by `build` (which sees `ORDERFILE_CFLAGS` and
    /// `ORDERFILE_LDFLAGS` for `compiler`), its binaries by module.
    case instrumented(build: String, binaries: [Binary], compiler: InstrumentingCompiler)
  }

  /// The gates, applied to each module on its own; a `Gate` names each.
  public struct Gates: Sendable, Equatable {
    /// Fail when a module's lowest match rate of any run is below this.
    public var minMatch: Rate?
    /// Fail when a relinked binary holds less than this share of its orderfile's entries, or
    /// has less than this share of them in order (as `verify` checks it).
    public var minInOrder: Rate
    /// Fail when a module's launch pages (4 KiB or 16 KiB) grow by more than this many percent.
    public var maxPageGrowth: Percentage?
    /// Fail when what a cold launch of the first scenario reads of a program's file (majors
    /// with perf, else pages read) grows by more than this many percent.
    public var maxColdGrowth: Percentage?
    public init(
      minMatch: Rate? = nil, minInOrder: Rate = LayoutVerifier.defaultMinInOrder, maxPageGrowth: Percentage? = nil,
      maxColdGrowth: Percentage? = nil
    ) {
      self.minMatch = minMatch
      self.minInOrder = minInOrder
      self.maxPageGrowth = maxPageGrowth
      self.maxColdGrowth = maxColdGrowth
    }
  }

  /// The configuration file, as given.
  public var file: String
  /// Where the commands run and relative paths start: the file's directory.
  public var projectDirectory: String
  /// The committed orderfiles, `<module>.<ext>` each.
  public var orderfileDirectory: String
  public var format: OrderfileFormat
  /// Scratch space for traces, logs and the regenerated orderfiles.
  public var workDirectory: String
  /// Where the merge-request body (Markdown) goes.
  public var report: String
  /// Builds the release binaries as they ship, with the committed orderfiles.
  public var build: String
  /// Relinks them with the regenerated orderfiles, found in `$ORDERFILE_NEW_DIR`.
  public var relink: String
  public var binaries: [Binary]
  public var recording: Recording
  public var scenarios: [Scenario]
  public var runs: Int
  public var gates: Gates
  /// A pure reordering (nothing added or removed) below this churn keeps the committed orderfile.
  public var ignoreChurnBelow: Percentage
  /// Record the launch's read-only data too (`data: true`, as `record --data`): the release
  /// binaries from inside, so that the orderfiles place it.
  public var recordsData = false
}

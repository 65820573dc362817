import OrderfileSupport

/// What the tool's own process sets up before a command runs: only the executable calls it,
/// never a program (a test runner) that makes requests of this module itself.
public enum ToolProcess {
  /// Orphans of the programs the tool runs become its children (`ProgramEnding.adoptOrphans`),
  /// so that a daemon an app starts at launch is ended with it at the launch's end.
  public static func prepare() {
    ProgramEnding.adoptOrphans()
  }
}

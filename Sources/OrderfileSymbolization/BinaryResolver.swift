/// Finds the binary a trace recorded for a module and opens it, once per file however
/// often it is asked for.
///
/// Every command that symbolizes a trace (generate, merge, estimate, report) finds a
/// module's binary the same way: by the path and build-id the trace recorded, then in the
/// user's search paths (see `BinaryLocator.locate`). This is the one place that does it.
public final class BinaryResolver {
  /// Files or directories to look in for binaries, by build-id.
  public let searchPaths: [String]
  private let open: (String) throws -> any Symbolizer
  private var opened: [String: any Symbolizer] = [:]

  /// - Parameter open: opens a binary; tests pass a fake.
  public init(
    searchPaths: [String] = [],
    open: @escaping (String) throws -> any Symbolizer = { try ELFSymbolizer.withSymbols(path: $0) }
  ) {
    self.searchPaths = searchPaths
    self.open = open
  }

  /// The path of the binary recorded at `recordedPath` with `buildID` (empty when the
  /// trace recorded none).
  public func locate(recordedPath: String, buildID: [UInt8]) throws -> String {
    try BinaryLocator.locate(
      recordedPath: recordedPath, buildID: buildID.isEmpty ? nil : BuildID(buildID), searchDirectories: searchPaths)
  }

  /// That binary, opened.
  public func symbolizer(recordedPath: String, buildID: [UInt8]) throws -> any Symbolizer {
    try symbolizer(at: locate(recordedPath: recordedPath, buildID: buildID))
  }

  /// The binary at `path`, opened on first use.
  public func symbolizer(at path: String) throws -> any Symbolizer {
    if let symbolizer = opened[path] { return symbolizer }
    let symbolizer = try open(path)
    opened[path] = symbolizer
    return symbolizer
  }
}

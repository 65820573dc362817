import Foundation

/// Locations inside this package and its build products.
public enum PackagePaths {
  /// The package root, found from this file's own path.
  public static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  public static var fixtures: String { root + "/Tests/Fixtures" }
  public static var runtimeSources: String { root + "/Sources/OrderfileRuntime" }
  public static var runtimeInclude: String { runtimeSources + "/include" }
  /// Where `orderfile_trace_format.h` is: the runtime's sources include it from here.
  public static var traceFormatInclude: String { root + "/Sources/OrderfileTraceFormat/include" }

  /// The directory of the running test bundle, where SwiftPM also puts the `orderfile` executable.
  public static let binaryDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var url = URL(fileURLWithPath: exe)
    // swift test runs .build/<triple>/<config>/<name>PackageTests.xctest
    url.deleteLastPathComponent()
    return url.path
  }()

  /// The built `orderfile` command-line tool.
  public static var orderfileExecutable: String { binaryDirectory + "/orderfile" }
  /// The page probe `Scripts/build-runtime` builds beside the runtime (as `Scripts/test` runs it).
  public static var pageProbe: String { binaryDirectory + "/libOrderfilePageProbe.so" }
}

extension PackagePaths {
  /// Where a file of C or Swift under Sources, other than `definition` (a path under
  /// Sources), spells one of `literals` as a quoted string: each a line naming the file and
  /// the literal. A fact defined once in `definition` has no such copies.
  public static func sourcesSpelling(_ literals: [String], besides definition: String) throws -> [String] {
    let sources = root + "/Sources"
    let files = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
      .filter { [".c", ".h", ".swift"].contains(where: $0.hasSuffix) && $0 != definition }.sorted()
    guard files.count > 100 else { throw TestSupportError("only \(files.count) sources found under \(sources)") }
    var copies: [String] = []
    for file in files {
      let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
      for literal in literals where text.contains("\"\(literal)\"") {
        copies.append("Sources/\(file) spells \"\(literal)\"")
      }
    }
    return copies
  }
}

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

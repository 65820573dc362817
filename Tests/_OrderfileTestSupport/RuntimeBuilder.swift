import Foundation

/// Builds the C runtime from its sources into a shared library, once per test process.
public enum RuntimeBuilder {
  private static let cache = Locked<String?>(nil)

  /// The directory holding a freshly built `libOrderfileRuntime.so`.
  public static func libraryDirectory() throws -> String {
    try cache.withLock { cached in
      if let cached { return cached }
      let keep = try keptDirectory("/tmp/orderfile-runtime.XXXXXX")
      let sources = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.runtimeSources)
        .filter { $0.hasSuffix(".c") }.sorted().map { PackagePaths.runtimeSources + "/" + $0 }
      try runChecked(
        Toolchain.clang,
        ["-O2", "-g", "-fPIC", "-shared", "-I", PackagePaths.runtimeInclude, "-I", PackagePaths.traceFormatInclude]
          + sources + ["-o", keep + "/libOrderfileRuntime.so", "-lpthread"])
      cached = keep
      return keep
    }
  }
}

extension RuntimeBuilder {
  /// A new directory from a mkdtemp template. Not a TemporaryDirectory: what is built there
  /// must outlive every test of the process.
  static func keptDirectory(_ template: String) throws -> String {
    var template = Array(template.utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw TestSupportError("mkdtemp failed for the runtime build")
    }
    return String(cString: created)
  }

  private static let scriptOutput = Locked<String?>(nil)

  /// The directory where `Scripts/build-runtime` put every variant of the runtime (the shared
  /// library and both archives), built once per test process.
  public static func scriptBuildDirectory() throws -> String {
    try scriptOutput.withLock { cached in
      if let cached { return cached }
      let keep = try keptDirectory("/tmp/orderfile-runtime-script.XXXXXX")
      try runChecked(PackagePaths.root + "/Scripts/build-runtime", [keep])
      cached = keep
      return keep
    }
  }
}

/// A lock around a value, for test-process-wide caches.
public final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  public init(_ value: Value) { self.value = value }
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

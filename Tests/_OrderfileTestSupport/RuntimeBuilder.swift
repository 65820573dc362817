import Foundation

/// Builds the C runtime from its sources into a shared library, once per test process.
public enum RuntimeBuilder {
  private static let cache = Locked<String?>(nil)

  /// The directory holding a freshly built `libOrderfileRuntime.so`.
  public static func libraryDirectory() throws -> String {
    try cache.withLock { cached in
      if let cached { return cached }
      // Not a TemporaryDirectory: the library must outlive every test of the process.
      var template = Array(("/tmp/orderfile-runtime.XXXXXX").utf8CString)
      guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw TestSupportError("mkdtemp failed for the runtime build")
      }
      let keep = String(cString: created)
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

import Foundation

/// The C runtime the tests link and preload: the libraries `Scripts/build-runtime` makes,
/// the one place that writes the runtime's compile flags, so that every test runs the
/// runtime as it ships (its soname, its visibility, its archives).
public enum RuntimeBuilder {
  private static let cache = Locked<String?>(nil)

  /// Every library `Scripts/build-runtime` makes.
  public static let libraries = [
    "libOrderfileRuntime.so", "libOrderfileRuntime.a", "libOrderfileRuntimeEmbedded.a", "libOrderfilePageProbe.so",
  ]

  /// The directory holding the runtime's libraries (`libOrderfileRuntime.so`, both archives
  /// and the page probe). Taken from beside the test binary when `Scripts/test` built them
  /// there after the last change to their sources or to the script; otherwise the script
  /// builds them into a directory of their own, once per test process.
  public static func libraryDirectory() throws -> String {
    try cache.withLock { cached in
      if let cached { return cached }
      if isUpToDate(PackagePaths.binaryDirectory) {
        cached = PackagePaths.binaryDirectory
        return PackagePaths.binaryDirectory
      }
      let keep = try keptDirectory("/tmp/orderfile-runtime.XXXXXX")
      try runChecked(PackagePaths.root + "/Scripts/build-runtime", [keep])
      cached = keep
      return keep
    }
  }

  /// Whether `directory` holds every library, each newer than every input of the script.
  public static func isUpToDate(_ directory: String) -> Bool {
    let built = libraries.compactMap { modificationTime(directory + "/" + $0) }
    guard built.count == libraries.count, let oldest = built.min() else { return false }
    let inputs =
      [
        PackagePaths.runtimeSources, PackagePaths.traceFormatInclude, PackagePaths.root + "/Sources/OrderfilePageProbe",
      ].flatMap(files(below:)) + [PackagePaths.root + "/Scripts/build-runtime"]
    return inputs.allSatisfy { (modificationTime($0) ?? .distantFuture) <= oldest }
  }

  private static func files(below directory: String) -> [String] {
    let names = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
    return [directory] + names.map { directory + "/" + $0 }
  }

  private static func modificationTime(_ path: String) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
  }

  /// A new directory from a mkdtemp template. Not a TemporaryDirectory: what is built there
  /// must outlive every test of the process.
  static func keptDirectory(_ template: String) throws -> String {
    var template = Array(template.utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw TestSupportError("mkdtemp failed for the runtime build")
    }
    return String(cString: created)
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

import Foundation
import OrderfileSupport

/// The llvm-bolt executable, and the merge-fdata beside it.
public struct BoltTool: Sendable, Equatable {
  /// The absolute path of llvm-bolt.
  public var path: String

  /// The names tried on `PATH`, newest first: Debian's `bolt-22` installs versioned names,
  /// an LLVM build the plain one.
  public static let candidateNames = ["llvm-bolt-22", "llvm-bolt"]
  /// Where Debian's package puts the unversioned tools.
  public static let candidateDirectories = ["/usr/lib/llvm-22/bin"]

  public init(path: String) { self.path = path }

  /// The llvm-bolt at `explicit`, or the first one found on `PATH` and in LLVM's directory.
  public static func locate(explicit: String? = nil) throws -> BoltTool {
    if let explicit {
      let resolved = ProcessRunner.resolve(explicit)
      guard FileManager.default.isExecutableFile(atPath: resolved) else {
        throw BoltError.notExecutable(path: explicit)
      }
      return BoltTool(path: resolved)
    }
    var searched: [String] = []
    for name in candidateNames {
      let resolved = ProcessRunner.resolve(name)
      searched.append(name)
      if resolved.contains("/"), FileManager.default.isExecutableFile(atPath: resolved) {
        return BoltTool(path: resolved)
      }
    }
    for directory in candidateDirectories {
      let candidate = directory + "/llvm-bolt"
      searched.append(candidate)
      if FileManager.default.isExecutableFile(atPath: candidate) { return BoltTool(path: candidate) }
    }
    throw BoltError.notInstalled(searched: searched)
  }

  /// merge-fdata from the same installation (`merge-fdata-22` beside `llvm-bolt-22`), if any.
  public var mergeFdata: String? {
    let (directory, name) = PathName.split(path)
    let suffix = name.hasPrefix("llvm-bolt") ? String(name.dropFirst("llvm-bolt".count)) : ""
    let candidate = directory + "/merge-fdata" + suffix
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
  }
}

import Foundation
import OrderfileSupport

/// Why the flags for a build could not be given.
public enum BuildError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The orderfile the release build should apply does not exist.
  case noOrderfile(path: String)
  /// The runtime's library and header are not where the tool looks for them.
  case runtimeNotFound(near: String)
  /// The runtime was found, but without the pkg-config and CMake files an install writes.
  case packagesNotInstalled(libraryDirectory: String)

  public var errorDescription: String? {
    switch self {
    case .noOrderfile(let path):
      return "--release: no orderfile at '\(path)'"
    case .runtimeNotFound(let executable):
      return
        "cannot find libOrderfileRuntime.so and orderfile.h near \(executable); build the runtime with 'Scripts/build-runtime <dir of orderfile>' or set ORDERFILE_RUNTIME_DIR and ORDERFILE_INCLUDE_DIR"
    case .packagesNotInstalled(let directory):
      return
        "--packages: no \(RuntimePackages.pkgConfigName).pc or \(RuntimePackages.cmakePackage)Config.cmake beside the runtime in '\(directory)'; Scripts/install writes them"
    }
  }

  /// Both are fixed by what the user passes or sets, not by fixing a file.
  public var exitStatus: ExitStatus { .usage }
}

import Foundation
import OrderfileSupport

/// The two rustc of this kind of machine: Debian's (`apt-get install rustc`, 1.63 on
/// Debian 12) and rustup's (a current stable, first on PATH where rustup installed it).
public enum RustToolchains {
  /// Debian's rustc, when installed.
  public static let debian: String? = {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/rustc") ? "/usr/bin/rustc" : nil
  }()

  /// rustup's rustc: on PATH unless that is Debian's, else where rustup installs it.
  public static let rustup: String? = program("rustc", notAt: "/usr/bin/rustc")

  /// `name` (cargo, rustc) on PATH unless it is `excluded`, else where rustup installs it
  /// ($CARGO_HOME/bin, ~/.cargo/bin).
  public static func program(_ name: String, notAt excluded: String? = nil) -> String? {
    let onPath = ProcessRunner.resolve(name)
    if onPath.hasPrefix("/") && onPath != excluded { return onPath }
    let environment = ProcessInfo.processInfo.environment
    let homes = [environment["CARGO_HOME"], environment["HOME"].map { $0 + "/.cargo" }].compactMap { $0 }
    return homes.map { $0 + "/bin/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}

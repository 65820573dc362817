import Foundation
import OrderfileSupport

/// The pkg-config and CMake packages of an installed runtime (`Scripts/install` writes
/// them beside the library), and how a build uses them.
public struct RuntimePackages: Sendable, Equatable, Codable {
  /// The installation prefix: the folder above the runtime's `lib`.
  public var prefix: String
  /// The folder holding `orderfile-runtime.pc`.
  public var pkgConfigDirectory: String
  /// The folder holding `OrderfileRuntimeConfig.cmake`.
  public var cmakeDirectory: String

  public static let pkgConfigName = "orderfile-runtime"
  public static let cmakePackage = "OrderfileRuntime"
  public static let cmakeTarget = "OrderfileRuntime::OrderfileRuntime"

  public init(prefix: String, pkgConfigDirectory: String, cmakeDirectory: String) {
    self.prefix = prefix
    self.pkgConfigDirectory = pkgConfigDirectory
    self.cmakeDirectory = cmakeDirectory
  }

  /// The packages installed with `runtime`, or nil when it was not installed (a runtime
  /// built into a checkout's build folder has neither file).
  public static func installed(with runtime: RuntimeLocation) -> RuntimePackages? {
    let lib = runtime.libraryDirectory
    let pkgConfig = lib + "/pkgconfig"
    let cmake = lib + "/cmake/" + cmakePackage
    let fileManager = FileManager.default
    guard fileManager.fileExists(atPath: pkgConfig + "/\(pkgConfigName).pc"),
      fileManager.fileExists(atPath: cmake + "/\(cmakePackage)Config.cmake")
    else { return nil }
    return RuntimePackages(
      prefix: (PathName.directory(of: lib) as NSString).standardizingPath,
      pkgConfigDirectory: pkgConfig, cmakeDirectory: cmake)
  }

  /// The lines that link the runtime through pkg-config (Make) and through CMake's
  /// find_package, or those of one build system; the search paths are spelt out only for a
  /// prefix the tools do not search by default.
  public func snippet(for system: BuildSystem? = nil) -> String {
    let standard = ["/usr", "/usr/local"].contains(prefix)
    let pkgConfigPath = standard ? "" : "\n#   export PKG_CONFIG_PATH=\(BuildFlags.shellQuote(pkgConfigDirectory))"
    let cmakePrefix = standard ? "" : " (configure with -DCMAKE_PREFIX_PATH=\(BuildFlags.shellQuote(prefix)))"
    let make = """
      # Make, through pkg-config (the Cflags instrument and define ORDERFILE_INSTRUMENTED):\(pkgConfigPath)
      CFLAGS += $(shell pkg-config --cflags \(Self.pkgConfigName))
      CXXFLAGS += $(shell pkg-config --cflags \(Self.pkgConfigName))
      LDLIBS += $(shell pkg-config --libs \(Self.pkgConfigName))
      """
    // link_libraries, not target_link_libraries: it reaches every target defined after it,
    // the project's static and shared libraries too (whose code a launch mostly runs), and
    // it cannot clash with a project that uses target_link_libraries' plain signature.
    let cmake = """
      # CMake, through find_package\(cmakePrefix):
      # in the top-level CMakeLists.txt, before the targets; every target after it (the
      # project's own libraries too) is instrumented and links the runtime.
      find_package(\(Self.cmakePackage) REQUIRED)
      link_libraries(\(Self.cmakeTarget))
      """
    switch system {
    case .make: return make
    case .cmake: return cmake
    case nil, .swiftpm, .meson: return make + "\n" + cmake
    }
  }

  /// Both snippets, Make's and CMake's.
  public var snippet: String { snippet(for: nil) }
}

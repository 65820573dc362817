import Foundation
import OrderfileSupport

/// Why the flags for a build could not be given.
public enum BuildError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The orderfile the release build should apply does not exist.
  case noOrderfile(path: String)
  /// Several orderfiles were given and one is not a `module=orderfile` pair.
  case notAPair(String)
  /// Two orderfiles were given for one module.
  case moduleNamedTwice(module: String)
  /// Several orderfiles were given for output that links one module (`--ldflags`, Swift,
  /// Rust, SwiftPM): only a build system's snippet gives each target its own.
  case severalOrderfiles(modules: [String])
  /// The runtime's library and header are not where the tool looks for them.
  case runtimeNotFound(near: String)
  /// The runtime was found, but without the pkg-config and CMake files an install writes.
  case packagesNotInstalled(libraryDirectory: String)
  /// `--target` names no triple the tool knows (architecture aarch64 or x86_64, system linux-gnu or linux-android).
  case unknownTarget(String)
  /// No cross compiler of this kind exists for the target (gcc for Android).
  case noCrossCompiler(target: String, compiler: String)
  /// The runtime found is built for another machine than the target.
  case runtimeForOtherMachine(library: String, built: String, target: String)
  /// The language has no cross build the tool can print (Swift needs an SDK of the target).
  case noCrossBuild(language: String)
  /// No library of the runtime's family built for `machine` in any of the places looked at
  /// (`searched`, in order); `triple` is the machine's cross-build triple.
  case noLibraryForMachine(library: String, machine: String, triple: String, searched: [String])

  public var errorDescription: String? {
    switch self {
    case .noOrderfile(let path):
      return "--release: no orderfile at '\(path)'"
    case .notAPair(let argument):
      return
        "--release: '\(argument)' is no module=orderfile pair; with several orderfiles, name each one's module (app=orders/app.order)"
    case .moduleNamedTwice(let module):
      return "--release: module '\(module)' is named twice; give each module one orderfile"
    case .severalOrderfiles(let modules):
      return
        "--release: one orderfile per module (\(modules.joined(separator: ", "))) needs --build-system make, cmake or meson, which give each target its own; these flags link one module"
    case .runtimeNotFound(let executable):
      return
        "cannot find libOrderfileRuntime.so and orderfile.h near \(executable); build the runtime with 'Scripts/build-runtime <dir of orderfile>' or set ORDERFILE_RUNTIME_DIR and ORDERFILE_INCLUDE_DIR"
    case .packagesNotInstalled(let directory):
      return
        "--packages: no \(RuntimePackages.pkgConfigName).pc or \(RuntimePackages.cmakePackage)Config.cmake beside the runtime in '\(directory)'; Scripts/install writes them"
    case .unknownTarget(let triple):
      return
        "--target: unknown triple '\(triple)'; give e.g. aarch64-linux-gnu, aarch64-linux-android34 or x86_64-linux-gnu"
    case .noCrossCompiler(let target, let compiler):
      return "--target \(target): no \(compiler) cross compiler for it; use --compiler clang"
    case .runtimeForOtherMachine(let library, let built, let target):
      return
        "--target \(target): the runtime '\(library)' is built for \(built); cross-build one with 'Scripts/build-runtime --target \(target) DIR' and set ORDERFILE_RUNTIME_DIR=DIR, or install one beside the tool with 'Scripts/install --target \(target)'"
    case .noCrossBuild(let language):
      return
        "--target: no cross build for --language \(language) (it needs an SDK of the target); --target is for C and Rust"
    case .noLibraryForMachine(let library, let machine, let triple, let searched):
      return
        "no \(library) built for \(machine) in \(searched.joined(separator: ", ")): this orderfile was installed without a cross compiler for \(triple); run Scripts/install of orderfile's sources again where one is (clang or \(triple)-gcc with the target's libc, e.g. Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross), or cross-build it there with 'Scripts/build-runtime --target \(triple) DIR' and set ORDERFILE_RUNTIME_DIR=DIR"
    }
  }

  /// Fixed by what the user passes or sets, not by fixing a file; a library that is not
  /// installed is a missing service.
  public var exitStatus: ExitStatus {
    if case .noLibraryForMachine = self { return .unavailable }
    return .usage
  }
}

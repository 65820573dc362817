import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// Where the runtime's header and shared library are.
public struct RuntimeLocation: Sendable, Equatable, Codable {
  public var includeDirectory: String
  public var libraryDirectory: String

  public init(includeDirectory: String, libraryDirectory: String) {
    self.includeDirectory = includeDirectory
    self.libraryDirectory = libraryDirectory
  }

  /// The running tool's executable, where the runtime is looked for.
  public static var runningTool: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }

  /// Finds the runtime next to the running tool.
  ///
  /// Looks at `ORDERFILE_RUNTIME_DIR` / `ORDERFILE_INCLUDE_DIR` first, then
  /// beside the executable (`libOrderfileRuntime.so`), `../lib`, and for the
  /// header `../include` and the package sources when run from a SwiftPM build
  /// directory (`<package>/.build/<triple>/<config>/orderfile`). For a cross build's
  /// `targetTriple`, `../lib/<triple>` comes first (where `Scripts/install --target` puts it).
  public static func find(
    executablePath: String, environment: [String: String], targetTriple: String? = nil
  ) -> RuntimeLocation? {
    let fileManager = FileManager.default
    let binDirectory = PathName.directory(of: executablePath)
    let libraryCandidates = libraryDirectories(
      executablePath: executablePath, environment: environment, targetTriple: targetTriple)
    let includeCandidates =
      [environment["ORDERFILE_INCLUDE_DIR"]].compactMap { $0 } + [
        binDirectory + "/../include",
        binDirectory + "/../../../Sources/OrderfileRuntime/include",
        binDirectory + "/../../Sources/OrderfileRuntime/include",
      ]
    guard
      let library = libraryCandidates.first(where: {
        fileManager.fileExists(atPath: $0 + "/libOrderfileRuntime.so")
      }),
      let include = includeCandidates.first(where: { fileManager.fileExists(atPath: $0 + "/orderfile.h") })
    else { return nil }
    return RuntimeLocation(
      includeDirectory: (include as NSString).standardizingPath,
      libraryDirectory: (library as NSString).standardizingPath)
  }

  /// Where the runtime's libraries are looked for, in order: `ORDERFILE_RUNTIME_DIR`, for a
  /// cross build's `targetTriple` `../lib/<triple>` (where `Scripts/install --target` puts
  /// them), then beside the executable and `../lib`.
  static func libraryDirectories(executablePath: String, environment: [String: String], targetTriple: String?)
    -> [String]
  {
    let binDirectory = PathName.directory(of: executablePath)
    return [environment["ORDERFILE_RUNTIME_DIR"]].compactMap { $0 }
      + [targetTriple.map { binDirectory + "/../lib/" + $0 }].compactMap { $0 } + [
        binDirectory, binDirectory + "/../lib",
      ]
  }

  /// The library `name` of the runtime's family built for `machine`, from the first of
  /// `libraryDirectories` that holds one built for it: a cross-built copy (an arm64
  /// `libOrderfileInProcess.so` in `lib/aarch64-linux-gnu`) is never confused with the
  /// host's. Throws, naming every place looked at, when there is none.
  public static func library(
    named name: String, for machine: ELFMachine, executablePath: String = runningTool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> String {
    let triple = CrossTarget.Architecture(machine: machine).map { CrossTarget(architecture: $0).triple }
    let candidates = libraryDirectories(executablePath: executablePath, environment: environment, targetTriple: triple)
      .map { ($0 + "/" + name as NSString).standardizingPath }
    if let found = candidates.first(where: { ELFMachine.of(fileAt: $0) == machine }) { return found }
    throw BuildError.noLibraryForMachine(
      library: name, machine: machine.displayName, triple: triple ?? machine.displayName, searched: candidates)
  }
}

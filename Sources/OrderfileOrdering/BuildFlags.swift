import Foundation

/// The compilers whose instrumentation the runtime understands.
public enum InstrumentingCompiler: String, CaseIterable, Sendable, Codable {
  case clang
  case gcc

  /// The flag that inserts the entry hooks.
  ///
  /// clang instruments after inlining, so functions inlined away in the
  /// release build are not recorded and the list matches what the linker
  /// will see. gcc has no such mode: it instruments before inlining and keeps
  /// out-of-line copies of inlined functions.
  public var instrumentFlag: String {
    switch self {
    case .clang: return "-finstrument-functions-after-inlining"
    case .gcc: return "-finstrument-functions"
    }
  }
}

/// Where the runtime's header and shared library are.
public struct RuntimeLocation: Sendable, Equatable, Codable {
  public var includeDirectory: String
  public var libraryDirectory: String

  public init(includeDirectory: String, libraryDirectory: String) {
    self.includeDirectory = includeDirectory
    self.libraryDirectory = libraryDirectory
  }

  /// Finds the runtime next to the running tool.
  ///
  /// Looks at `ORDERFILE_RUNTIME_DIR` / `ORDERFILE_INCLUDE_DIR` first, then
  /// beside the executable (`libOrderfileRuntime.so`), `../lib`, and for the
  /// header `../include` and the package sources when run from a SwiftPM build
  /// directory (`<package>/.build/<triple>/<config>/orderfile`).
  public static func find(executablePath: String, environment: [String: String]) -> RuntimeLocation? {
    let fileManager = FileManager.default
    let binDirectory = (executablePath as NSString).deletingLastPathComponent
    let libraryCandidates =
      [environment["ORDERFILE_RUNTIME_DIR"]].compactMap { $0 } + [binDirectory, binDirectory + "/../lib"]
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
}

/// The flags that build a program for recording, and the flags that apply an order.
public struct BuildFlags: Sendable, Equatable, Codable {
  public var compile: [String]
  public var link: [String]

  /// Flags for the instrumented (recording) build.
  public static func instrumented(compiler: InstrumentingCompiler, runtime: RuntimeLocation) -> BuildFlags {
    BuildFlags(
      compile: [compiler.instrumentFlag, "-DORDERFILE_INSTRUMENTED", "-I\(runtime.includeDirectory)"],
      link: [
        "-L\(runtime.libraryDirectory)", "-lOrderfileRuntime", "-Wl,-rpath,\(runtime.libraryDirectory)",
      ])
  }

  /// Flags for the release build that the orderfile at `orderfile` reorders.
  public static func release(orderfile: String, format: OrderfileFormat) -> BuildFlags {
    BuildFlags(
      compile: format.compileFlags,
      link: [format.linkerSelection].compactMap { $0 } + [format.linkerFlag(path: orderfile)])
  }

  /// Shell-quoted, space-separated.
  public static func shellLine(_ flags: [String]) -> String {
    flags.map(shellQuote).joined(separator: " ")
  }

  static func shellQuote(_ word: String) -> String {
    let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_=+/.,:@%".contains($0) }
    return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

import Foundation
import OrderfileOrdering

/// The builds the tool gives flags for.
public enum Build: Sendable, Equatable {
  /// The release build, recorded as it is (`orderfile record --no-rebuild`) and later
  /// relinked with its order: one section per function, symbols kept, a build-id.
  case recordable(format: OrderfileFormat)
  /// The instrumented build that records a launch.
  case instrumented(InstrumentingCompiler)
  /// The release build that applies the orderfile at this path.
  case release(orderfile: String, format: OrderfileFormat)
}

/// The flags that build a program for recording, and the flags that apply an order.
public struct BuildFlags: Sendable, Equatable, Codable {
  public var compile: [String]
  public var link: [String]

  public init(compile: [String], link: [String]) {
    self.compile = compile
    self.link = link
  }

  /// Flags for the instrumented (recording) build.
  ///
  /// The runtime is linked between `--no-as-needed` and `--as-needed`: build systems put
  /// these flags before the objects (CMake's link options do), where a project's
  /// `-Wl,--as-needed` would drop a library nothing before it needs. A build-id lets a
  /// trace name its binary.
  public static func instrumented(compiler: InstrumentingCompiler, runtime: RuntimeLocation) -> BuildFlags {
    BuildFlags(
      compile: [compiler.instrumentFlag, "-DORDERFILE_INSTRUMENTED", "-I\(runtime.includeDirectory)"],
      link: [
        "-L\(runtime.libraryDirectory)", "-Wl,--no-as-needed", "-lOrderfileRuntime", "-Wl,--as-needed",
        "-Wl,-rpath,\(runtime.libraryDirectory)", "-Wl,--build-id",
      ])
  }

  /// Flags for a release build that is recorded without a rebuild: the compile flags the
  /// order needs, the linker that applies it, and a build-id so traces name their binary.
  /// Nothing instruments it; only a stripped symbol table would stop the recording.
  public static func recordable(format: OrderfileFormat) -> BuildFlags {
    BuildFlags(compile: format.compileFlags, link: [format.linkerSelection].compactMap { $0 } + buildID(format))
  }

  /// Flags for the release build that the orderfile at `orderfile` reorders. The ordering
  /// flag comes last.
  public static func release(orderfile: String, format: OrderfileFormat) -> BuildFlags {
    BuildFlags(
      compile: format.compileFlags,
      link: [format.linkerSelection].compactMap { $0 } + buildID(format) + [format.linkerFlag(path: orderfile)])
  }

  /// ld64 writes an LC_UUID of its own; ELF linkers write a build-id only when asked.
  static func buildID(_ format: OrderfileFormat) -> [String] { format == .ld64 ? [] : ["-Wl,--build-id"] }

  /// The flags for `build`. The release flags name the orderfile by its absolute path, so
  /// they work from any directory; the instrumented flags name the runtime found near the
  /// tool at `executablePath` (see `RuntimeLocation.find`).
  public static func forBuild(
    _ build: Build, executablePath: String = RuntimeLocation.runningTool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> BuildFlags {
    switch build {
    case .recordable(let format):
      return .recordable(format: format)
    case .release(let orderfile, let format):
      guard FileManager.default.fileExists(atPath: orderfile) else { throw BuildError.noOrderfile(path: orderfile) }
      return .release(orderfile: URL(fileURLWithPath: orderfile).standardizedFileURL.path, format: format)
    case .instrumented(let compiler):
      guard let runtime = RuntimeLocation.find(executablePath: executablePath, environment: environment) else {
        throw BuildError.runtimeNotFound(near: executablePath)
      }
      return .instrumented(compiler: compiler, runtime: runtime)
    }
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

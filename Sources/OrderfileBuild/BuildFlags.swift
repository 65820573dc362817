import Foundation
import OrderfileOrdering

/// The builds the tool gives flags for.
public enum Build: Sendable, Equatable {
  /// The release build, recorded as it is (`orderfile record --no-rebuild`) and later
  /// relinked with its order: one section per function, symbols kept, a build-id.
  case recordable(format: OrderfileFormat)
  /// The instrumented build that records a launch.
  case instrumented(InstrumentingCompiler)
  /// The release build that applies each module's orderfile to that module's link.
  case release(orders: [TargetOrderfile], format: OrderfileFormat)

  /// The release build of one module, named by the orderfile's file name.
  public static func release(orderfile: String, format: OrderfileFormat) -> Build {
    .release(orders: [TargetOrderfile(orderfile: orderfile, format: format)], format: format)
  }
}

/// The flags that build a program for recording, and the flags that apply an order.
public struct BuildFlags: Sendable, Equatable, Codable {
  public var compile: [String]
  public var link: [String]
  /// The compiler of a cross build (`clang`, or gcc's cross build `aarch64-linux-gnu-gcc`);
  /// nil for a build for this machine, with whatever compiler the build uses.
  public var compiler: String?
  /// The command that runs the built program on this machine (qemu-user, for a cross build
  /// to another architecture); nil when it runs as it is, or only on its device.
  public var emulator: [String]?

  public init(compile: [String], link: [String], compiler: String? = nil, emulator: [String]? = nil) {
    self.compile = compile
    self.link = link
    self.compiler = compiler
    self.emulator = emulator
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

  /// Flags for the release build that the orderfile at `orderfile` reorders: the
  /// recordable build's, with the ordering flag last.
  public static func release(orderfile: String, format: OrderfileFormat) -> BuildFlags {
    recordable(format: format).ordering(orderfile, format: format)
  }

  /// These flags with the flag that applies the orderfile at `orderfile` last: one
  /// module's link.
  public func ordering(_ orderfile: String, format: OrderfileFormat) -> BuildFlags {
    var flags = self
    flags.link.append(format.linkerFlag(path: orderfile))
    return flags
  }

  /// The linker option that aligns every segment for pages of `bytes`, so that the binary
  /// loads where pages are that large (`-z max-page-size`; a multiple of the smaller sizes,
  /// so it loads on those too). Written as `-Wl,` takes it.
  public static func segmentAlignment(pageSize bytes: UInt64) -> String { "-z,max-page-size=\(bytes)" }

  /// These flags with their segments aligned for pages of `bytes` (`segmentAlignment`).
  public func aligned(pageSize bytes: UInt64) -> BuildFlags {
    var flags = self
    flags.link += LanguageBuild.linkerArguments(.c, [Self.segmentAlignment(pageSize: bytes)])
    return flags
  }

  /// ld64 writes an LC_UUID of its own; ELF linkers write a build-id only when asked.
  static func buildID(_ format: OrderfileFormat) -> [String] { format == .ld64 ? [] : ["-Wl,--build-id"] }

  /// The flags for `build`. The release flags name the orderfile by its absolute path, so
  /// they work from any directory; the instrumented flags name the runtime found near the
  /// tool at `executablePath` (see `RuntimeLocation.find`). They link one module: a release
  /// build of several orderfiles throws `BuildError.severalOrderfiles` (a build system's
  /// snippet gives each target its own, see `BuildSystem.snippet`).
  ///
  /// With a `target`, the flags cross-build for it with `compiler` (the instrumented build's
  /// own compiler for that build): see `crossBuilt(for:compiler:)`. The instrumented build
  /// then needs a runtime built for the target, which is checked.
  public static func forBuild(
    _ build: Build, target: CrossTarget? = nil, compiler: InstrumentingCompiler = .clang,
    executablePath: String = RuntimeLocation.runningTool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> BuildFlags {
    let flags: BuildFlags
    var compiler = compiler
    switch build {
    case .recordable(let format):
      flags = .recordable(format: format)
    case .release(let orders, let format):
      guard orders.count <= 1 else { throw BuildError.severalOrderfiles(modules: orders.map(\.module)) }
      let order = try orders.first?.checked()
      flags = order.map { .release(orderfile: $0.orderfile, format: format) } ?? .recordable(format: format)
    case .instrumented(let instrumenting):
      guard
        let runtime = RuntimeLocation.find(
          executablePath: executablePath, environment: environment, targetTriple: target?.triple)
      else {
        throw BuildError.runtimeNotFound(near: executablePath)
      }
      try target?.checkRuntime(runtime)
      flags = .instrumented(compiler: instrumenting, runtime: runtime)
      compiler = instrumenting
    }
    guard let target else { return flags }
    return try flags.crossBuilt(for: target, compiler: compiler)
  }

  /// These flags for a cross build to `target` with `compiler`: clang takes `--target` on
  /// both lines and links with lld (which reads every architecture), gcc is the target's
  /// own cross build; `emulator` runs the result here. gcc's cross build looks for lld
  /// under the target's prefix (`aarch64-linux-gnu-ld.lld`, which no package installs):
  /// `-B` names the folder of the `ld.lld` found (`lldDirectory`).
  public func crossBuilt(
    for target: CrossTarget, compiler: InstrumentingCompiler,
    host: CrossTarget.Architecture? = CrossTarget.hostArchitecture,
    lldDirectory: String? = CrossTarget.lldDirectory
  ) throws -> BuildFlags {
    let crossFlags = target.compilerFlags(compiler)
    let selectsLLD = link.contains("-fuse-ld=lld")
    var linker: [String] = []
    if compiler == .clang && !link.contains(where: { $0.hasPrefix("-fuse-ld=") }) { linker = ["-fuse-ld=lld"] }
    if compiler == .gcc && selectsLLD, let lldDirectory { linker = ["-B" + lldDirectory] }
    return BuildFlags(
      compile: crossFlags + compile, link: crossFlags + linker + link, compiler: try target.compilerCommand(compiler),
      emulator: target.emulator(host: host))
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

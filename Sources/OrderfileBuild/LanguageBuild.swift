import Foundation

/// The languages whose compiler driver takes the flags, and where they go.
///
/// C, C++ and Objective-C builds take compile and link flags (`BuildFlags`). A SwiftPM
/// package takes `swift build` arguments, a cargo crate takes `RUSTFLAGS`: neither compiler
/// has `-finstrument-functions`, so their instrumented builds use SanitizerCoverage's
/// `trace-pc-guard` hooks, which the runtime answers.
public enum Language: String, CaseIterable, Sendable, Codable {
  case c
  case swift
  case rust
}

/// What a Swift or Rust build needs for one of the builds `Build` names.
public struct LanguageBuild: Sendable, Equatable, Codable {
  public var language: Language
  /// `swift build` arguments, or `RUSTFLAGS` words.
  public var arguments: [String]
  /// Arguments of `cargo build` itself besides `--release`, for Rust: the host as
  /// `--target`, which keeps RUSTFLAGS away from build scripts and proc macros (they run
  /// during the build, and rustc loads the macros: instrumented, they would record and
  /// write traces where they run, and linked with the orderfile, lld warns about every
  /// entry they lack). Every Rust build takes it, since the symbols' hashes differ between
  /// a build with `--target` and one without. The instrumented build also gets a target
  /// folder of its own, so the release binary stays. The binary is then
  /// `<target-dir>/<target>/release/<name>`.
  public var cargoArguments: [String]

  public init(language: Language, arguments: [String], cargoArguments: [String] = []) {
    self.language = language
    self.arguments = arguments
    self.cargoArguments = cargoArguments
  }

  /// The arguments for `build` in `language` (`.swift` or `.rust`). The instrumented build
  /// names the runtime found near the tool at `executablePath`; the release build, the
  /// orderfile by its absolute path (see `BuildFlags.forBuild`).
  ///
  /// With a `target` (Rust only), cargo builds for it (`--target aarch64-unknown-linux-gnu`,
  /// whose standard library `rustup target add` installs) and links with the target's C
  /// compiler; the instrumented build needs a runtime built for the target, which is checked.
  public static func forBuild(
    _ build: Build, language: Language, target: CrossTarget? = nil,
    executablePath: String = RuntimeLocation.runningTool,
    environment: [String: String] = [:]
  ) throws -> LanguageBuild {
    if target != nil && language != .rust { throw BuildError.noCrossBuild(language: language.rawValue) }
    let rustTarget = target?.rustTriple ?? hostTriple
    var arguments = recordable(language)
    if let target, target.system == .linuxGNU {
      arguments = ["-C", "linker=" + (try target.compilerCommand(.gcc))] + arguments
    } else if let target {
      arguments = ["-C", "linker=" + target.triple + "-clang"] + arguments
    }
    switch build {
    case .recordable:
      break
    case .release(let orders, _):
      let flags = try BuildFlags.forBuild(build, executablePath: executablePath, environment: environment)
      guard let orderfile = flags.link.last, let path = orders.first?.orderfile else { break }
      arguments += linkerArguments(language, [orderfile.replacingOccurrences(of: "-Wl,", with: "")])
      if language == .rust { arguments += ["--cfg", try relinkKey(orderfile: path)] }
    case .instrumented:
      guard
        let runtime = RuntimeLocation.find(
          executablePath: executablePath, environment: environment, targetTriple: target?.triple)
      else {
        throw BuildError.runtimeNotFound(near: executablePath)
      }
      try target?.checkRuntime(runtime)
      arguments += instrumentation(language) + runtimeArguments(language, runtime.libraryDirectory)
      if language == .rust {
        return LanguageBuild(
          language: language, arguments: arguments,
          cargoArguments: ["--target", rustTarget, "--target-dir", rustInstrumentedTargetDirectory])
      }
    }
    return LanguageBuild(
      language: language, arguments: arguments, cargoArguments: language == .rust ? ["--target", rustTarget] : [])
  }

  /// The release build as it ships and is recorded: one section per function (rustc emits
  /// them by default), ld.lld, a build-id; Rust with one codegen unit, so local names keep
  /// no `.llvm.<hash>` suffix that changes from build to build. A package's C targets
  /// (SwiftNIO's `CNIOLinux`) are compiled by clang, which takes `-ffunction-sections`
  /// through `-Xcc`: without it their launch functions stay where they are.
  static func recordable(_ language: Language) -> [String] {
    switch language {
    case .c: return []
    case .swift:
      return [
        "-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections", "-Xcc", "-ffunction-sections",
        "-Xswiftc", "-use-ld=lld",
      ]
        + linkerArguments(.swift, ["--build-id"])
    case .rust:
      // cargo shows the linker's output only with this lint on: lld's warnings about
      // orderfile entries it cannot find would otherwise go unseen.
      return ["-C", "codegen-units=1", "-C", "link-arg=-fuse-ld=lld"] + linkerArguments(.rust, ["--build-id"])
        + ["-W", "linker-messages"]
    }
  }

  /// A `--cfg` name that changes with the orderfile's contents. cargo does not relink when
  /// only the file a link argument names has changed; a changed RUSTFLAGS makes it build
  /// again, and no code tests this name.
  static func relinkKey(orderfile: String) throws -> String {
    guard let contents = FileManager.default.contents(atPath: orderfile) else {
      throw BuildError.noOrderfile(path: orderfile)
    }
    // FNV-1a: stable across runs and machines, unlike Swift's seeded Hasher.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in contents {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return "orderfile_" + String(hash, radix: 16)
  }

  /// The folder the Rust instrumented build writes into, apart from the release build's.
  public static let rustInstrumentedTargetDirectory = "target/instrumented"

  /// SanitizerCoverage without a fuzzer runtime: through swiftc's frontend (a plain
  /// `-sanitize=fuzzer` links libFuzzer), and as an LLVM pass on stable rustc.
  static func instrumentation(_ language: Language) -> [String] {
    switch language {
    case .c: return []
    case .swift:
      return [
        "-Xswiftc", "-Xfrontend", "-Xswiftc", "-sanitize=fuzzer",
        "-Xswiftc", "-Xfrontend", "-Xswiftc", "-sanitize-coverage=func,trace-pc-guard",
      ]
    case .rust:
      return [
        "-C", "passes=sancov-module", "-C", "llvm-args=-sanitizer-coverage-level=1",
        "-C", "llvm-args=-sanitizer-coverage-trace-pc-guard",
      ]
    }
  }

  /// The runtime library and an rpath to it. For Rust, `-l dylib=` puts the runtime before
  /// libc on the link line; a `link-arg` would come after it.
  static func runtimeArguments(_ language: Language, _ directory: String) -> [String] {
    switch language {
    case .c: return []
    case .swift:
      return [
        "-Xlinker", "-L" + directory, "-Xlinker", "-lOrderfileRuntime", "-Xlinker", "-rpath", "-Xlinker", directory,
      ]
    case .rust:
      return ["-L", "native=" + directory, "-l", "dylib=OrderfileRuntime", "-C", "link-arg=-Wl,-rpath," + directory]
    }
  }

  /// Linker options, as each driver passes them on.
  static func linkerArguments(_ language: Language, _ options: [String]) -> [String] {
    switch language {
    case .c: return options.map { "-Wl," + $0 }
    case .swift: return options.flatMap { ["-Xlinker", $0] }
    case .rust: return options.flatMap { ["-C", "link-arg=-Wl," + $0] }
    }
  }

  /// The command line a user types: `swift build -c release …`, or `RUSTFLAGS='…' cargo
  /// build --release …`.
  public var commandLine: String {
    switch language {
    case .c: return BuildFlags.shellLine(arguments)
    case .swift: return "swift build -c release " + BuildFlags.shellLine(arguments)
    case .rust:
      return "RUSTFLAGS=" + BuildFlags.shellQuote(arguments.joined(separator: " ")) + " cargo build --release"
        + (cargoArguments.isEmpty ? "" : " " + BuildFlags.shellLine(cargoArguments))
    }
  }

  /// Adds the linker option that aligns segments for pages of `bytes`
  /// (`BuildFlags.segmentAlignment`): swiftc's `-Xlinker` passes one word at a time.
  public mutating func align(pageSize bytes: UInt64) {
    let option = BuildFlags.segmentAlignment(pageSize: bytes)
    arguments += Self.linkerArguments(
      language, language == .swift ? option.split(separator: ",").map(String.init) : [option])
  }

  /// Adds the linker's `--emit-relocs`, which `orderfile bolt` needs.
  public mutating func keepRelocations() {
    arguments += Self.linkerArguments(language, ["--emit-relocs"])
  }

  /// The Rust target triple of this machine.
  public static var hostTriple: String { CrossTarget.hostMachine + "-unknown-linux-gnu" }
}

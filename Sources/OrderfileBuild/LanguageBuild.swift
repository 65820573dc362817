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
  /// Rust's ordered build: the arguments of the final crate's rustc alone, which `cargo
  /// rustc` passes after `--` (the orderfile and a `--cfg` name that follows its contents).
  /// RUSTFLAGS stay the release build's, so no dependency's fingerprint changes and cargo
  /// compiles only the crate it links; cargo fingerprints these arguments of the final
  /// crate, so it builds that crate again when they change.
  public var finalCrateArguments: [String]
  /// What the flags leave out for the compiler found, and why, one line each.
  public var notes: [String]

  public init(
    language: Language, arguments: [String], cargoArguments: [String] = [], finalCrateArguments: [String] = [],
    notes: [String] = []
  ) {
    self.language = language
    self.arguments = arguments
    self.cargoArguments = cargoArguments
    self.finalCrateArguments = finalCrateArguments
    self.notes = notes
  }

  /// The arguments for `build` in `language` (`.swift` or `.rust`). The instrumented build
  /// names the runtime found near the tool at `executablePath`; the release build, the
  /// orderfile by its absolute path (see `BuildFlags.forBuild`).
  ///
  /// With a `target` (Rust only), cargo builds for it (`--target aarch64-unknown-linux-gnu`,
  /// whose standard library `rustup target add` installs) and links with the target's C
  /// compiler; the instrumented build needs a runtime built for the target, which is checked.
  ///
  /// Rust's flags fit `rustc`, else the compiler cargo would run with `environment`
  /// (`RustCompiler.find`): a lint it does not know is left out, with a note.
  public static func forBuild(
    _ build: Build, language: Language, target: CrossTarget? = nil,
    executablePath: String = RuntimeLocation.runningTool,
    environment: [String: String] = [:], rustc: RustCompiler? = nil
  ) throws -> LanguageBuild {
    if target != nil && language != .rust { throw BuildError.noCrossBuild(language: language.rawValue) }
    let rustTarget = target?.rustTriple ?? hostTriple
    var notes: [String] = []
    var arguments = recordable(language)
    if language == .rust {
      let compiler = rustc ?? RustCompiler.find(environment: environment)
      if let compiler, !compiler.hasLinkerMessagesLint {
        notes.append(
          "\(compiler.program) is rustc \(compiler.version), which has no linker_messages lint (rustc \(RustCompiler.linkerMessagesLint) and later): -W linker-messages left out, so cargo does not show lld's warnings; check the ordered binary with 'orderfile verify'"
        )
      } else {
        arguments += linkerMessages
        if compiler == nil {
          notes.append(
            "no rustc found (RUSTC, or rustc on PATH): these flags are for rustc \(RustCompiler.linkerMessagesLint) and later, which know -W linker-messages"
          )
        }
      }
    }
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
      guard let orderfile = flags.link.last, let order = orders.first else { break }
      let ordering = linkerArguments(language, [orderfile.replacingOccurrences(of: "-Wl,", with: "")])
      guard language == .rust else {
        arguments += ordering
        break
      }
      // The final crate alone, by the module its orderfile orders: a library (cdylib) or
      // the binary of that name.
      let crate = order.libraryName != nil ? ["--lib"] : ["--bin", order.module]
      return LanguageBuild(
        language: language, arguments: arguments, cargoArguments: ["--target", rustTarget] + crate,
        finalCrateArguments: ordering + ["--cfg", try relinkKey(orderfile: order.orderfile)], notes: notes)
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
          cargoArguments: ["--target", rustTarget, "--target-dir", rustInstrumentedTargetDirectory], notes: notes)
      }
    }
    return LanguageBuild(
      language: language, arguments: arguments, cargoArguments: language == .rust ? ["--target", rustTarget] : [],
      notes: notes)
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
      return ["-C", "codegen-units=1", "-C", "link-arg=-fuse-ld=lld"] + linkerArguments(.rust, ["--build-id"])
    }
  }

  /// cargo shows the linker's output only with this lint on: lld's warnings about orderfile
  /// entries it cannot find would otherwise go unseen. Older rustc refuses it
  /// (`RustCompiler.hasLinkerMessagesLint`).
  static let linkerMessages = ["-W", "linker-messages"]

  /// A `--cfg` name that changes with the orderfile's contents. cargo does not build again
  /// when only the file a link argument names has changed; changed arguments of the final
  /// crate make it build that crate again, and no code tests this name.
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

  /// The command line a user types: `swift build -c release …`, `RUSTFLAGS='…' cargo build
  /// --release …`, or for Rust's ordered build `RUSTFLAGS='…' cargo rustc --release … -- …`.
  public var commandLine: String {
    switch language {
    case .c: return BuildFlags.shellLine(arguments)
    case .swift: return "swift build -c release " + BuildFlags.shellLine(arguments)
    case .rust:
      return "RUSTFLAGS=" + BuildFlags.shellQuote(arguments.joined(separator: " "))
        + (finalCrateArguments.isEmpty ? " cargo build --release" : " cargo rustc --release")
        + (cargoArguments.isEmpty ? "" : " " + BuildFlags.shellLine(cargoArguments))
        + (finalCrateArguments.isEmpty ? "" : " -- " + BuildFlags.shellLine(finalCrateArguments))
    }
  }

  /// Adds compiler-driver link flags (`-Wl,-z,pack-relative-relocs`) as this language's
  /// driver passes linker options on.
  public mutating func addDriverLinkFlags(_ flags: [String]) {
    arguments += Self.linkerArguments(
      language,
      flags.flatMap { $0.hasPrefix("-Wl,") ? $0.dropFirst(4).split(separator: ",").map(String.init) : [$0] })
  }

  /// Adds the linker option that aligns segments for pages of `bytes`
  /// (`BuildFlags.segmentAlignment`): swiftc's `-Xlinker` passes one word at a time.
  public mutating func align(pageSize bytes: UInt64) {
    let option = BuildFlags.segmentAlignment(pageSize: bytes)
    arguments += Self.linkerArguments(
      language, language == .swift ? option.split(separator: ",").map(String.init) : [option])
  }

  /// Adds the linker's `--emit-relocs`, which `orderfile bolt` needs: for Rust's ordered
  /// build to the final crate's link alone, like the orderfile.
  public mutating func keepRelocations() {
    let relocations = Self.linkerArguments(language, ["--emit-relocs"])
    if language == .rust && !finalCrateArguments.isEmpty {
      finalCrateArguments = relocations + finalCrateArguments
    } else {
      arguments += relocations
    }
  }

  /// The Rust target triple of this machine.
  public static var hostTriple: String { CrossTarget.hostMachine + "-unknown-linux-gnu" }
}

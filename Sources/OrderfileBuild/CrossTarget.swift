import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// A machine a program is cross-built for, whose launch is recorded there (on a device, or
/// under qemu-user on this machine) and whose trace this tool reads here: the usual split
/// when the CI host is x86-64 and the program ships for arm64.
public struct CrossTarget: Sendable, Equatable, Codable {
  /// The architectures the runtime is built and tested for.
  public enum Architecture: String, Sendable, Codable, CaseIterable {
    case aarch64
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // The architecture's own spelling, as in target triples.
    case x86_64

    /// ELF's name for it.
    var elfMachine: ELFMachine { self == .aarch64 ? .aarch64 : .x86_64 }

    /// The name qemu-user gives its emulator of this architecture.
    var qemuName: String { self == .aarch64 ? "aarch64" : "x86_64" }

    /// The name people read: "arm64", "x86-64".
    var displayName: String { elfMachine.displayName }

    /// The architecture of ELF's `machine`.
    public init?(machine: ELFMachine) {
      switch machine {
      case .aarch64: self = .aarch64
      case .x86_64: self = .x86_64
      }
    }
  }

  /// The system the program runs on.
  public enum System: String, Sendable, Codable {
    /// GNU/Linux with glibc: Debian's cross toolchains (`aarch64-linux-gnu-gcc`).
    case linuxGNU
    /// Android (the NDK's clang; `API` is the level in the triple, e.g. `aarch64-linux-android34`).
    case android
  }

  public var architecture: Architecture
  public var system: System
  /// The Android API level of the triple, when it names one.
  public var apiLevel: Int?

  /// GNU/Linux on `architecture`: `aarch64-linux-gnu`.
  public init(architecture: Architecture) {
    self.architecture = architecture
    system = .linuxGNU
    apiLevel = nil
  }

  /// Reads a triple: `aarch64-linux-gnu`, `aarch64-unknown-linux-gnu` (Rust's spelling),
  /// `arm64-linux-gnu`, `aarch64-linux-android34`, `x86_64-linux-gnu`.
  public init(triple: String) throws {
    var words = triple.split(separator: "-").map(String.init)
    guard words.count >= 3, let first = words.first else { throw BuildError.unknownTarget(triple) }
    switch first {
    case "aarch64", "arm64": architecture = .aarch64
    case "x86_64", "amd64": architecture = .x86_64
    default: throw BuildError.unknownTarget(triple)
    }
    words.removeFirst()
    if words.count == 3 && ["unknown", "pc", "none"].contains(words[0]) { words.removeFirst() }
    guard words.count == 2, words[0] == "linux" else { throw BuildError.unknownTarget(triple) }
    if words[1] == "gnu" {
      system = .linuxGNU
      apiLevel = nil
    } else if words[1].hasPrefix("android") {
      system = .android
      let level = words[1].dropFirst("android".count)
      guard level.isEmpty || Int(level) != nil else { throw BuildError.unknownTarget(triple) }
      apiLevel = Int(level)
    } else {
      throw BuildError.unknownTarget(triple)
    }
  }

  /// The triple compilers take: `aarch64-linux-gnu`, `aarch64-linux-android34`.
  public var triple: String {
    switch system {
    case .linuxGNU: return architecture.rawValue + "-linux-gnu"
    case .android: return architecture.rawValue + "-linux-android" + (apiLevel.map(String.init) ?? "")
    }
  }

  /// Rust's target: `aarch64-unknown-linux-gnu`, `aarch64-linux-android`.
  public var rustTriple: String {
    switch system {
    case .linuxGNU: return architecture.rawValue + "-unknown-linux-gnu"
    case .android: return architecture.rawValue + "-linux-android"
    }
  }

  /// The page size the target's binaries must be linked for, when it is larger than the
  /// linker's default: Android 15 runs 64-bit programs on 16 KiB pages, and the NDK's
  /// build-system guide has them linked with `-Wl,-z,max-page-size=16384` (which loads on
  /// 4 KiB devices too). Nil for GNU/Linux, whose linker defaults fit.
  public var linkPageSize: UInt64? { system == .android ? 16384 : nil }

  /// Where Debian's cross packages put the target's libraries (`libc6-dev-arm64-cross`):
  /// clang and qemu-user find them there; nil for Android (the NDK's sysroot).
  public var sysroot: String? { system == .linuxGNU ? "/usr/" + triple : nil }

  /// The C compiler command for `compiler`: clang itself (it takes `--target`), or gcc's
  /// cross build, named after the triple (`aarch64-linux-gnu-gcc`).
  public func compilerCommand(_ compiler: InstrumentingCompiler) throws -> String {
    switch compiler {
    case .clang: return "clang"
    case .gcc:
      guard system == .linuxGNU else { throw BuildError.noCrossCompiler(target: triple, compiler: compiler.rawValue) }
      return triple + "-gcc"
    }
  }

  /// What `compiler` needs, on both the compile and the link line, to build for this target.
  public func compilerFlags(_ compiler: InstrumentingCompiler) -> [String] {
    compiler == .clang ? ["--target=" + triple] : []
  }

  /// How to run a program of this target on a machine of `host`: qemu-user with the target's
  /// libraries, or nil when no emulator is needed (the same machine) or none applies (Android).
  public func emulator(host: Architecture?) -> [String]? {
    guard host != architecture, let sysroot else { return nil }
    return ["qemu-\(architecture.qemuName)-static", "-L", sysroot]
  }

  /// The architecture of this machine, nil for one the runtime is not built for.
  public static var hostArchitecture: Architecture? {
    Architecture(rawValue: hostMachine == "arm64" ? "aarch64" : hostMachine)
  }

  /// This machine's name for its architecture (`uname -m`: x86_64, aarch64).
  static var hostMachine: String {
    var name = utsname()
    uname(&name)
    return withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  /// The folder of the `ld.lld` on PATH, nil when there is none.
  public static var lldDirectory: String? {
    let found = ProcessRunner.resolve("ld.lld")
    return found.hasPrefix("/") ? PathName.directory(of: found) : nil
  }

  /// Checks that the runtime in `runtime` is built for this target, not for the host: an
  /// x86-64 runtime on an arm64 link line fails only at link time, with a message about
  /// incompatible objects.
  public func checkRuntime(_ runtime: RuntimeLocation) throws {
    let library = runtime.libraryDirectory + "/libOrderfileRuntime.so"
    let built = ELFMachine.of(fileAt: library)
    guard built == architecture.elfMachine else {
      throw BuildError.runtimeForOtherMachine(
        library: library, built: built?.displayName ?? "another machine", target: triple)
    }
  }
}

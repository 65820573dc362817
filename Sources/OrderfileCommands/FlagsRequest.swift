import Foundation
import OrderfileBuild
import OrderfileOrdering
import OrderfileSupport

/// `orderfile flags`: the compile and link flags of the recording or the release build.
public struct FlagsRequest: Sendable {
  /// Which of the flags to print, and how.
  public enum Shape: Sendable, Equatable {
    /// Both lines, each under a comment saying what it is.
    case both
    /// The compile flags, on one line.
    case compile
    /// The link flags, on one line.
    case link
    /// A snippet for a build system.
    case snippet(BuildSystem)
    /// JSON: `compile` and `link` arrays.
    case json
    /// The installed runtime's pkg-config and CMake packages, as a Make and a CMake snippet,
    /// or the one of the build system given.
    case packages(BuildSystem?)
  }

  public var build: Build
  public var shape: Shape
  /// C (compile and link flags), or Swift and Rust (`swift build` arguments, `RUSTFLAGS`).
  public var language: Language
  /// Keep the relocations in the linked binary (`-Wl,--emit-relocs`), which `orderfile bolt`
  /// needs to move whole functions.
  public var keepRelocations: Bool
  /// Cross-build for this machine (`--target`), with `compiler` for the release builds.
  public var target: CrossTarget?
  public var compiler: InstrumentingCompiler
  /// The root of the system the program runs on, whose `libc.so.6` says which loader
  /// options apply (nil: this machine's, or the cross target's sysroot).
  public var sysroot: String?
  /// Link for pages of this many bytes (`--page-size`); nil: the target's own
  /// (`CrossTarget.linkPageSize`, Android's 16 KiB), else the linker's default.
  public var pageSize: UInt64?

  public init(
    build: Build, shape: Shape = .both, language: Language = .c, keepRelocations: Bool = false,
    target: CrossTarget? = nil, compiler: InstrumentingCompiler? = nil, sysroot: String? = nil,
    pageSize: UInt64? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.sysroot = sysroot
    self.pageSize = pageSize
    self.build = build
    self.language = language
    self.shape = shape
    self.keepRelocations = keepRelocations
    self.target = target
    self.compiler = compiler ?? InstrumentingCompiler.detected(in: environment) ?? .clang
  }

  /// The build the user asked for: the ordered release build of the orderfiles `release`
  /// names (`module=orderfile` pairs, or one orderfile alone), the instrumented build (with
  /// `compiler`, else the one `CXX` or `CC` names, else clang), or the release build
  /// recorded as it is.
  ///
  /// - Throws: `BuildError` for a bad pair, a module named twice or a missing orderfile.
  public static func build(
    release: [String], instrument: Bool, compiler: InstrumentingCompiler?, format: OrderfileFormat,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Build {
    if !release.isEmpty {
      let orders = try TargetOrderfile.parse(release, format: format)
      // An lld script given as a symbol orderfile would be read as symbol names: the files
      // say which they are when the format is lld's, the default.
      guard format == .lld,
        orders.allSatisfy({ (try? Orderfile.read(path: $0.orderfile))?.format == .lldScript })
      else { return .release(orders: orders, format: format) }
      return .release(orders: try TargetOrderfile.parse(release, format: .lldScript), format: .lldScript)
    }
    guard instrument else { return .recordable(format: format) }
    return .instrumented(compiler ?? InstrumentingCompiler.detected(in: environment) ?? .clang)
  }

  public func run() throws -> CommandOutput {
    if language != .c { return try runForLanguage() }
    // The flags every module links with; each module's orderfile then goes to its own link.
    var orders: [TargetOrderfile] = []
    var common = build
    var format = OrderfileFormat.lld
    switch build {
    case .release(let given, let releaseFormat):
      orders = try given.map { try $0.checked() }
      common = .recordable(format: releaseFormat)
      format = releaseFormat
    case .recordable(let recordableFormat):
      format = recordableFormat
    case .instrumented:
      break
    }
    var flags = try BuildFlags.forBuild(common, target: target, compiler: compiler)
    if keepRelocations { flags.link.append("-Wl,--emit-relocs") }
    let loader = loaderOptions(format: format)
    flags.link += loader?.flags ?? []
    if let linkPageSize { flags = flags.aligned(pageSize: linkPageSize) }
    // One link: several orderfiles are several links, which only a snippet or the
    // commented lines print.
    func oneLink() throws -> BuildFlags {
      guard orders.count <= 1 else { throw BuildError.severalOrderfiles(modules: orders.map(\.module)) }
      return orders.first.map { flags.ordering($0.orderfile, format: format) } ?? flags
    }
    var output = CommandOutput()
    switch shape {
    case .snippet(let system):
      output.print(try system.snippet(flags, orders: orders, format: format) + "\n")
    case .json:
      output.print(try JSONRenderer().render(try oneLink()))
    case .compile:
      output.print(BuildFlags.shellLine(flags.compile) + "\n")
    case .link:
      output.print(BuildFlags.shellLine(try oneLink().link) + "\n")
    case .packages(let system):
      output.print(try Self.installedPackages().snippet(for: system) + "\n")
    case .both:
      let what: String
      switch build {
      case .recordable:
        // Android's release build is recorded on the device through its instrumented build.
        what =
          target.map { $0.emulator(host: CrossTarget.hostArchitecture) == nil } == true
          ? "the release build" : "the release build, recorded as it is (orderfile record --no-rebuild)"
      case .instrumented: what = "the instrumented (recording) build"
      case .release: what = "the ordered release build"
      }
      // Each module's link, under its name when there are several.
      let links =
        orders.count > 1
        ? orders.map { ($0.module, flags.ordering($0.orderfile, format: format)) } : [(nil, try oneLink())]
      if let target { output.print(CrossBuildNotes(target: target, flags: links[0].1, build: build).header) }
      output.print("# Compile flags for \(what):\n\(BuildFlags.shellLine(flags.compile))\n")
      for (module, linked) in links {
        output.print(
          "# Link flags for \(what)\(module.map { " of " + $0 } ?? ""):\n\(BuildFlags.shellLine(linked.link))\n")
      }
      if let loader { output.print(loader.notes) }
      if let target { output.print(CrossBuildNotes(target: target, flags: links[0].1, build: build).recording) }
    }
    return output
  }

  /// The loader options of the ordered release build, checked against the linker and the
  /// target's loader; nil for the other builds.
  func loaderOptions(format: OrderfileFormat) -> LoaderOptions? {
    guard case .release = build else { return nil }
    return LoaderOptions.forRelease(format: format, target: target, sysroot: sysroot)
  }
  /// The page size to link for: the one asked for, else the target's.
  var linkPageSize: UInt64? { pageSize ?? target?.linkPageSize }

  /// The packages installed beside the runtime the running tool finds.
  static func installedPackages(
    executablePath: String = RuntimeLocation.runningTool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> RuntimePackages {
    guard let runtime = RuntimeLocation.find(executablePath: executablePath, environment: environment) else {
      throw BuildError.runtimeNotFound(near: executablePath)
    }
    guard let packages = RuntimePackages.installed(with: runtime) else {
      throw BuildError.packagesNotInstalled(libraryDirectory: runtime.libraryDirectory)
    }
    return packages
  }

  /// How a Rust release build for `target` is recorded: as it is, under qemu-user here, or for
  /// Android (no emulator here runs its libraries) through its instrumented build on the device.
  static func rustCrossRecording(_ target: CrossTarget) -> String {
    let binary = "target/\(target.rustTriple)/release/app"
    guard let emulator = target.emulator(host: CrossTarget.hostArchitecture) else {
      return
        "The release build for \(target.triple), recorded on the device through its instrumented build (--instrument --target \(target.triple))"
    }
    return
      "The release build for \(target.triple), recorded as it is under qemu-user (orderfile record --emulator '\(BuildFlags.shellLine(emulator))' -o launch.trace -- \(binary))"
  }

  /// Swift and Rust: the whole build command, or its arguments as JSON.
  private func runForLanguage() throws -> CommandOutput {
    var arguments = try LanguageBuild.forBuild(
      build, language: language, target: target, environment: ProcessInfo.processInfo.environment)
    if keepRelocations { arguments.keepRelocations() }
    var format = OrderfileFormat.lld
    if case .release(_, let releaseFormat) = build { format = releaseFormat }
    let loader = loaderOptions(format: format)
    arguments.addDriverLinkFlags(loader?.flags ?? [])
    if let linkPageSize { arguments.align(pageSize: linkPageSize) }
    var output = CommandOutput()
    if shape == .json {
      output.print(try JSONRenderer().render(arguments))
      return output
    }
    let what: String
    switch build {
    case .recordable:
      what =
        language == .rust
        ? (target.map { Self.rustCrossRecording($0) }
          ?? "The release build, recorded as it is (orderfile record -- target/\(LanguageBuild.hostTriple)/release/app)")
        : "The release build, recorded as it is (orderfile record -- ./app)"
    case .release:
      what =
        language == .rust
        ? "The release build with the order applied to the final crate alone: RUSTFLAGS stay the release build's, so cargo compiles no dependency again; the --cfg name follows the orderfile's contents, so cargo builds the crate again when it changes (print this again after each generate)"
        : "The release build with the order applied"
    case .instrumented:
      what =
        language == .rust
        ? "The instrumented build (SanitizerCoverage trace-pc-guard), in a folder of its own; build scripts and proc macros stay uninstrumented"
        : "The instrumented build (SanitizerCoverage trace-pc-guard); give it a build folder of its own"
    }
    if let target {
      output.print("# Cross build for \(target.triple): once, 'rustup target add \(target.rustTriple)'\n")
    }
    for note in arguments.notes { output.print("# Note: \(note)\n") }
    output.print("# \(what):\n\(arguments.commandLine)\n")
    if let loader { output.print(loader.notes) }
    return output
  }
}

import ArgumentParser
import OrderfileCommands

struct FlagsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flags",
    abstract: "Print the compile and link flags for the release build, the instrumented build, or the ordered build.",
    discussion: """
      Release build, recorded as it is (no instrumentation; then
      'orderfile record -o launch.trace -- ./app'):
        orderfile flags
        make CFLAGS="-O2 -g $(orderfile flags --cflags)" \\
             LDFLAGS="$(orderfile flags --ldflags)"

      Instrumented build (compile the launch path instrumented, link the runtime):
        orderfile flags --instrument
        make CFLAGS="$(orderfile flags --instrument --cflags)" \\
             LDFLAGS="$(orderfile flags --instrument --ldflags)"

      Release build (one section per function, then the order at link time):
        orderfile flags --release app.order
        orderfile flags --release app.order --format gold --ldflags

      The release build's link flags also cut what the dynamic loader reads
      at launch, each only where the linker and the target's loader support
      it (read from the linker's --version and the target's libc.so.6, or the
      Android API level): -Wl,-z,pack-relative-relocs (RELR: lld 15, GNU ld
      2.38, glibc 2.36; Android API 28 with its own tags, 30 without) and
      -Wl,--hash-style=gnu. The lines under the flags say which were left out
      and why; --sysroot reads another system's libc.so.6:
        orderfile flags --release app.order --sysroot /srv/target-rootfs

      --build-system prints a snippet for Make, CMake, Meson or SwiftPM (C
      targets) instead, for C and C++, executables and shared libraries. With
      --release, each module's orderfile goes to its own target's link alone
      (an executable's link would warn of every function of its library's
      orderfile): give module=orderfile pairs, the module by its file name
      ('generate --output-dir' names each orderfile after it); an orderfile
      alone orders the module its file name names (libwidgets.so.order:
      libwidgets.so). CMake and Meson name a library's target without 'lib'
      and '.so' (widgets); Make names the file, and libtool's .la for a library.
        orderfile flags --build-system cmake --release \\
          app=orders/app.order libwidgets.so=orders/libwidgets.so.order
        orderfile flags --build-system make --release orders/libwidgets.so.order

      The instrumented build's hook flag follows the compiler: gcc's
      -finstrument-functions, clang's -finstrument-functions-after-inlining.
      The compiler is --compiler's, or the one CXX or CC names (clang if
      neither says).

      An installed runtime also comes as packages (Scripts/install):
        orderfile flags --instrument --packages   # pkg-config and find_package
        orderfile flags --instrument --packages --build-system cmake

      Cross builds (--target, e.g. aarch64-linux-gnu) print the target's
      compiler and flags, and how to record the launch: the release build as
      it is under qemu-user here (record --emulator), or an instrumented build
      on the device; the trace is then read on this machine:
        orderfile flags --target aarch64-linux-gnu
        orderfile flags --release app.order --target aarch64-linux-gnu --ldflags
        orderfile flags --language rust --target aarch64-linux-gnu
        orderfile flags --instrument --compiler gcc --target aarch64-linux-gnu

      Android's 64-bit programs are linked for 16 KiB pages
      (-Wl,-z,max-page-size=16384, as the NDK does); --page-size links for
      other pages, e.g. --page-size 64 for arm64 servers with 64 KiB pages.

      Swift and Rust (--language swift|rust) print the whole build command:
      'swift build' arguments, or RUSTFLAGS for cargo. Their instrumented
      builds use SanitizerCoverage's trace-pc-guard hooks. Rust's flags fit
      the rustc cargo runs ($RUSTC, else rustc on PATH; a note says what is
      left out), and its ordered build is 'cargo rustc ... -- ...', which
      gives the orderfile to the final crate alone: no dependency is
      compiled again.
        orderfile flags --language rust
        orderfile flags --language swift --release swiftapp.order
        orderfile flags --language rust --instrument
      """
  )

  @Flag(
    help:
      "Flags for the instrumented build that records a launch (without it and --release: the release build, recorded as it is)."
  )
  var instrument = false

  @Option(
    parsing: .upToNextOption,
    help: ArgumentHelp(
      "Flags for the release build that applies this orderfile, or each module's (module=orderfile, several with --build-system).",
      valueName: "orderfile"))
  var release: [String] = []

  @Option(
    help:
      "The compiler of the instrumented build: \(InstrumentingCompiler.allCases.map(\.rawValue).joined(separator: ", ")) (default: the one CXX or CC names, else clang)."
  )
  var compiler: InstrumentingCompiler?

  @Option(
    help:
      "The orderfile's format, which picks the linker: \(OrderfileFormat.allCases.map(\.rawValue).joined(separator: ", "))."
  )
  var format: OrderfileFormat = .lld

  @Flag(help: "Print only the compile flags, on one line.")
  var cflags = false

  @Flag(help: "Print only the link flags, on one line.")
  var ldflags = false

  @Option(
    help: "Print a snippet for this build system: \(BuildSystem.allCases.map(\.rawValue).joined(separator: ", ")).")
  var buildSystem: BuildSystem?

  @Option(
    help:
      "The language of the program: \(Language.allCases.map(\.rawValue).joined(separator: ", ")) (swift and rust print the swift build or cargo command)."
  )
  var language: Language = .c

  @Flag(
    help:
      "With --instrument: link the installed runtime through its pkg-config or CMake package instead (--build-system make or cmake: that one alone)."
  )
  var packages = false

  @Flag(help: "With --release: also keep relocations (-Wl,--emit-relocs), so 'orderfile bolt' can rewrite the binary.")
  var emitRelocs = false

  @Option(
    help: ArgumentHelp(
      "Cross-build for this target triple (aarch64-linux-gnu, aarch64-linux-android34; C and Rust).",
      valueName: "triple"))
  var target: String?

  @Option(
    help: ArgumentHelp(
      "With --release: the root of the system the program runs on, whose libc.so.6 decides which loader options apply (default: this machine's, or the --target's cross sysroot).",
      valueName: "dir"))
  var sysroot: String?

  @Option(
    help: ArgumentHelp(
      "Link for pages of this many KiB (-Wl,-z,max-page-size): 16 for 16 KiB pages (the default for an Android --target), 64 for 64 KiB.",
      valueName: "KiB"))
  var pageSize: Int?

  @OptionGroup var output: OutputFormatOptions<JSONFlag>

  func validate() throws {
    if sysroot != nil && release.isEmpty {
      throw ValidationError("--sysroot decides the ordered release build's loader options: give it with --release")
    }
    if let pageSize {
      guard pageSize >= 4, pageSize <= 64, pageSize & (pageSize - 1) == 0 else {
        throw ValidationError(
          "--page-size is in KiB, a power of two from 4 to 64 (16 for 16 KiB pages), not \(pageSize)")
      }
      if format == .ld64 { throw ValidationError("--page-size aligns an ELF link: give it with --format lld or gold") }
    }
    if packages && (!instrument || cflags || ldflags || language != .c || output.format == .json) {
      throw ValidationError(
        "--packages prints how to link the installed runtime: give it with --instrument (and --build-system make or cmake) alone"
      )
    }
    if packages && buildSystem == .swiftpm {
      throw ValidationError(
        "--packages has no SwiftPM package: use --instrument --build-system swiftpm, or --language swift --instrument")
    }
    if packages && buildSystem == .meson {
      throw ValidationError("--packages prints a Make or CMake snippet: use --instrument --build-system meson")
    }
    if packages && target != nil {
      throw ValidationError("--packages links the runtime installed for this machine: give --target without --packages")
    }
    if instrument && !release.isEmpty {
      throw ValidationError("give at most one of --instrument or --release <orderfile>")
    }
    if emitRelocs && (release.isEmpty || format == .ld64) {
      throw ValidationError(
        "--emit-relocs is for the ordered release build of an ELF program: give it with --release and --format lld or gold"
      )
    }
    if compiler != nil && language != .c {
      throw ValidationError(
        "--compiler picks the C compiler's hook flag: --language \(language.rawValue) builds with \(language == .rust ? "rustc" : "swiftc")"
      )
    }
    if cflags && ldflags { throw ValidationError("--cflags and --ldflags print one line each: give one") }
    if language != .c {
      if cflags || ldflags || buildSystem != nil {
        throw ValidationError(
          "--language \(language.rawValue) prints the whole build command: --cflags, --ldflags and --build-system are for C"
        )
      }
      if format != .lld && format != .lldScript {
        throw ValidationError("--language \(language.rawValue) links with ld.lld: --format must be lld or lld-script")
      }
    }
  }

  /// Which flags to print, and how.
  var shape: FlagsRequest.Shape {
    if output.format == .json { return .json }
    if cflags { return .compile }
    if ldflags { return .link }
    if packages { return .packages(buildSystem) }
    return buildSystem.map { .snippet($0) } ?? .both
  }

  func run() throws {
    try Terminal.run {
      try FlagsRequest(
        build: try FlagsRequest.build(release: release, instrument: instrument, compiler: compiler, format: format),
        shape: shape, language: language, keepRelocations: emitRelocs,
        target: try target.map { try CrossTarget(triple: $0) }, compiler: compiler, sysroot: sysroot,
        pageSize: pageSize.map { UInt64($0) * 1024 }
      ).run()
    }
  }
}

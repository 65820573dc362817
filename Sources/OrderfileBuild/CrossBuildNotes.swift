/// What `orderfile flags --target` says around a cross build's flags: which compiler takes
/// them, and how the launch is recorded where the program runs and read back here.
public struct CrossBuildNotes: Sendable, Equatable {
  public var target: CrossTarget
  public var flags: BuildFlags
  public var build: Build

  public init(target: CrossTarget, flags: BuildFlags, build: Build) {
    self.target = target
    self.flags = flags
    self.build = build
  }

  /// Why the link aligns for larger pages, when it does.
  var pageSizeNote: String {
    guard let alignment = flags.link.first(where: { $0.hasPrefix("-Wl,-z,max-page-size=") }) else { return "" }
    let size = alignment.split(separator: "=").last.flatMap { UInt64($0) }.map { "\($0 / 1024) KiB" } ?? "larger"
    return target.system == .android
      ? "# \(alignment): Android 15 runs 64-bit programs on \(size) pages where the device is set so, and the NDK links for them (it loads on 4 KiB pages too); estimate's \(size) row is the count there\n"
      : "# \(alignment): linked for \(size) pages (--page-size); estimate's \(size) row is the count there\n"
  }

  /// The lines before the flags: the compiler that takes them.
  public var header: String {
    let compiler = flags.compiler ?? "clang"
    let packages =
      target.system == .linuxGNU && target.architecture == .aarch64
      ? " (Debian: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross\(compiler == "clang" ? "; clang finds their sysroot" : ""))"
      : target.system == .android ? " (the NDK's clang, with its sysroot)" : ""
    return
      "# Cross build for \(target.triple) (\(target.architecture.displayName)): compile and link with \(compiler)\(packages)\n"
  }

  /// The lines after the flags: how to record and where the trace goes next.
  public var recording: String {
    switch build {
    case .instrumented:
      var lines =
        flags.emulator == nil
        ? []
        : [
          "# (No rebuild is needed here: the release build records as it is, see orderfile flags --target \(target.triple))"
        ]
      lines += [
        "# Record a launch where the program runs: the runtime writes the trace, so nothing needs ptrace.",
        "#   on the device, with libOrderfileRuntime.so built for it beside the program:",
        "#     ORDERFILE_OUTPUT=launch.trace ./app",
      ]
      if let emulator = flags.emulator {
        lines += [
          "#   here, under qemu-user (ptrace does not work under it, the runtime does):",
          "#     orderfile record --instrumented -o launch.trace -- \(BuildFlags.shellLine(emulator)) ./app",
        ]
      }
      lines += [
        "# Then, on this machine, against the release build for \(target.triple):",
        "#   orderfile generate launch.trace --release-binary build/release/app -o app.order",
      ]
      return lines.joined(separator: "\n") + "\n"
    case .recordable:
      guard let emulator = flags.emulator else {
        return pageSizeNote
          + "# A release build for \(target.triple) is recorded on the device, through its instrumented build (no emulator here runs its system's libraries): orderfile flags --instrument --target \(target.triple)\n"
      }
      // ptrace does not see into qemu-user: the in-process recorder built for the target does
      // (installed beside the tool whenever a cross compiler was there).
      return pageSizeNote
        + "# Record this release build as it is, under qemu-user here (in-process, nothing rebuilt):\n"
        + "#   orderfile record --emulator '\(BuildFlags.shellLine(emulator))' -o launch.trace -- ./app\n"
        + "# Then, here: orderfile generate launch.trace -o app.order; orderfile flags --release app.order --target \(target.triple)\n"
    case .release(let orders, _):
      return pageSizeNote
        + orders.map {
          "# Check the link on this machine, which reads \(target.architecture.displayName) binaries: orderfile verify --binary \($0.module) --order \($0.orderfile)\n"
        }.joined()
    }
  }
}

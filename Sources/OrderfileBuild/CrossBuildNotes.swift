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
      var lines = [
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
        return
          "# A release build for \(target.triple) is recorded through its instrumented build: orderfile flags --instrument --target \(target.triple)\n"
      }
      // ptrace does not see into qemu-user: the in-process recorder built for the target does.
      return
        "# A release build for \(target.triple) is recorded as it is under qemu-user, in-process (libOrderfileInProcess.so from Scripts/install --target \(target.triple)):\n"
        + "#   orderfile record --emulator '\(BuildFlags.shellLine(emulator))' -o launch.trace -- ./app\n"
    case .release(let orders, _):
      return orders.map {
        "# Check the link on this machine, which reads \(target.architecture.displayName) binaries: orderfile verify --binary \($0.module) --order \($0.orderfile)\n"
      }.joined()
    }
  }
}

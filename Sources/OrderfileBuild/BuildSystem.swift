/// The build systems `orderfile flags --build-system` writes a snippet for.
public enum BuildSystem: String, CaseIterable, Sendable, Codable {
  case make, cmake, swiftpm

  /// The lines that add `flags` to a build of this kind, with a comment saying where.
  public func snippet(_ flags: BuildFlags) -> String {
    let compile = BuildFlags.shellLine(flags.compile)
    let link = BuildFlags.shellLine(flags.link)
    switch self {
    case .make:
      return """
        # GNU Make: add to the flags of the targets on the launch path.
        CFLAGS   += \(compile)
        CXXFLAGS += \(compile)
        LDFLAGS  += \(link)
        """
    case .cmake:
      let quotedCompile = flags.compile.map { "\"\($0)\"" }.joined(separator: " ")
      let quotedLink = flags.link.map { "\"\($0)\"" }.joined(separator: " ")
      return """
        # CMake: add to the targets on the launch path (or pass -DCMAKE_C_FLAGS=... at configure time).
        target_compile_options(app PRIVATE \(quotedCompile))
        target_link_options(app PRIVATE \(quotedLink))
        """
    case .swiftpm:
      return """
        # SwiftPM: C targets take -Xcc flags, the link takes -Xlinker flags.
        # (Swift code itself is not instrumented by these flags; see Docs/Reference.md.)
        swift build -c release \(BuildFlags.shellLine(Self.swiftPMArguments(flags)))
        """
    }
  }

  /// `swift build` arguments for `flags`: compile flags through `-Xcc`, the linker choice
  /// as `-use-ld=`, and each `-Wl,` word and other link flag through `-Xlinker`.
  static func swiftPMArguments(_ flags: BuildFlags) -> [String] {
    var arguments = flags.compile.flatMap { ["-Xcc", $0] }
    for flag in flags.link {
      if flag.hasPrefix("-fuse-ld=") {
        arguments += ["-Xswiftc", "-use-ld=" + flag.dropFirst("-fuse-ld=".count)]
      } else if flag.hasPrefix("-Wl,") {
        arguments += flag.dropFirst(4).split(separator: ",").flatMap { ["-Xlinker", String($0)] }
      } else {
        arguments += ["-Xlinker", flag]
      }
    }
    return arguments
  }
}

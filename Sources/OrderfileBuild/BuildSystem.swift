import Foundation
import OrderfileOrdering

/// The build systems `orderfile flags --build-system` writes a snippet for.
public enum BuildSystem: String, CaseIterable, Sendable, Codable {
  case make, cmake, swiftpm

  /// The lines that add `flags` to a build of this kind, with a comment saying where.
  /// `build` tells CMake's snippet which orderfile goes to which target.
  public func snippet(_ flags: BuildFlags, for build: Build? = nil) -> String {
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
      return Self.cmakeSnippet(flags, for: build)
    case .swiftpm:
      return """
        # SwiftPM: C targets take -Xcc flags, the link takes -Xlinker flags.
        # (Swift code itself is not instrumented by these flags; see Docs/Reference.md.)
        swift build -c release \(BuildFlags.shellLine(Self.swiftPMArguments(flags)))
        """
    }
  }

  /// CMake: the flags for every C and C++ target, executables and shared libraries alike,
  /// through CMake's own variables; a release build's orderfile per target, through a
  /// function the project calls once for each linked target.
  static func cmakeSnippet(_ flags: BuildFlags, for build: Build?) -> String {
    var link = flags.link
    var perTarget: [String] = []
    if case .release(let orderfile, let format) = build, !link.isEmpty {
      link.removeLast()
      let name = (orderfile as NSString).lastPathComponent
      var target =
        name.hasSuffix("." + format.fileExtension) ? String(name.dropLast(format.fileExtension.count + 1)) : name
      if target.hasPrefix("lib"), let so = target.range(of: ".so") {
        target = String(target[target.index(target.startIndex, offsetBy: 3)..<so.lowerBound])
      }
      perTarget = [
        "# One orderfile per linked target: call this for each executable and shared library",
        "# ('orderfile generate --output-dir' writes <file name>.\(format.fileExtension) for each), before",
        "# or after the target is defined: the option is added once the whole project is read.",
        "function(orderfile_order target orderfile)",
        // A deferred call expands its arguments when it runs, where target and orderfile
        // are gone: EVAL expands them now.
        "  cmake_language(EVAL CODE \"cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL",
        "    target_link_options [[${target}]] PRIVATE [[\(format.linkerFlag(path: "${orderfile}"))]])\")",
        "endfunction()",
        "orderfile_order(\(target) \"\(cmakeEscape(URL(fileURLWithPath: orderfile).standardizedFileURL.path))\")",
      ]
    }
    func append(_ variable: String, _ words: [String]) -> String? {
      words.isEmpty ? nil : "string(APPEND \(variable) \" \(cmakeEscape(BuildFlags.shellLine(words)))\")"
    }
    let lines =
      ["# CMake: in the top-level CMakeLists.txt, before the targets (C and C++, executables and shared libraries)."]
      + [
        append("CMAKE_C_FLAGS", flags.compile), append("CMAKE_CXX_FLAGS", flags.compile),
        append("CMAKE_EXE_LINKER_FLAGS", link), append("CMAKE_SHARED_LINKER_FLAGS", link),
      ].compactMap { $0 } + perTarget
    return lines.joined(separator: "\n")
  }

  /// `text` inside a CMake quoted argument.
  static func cmakeEscape(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "$", with: "\\$")
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

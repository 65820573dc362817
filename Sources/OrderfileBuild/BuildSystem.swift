import Foundation
import OrderfileOrdering

/// The build systems `orderfile flags --build-system` writes a snippet for.
public enum BuildSystem: String, CaseIterable, Sendable, Codable {
  case make, cmake, meson, swiftpm

  /// The lines that add `flags` to a build of this kind, with a comment saying where:
  /// `flags` go to every target, and each of `orders` to its own target's link alone
  /// (through `format`'s linker flag), where an executable's link would warn of every
  /// entry of its library's orderfile.
  ///
  /// - Throws: `BuildError.severalOrderfiles` for SwiftPM, whose one link takes one.
  public func snippet(_ flags: BuildFlags, orders: [TargetOrderfile] = [], format: OrderfileFormat = .lld) throws
    -> String
  {
    switch self {
    case .make:
      return Self.makeSnippet(flags, orders: orders, format: format)
    case .cmake:
      return Self.cmakeSnippet(flags, orders: orders, format: format)
    case .meson:
      return Self.mesonSnippet(flags, orders: orders, format: format)
    case .swiftpm:
      guard orders.count <= 1 else { throw BuildError.severalOrderfiles(modules: orders.map(\.module)) }
      var linked = flags
      if let order = orders.first { linked = flags.ordering(order.orderfile, format: format) }
      return """
        # SwiftPM: C targets take -Xcc flags, the link takes -Xlinker flags.
        # (Swift code itself is not instrumented by these flags; see Docs/Reference.md.)
        swift build -c release \(BuildFlags.shellLine(Self.swiftPMArguments(linked)))
        """
    }
  }

  /// GNU Make: the flags of every target, then each orderfile as a target-specific
  /// variable of its module's file (`private`: the targets it depends on, built on its
  /// behalf, keep their own). `%/name` matches the file in any folder; a shared library
  /// also as libtool's `.la`, the target libtool links it under.
  static func makeSnippet(_ flags: BuildFlags, orders: [TargetOrderfile], format: OrderfileFormat) -> String {
    let compile = BuildFlags.shellLine(flags.compile)
    var lines = [
      "# GNU Make: add to the flags of the targets on the launch path.",
      "CFLAGS   += \(compile)",
      "CXXFLAGS += \(compile)",
      "LDFLAGS  += \(BuildFlags.shellLine(flags.link))",
    ]
    if !orders.isEmpty {
      lines.append(
        "# Each orderfile to its own module's link alone (a change to it relinks nothing: make -B that target).")
    }
    for order in orders {
      let files = [order.module] + (order.libraryName.map { ["lib\($0).la"] } ?? [])
      let targets = files.flatMap { [$0, "%/" + $0] }.joined(separator: " ")
      lines.append(
        "\(targets): private LDFLAGS += \(BuildFlags.shellLine([format.linkerFlag(path: order.orderfile)]))")
    }
    return lines.joined(separator: "\n")
  }

  /// CMake: the flags for every C and C++ target, executables and shared libraries alike,
  /// through CMake's own variables; each orderfile through a function the project may call
  /// for more targets, which gives the target's link the orderfile and relinks it when the
  /// orderfile changes (`LINK_DEPENDS`).
  static func cmakeSnippet(_ flags: BuildFlags, orders: [TargetOrderfile], format: OrderfileFormat) -> String {
    var perTarget: [String] = []
    if !orders.isEmpty {
      perTarget =
        [
          "# One orderfile per linked target, to its link alone ('orderfile generate --output-dir' writes",
          "# <file name>.\(format.fileExtension) for each): call this before or after the target is defined, the",
          "# option is added once the whole project is read.",
          "function(orderfile_order target orderfile)",
          // A deferred call expands its arguments when it runs, where target and orderfile
          // are gone: EVAL expands them now.
          "  cmake_language(EVAL CODE \"cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL",
          "    target_link_options [[${target}]] PRIVATE [[\(format.linkerFlag(path: "${orderfile}"))]])",
          "  cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL",
          "    set_property TARGET [[${target}]] APPEND PROPERTY LINK_DEPENDS [[${orderfile}]])\")",
          "endfunction()",
        ] + orders.map { "orderfile_order(\($0.targetName) \"\(cmakeEscape($0.orderfile))\")" }
    }
    func append(_ variable: String, _ words: [String]) -> String? {
      words.isEmpty ? nil : "string(APPEND \(variable) \" \(cmakeEscape(BuildFlags.shellLine(words)))\")"
    }
    let lines =
      ["# CMake: in the top-level CMakeLists.txt, before the targets (C and C++, executables and shared libraries)."]
      + [
        append("CMAKE_C_FLAGS", flags.compile), append("CMAKE_CXX_FLAGS", flags.compile),
        append("CMAKE_EXE_LINKER_FLAGS", flags.link), append("CMAKE_SHARED_LINKER_FLAGS", flags.link),
      ].compactMap { $0 } + perTarget
    return lines.joined(separator: "\n")
  }

  /// Meson: the flags of every C and C++ target as project arguments; each orderfile in two
  /// dictionaries by target name, which a target's `link_args` and `link_depends` read
  /// (Meson cannot change a target once it is declared). The dictionaries are always
  /// there, empty without orderfiles, so one `meson.build` takes every snippet.
  static func mesonSnippet(_ flags: BuildFlags, orders: [TargetOrderfile], format: OrderfileFormat) -> String {
    func arguments(_ words: [String]) -> String { words.map(mesonString).joined(separator: ", ") }
    func dictionary(_ name: String, _ value: (TargetOrderfile) -> String) -> [String] {
      guard !orders.isEmpty else { return ["\(name) = {}"] }
      return ["\(name) = {"] + orders.map { "  \(mesonString($0.targetName)): [\(value($0))]," } + ["}"]
    }
    var lines = [
      "# Meson: in meson.build after project(), before the targets (C and C++, executables and shared libraries)."
    ]
    if !flags.compile.isEmpty {
      lines.append("add_project_arguments(\(arguments(flags.compile)), language: ['c', 'cpp'])")
    }
    if !flags.link.isEmpty {
      lines.append("add_project_link_arguments(\(arguments(flags.link)), language: ['c', 'cpp'])")
    }
    lines += [
      "# Each target's orderfile, to its link alone; give every executable and shared library",
      "#   link_args: orderfile_link_args.get('<target>', []),",
      "#   link_depends: orderfile_link_depends.get('<target>', []),",
    ]
    lines += dictionary("orderfile_link_args") { mesonString(format.linkerFlag(path: $0.orderfile)) }
    lines += dictionary("orderfile_link_depends") { mesonString($0.orderfile) }
    return lines.joined(separator: "\n")
  }

  /// `text` as a Meson string literal.
  static func mesonString(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
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

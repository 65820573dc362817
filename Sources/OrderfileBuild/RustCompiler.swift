import OrderfileSupport

/// The rustc a cargo build runs (`$RUSTC`, else `rustc` on PATH, as cargo chooses), and which
/// of the flags `LanguageBuild` prints it takes.
///
/// rustc refuses an unknown lint given on its command line (`error[E0602]: unknown lint`),
/// and cargo passes RUSTFLAGS to every crate, so one flag the compiler lacks fails the whole
/// build on its first crate.
public struct RustCompiler: Sendable, Equatable, Codable {
  /// A rustc release, `1.63.0`.
  public struct Version: Sendable, Equatable, Comparable, Codable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
      self.major = major
      self.minor = minor
      self.patch = patch
    }

    /// The version `rustc --version` prints first: `rustc 1.95.0 (59807616e 2026-04-14)`,
    /// `rustc 1.97.0-nightly (…)`; nil for anything else.
    public init?(versionOutput: String) {
      let words = versionOutput.split(whereSeparator: \.isWhitespace)
      guard words.count >= 2, words[0] == "rustc" else { return nil }
      let release = words[1].prefix { $0.isNumber || $0 == "." }
      let numbers = release.split(separator: ".").compactMap { Int($0) }
      guard numbers.count == 3 else { return nil }
      self.init(numbers[0], numbers[1], numbers[2])
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
      (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
  }

  /// The program as cargo would run it: `$RUSTC` as given, or `rustc`.
  public var program: String
  public var version: Version

  public init(program: String, version: Version) {
    self.program = program
    self.version = version
  }

  /// The first release with the `linker_messages` lint: it came with rust-lang/rust#119286
  /// (merged in January 2025, after 1.85 had branched), allowed by default since #136098.
  public static let linkerMessagesLint = Version(1, 86)

  /// Whether `-W linker-messages` is a lint this rustc knows.
  public var hasLinkerMessagesLint: Bool { version >= Self.linkerMessagesLint }

  /// The rustc cargo runs with `environment`: `RUSTC`, else `rustc` on PATH, asked for its
  /// version; nil when there is none, or it prints no version.
  public static func find(environment: [String: String]) -> RustCompiler? {
    let program = environment["RUSTC"].flatMap { $0.isEmpty ? nil : $0 } ?? "rustc"
    guard let result = try? ProcessRunner.run(program, ["--version"]), result.succeeded,
      let version = Version(versionOutput: result.standardOutput)
    else { return nil }
    return RustCompiler(program: program, version: version)
  }
}

/// What the BOLT step did and what it cost.
public struct BoltReport: Codable, Sendable, Equatable {
  /// Wall-clock seconds of each step.
  public struct Seconds: Codable, Sendable, Equatable {
    /// `llvm-bolt -instrument`.
    public var instrument: Double
    /// The instrumented launch.
    public var launch: Double
    /// The optimizing rewrite.
    public var optimize: Double
  }

  public var binary: String
  public var output: String
  public var order: String
  /// The llvm-bolt that ran.
  public var bolt: String
  /// The launch that was profiled, with the instrumented copy in the binary's place.
  public var command: [String]
  /// How the instrumented launch ended (0, or its status; 128 + signal).
  public var launchStatus: Int32
  /// Functions placed first, in the orderfile's order.
  public var orderedFunctions: Int
  /// Orderfile entries the binary has no function of.
  public var absentFunctions: [String]
  /// Cold parts named by the orderfile, left to BOLT's splitting.
  public var coldPartsLeftToBolt: Int
  /// BOLT's count of functions the profile saw run, and of all functions: nil when it did
  /// not print them.
  public var profiledFunctions: Int?
  public var binaryFunctions: Int?
  /// Bytes BOLT kept hot and moved cold in the functions it split, from its summary.
  public var hotBytes: UInt64?
  public var coldBytes: UInt64?
  public var inputBytes: UInt64
  public var outputBytes: UInt64
  /// DWARF bytes (`.debug_*`) in the binary and in the output: llvm-bolt carries debug info
  /// over only when asked (`-update-debug-sections`), so most of a size drop can be this.
  public var debugInfoBytes: DebugInfoBytes
  public var seconds: Seconds
  /// The optimizing options, to repeat the step by hand.
  public var optimizeOptions: [String]
  /// BOLT's own warnings, once each.
  public var warnings: [String]
  /// Whether the new code went where the old text was (`--old-text`): nil when not asked,
  /// false when it did not fit and BOLT wrote a new segment.
  public var textInOldPlace: Bool?
  /// Ordered functions BOLT left at their old address, outside the new hot text.
  public var leftInPlace: [String]
  /// Functions of the binary the compiler had already split into cold parts (`foo.cold.1`):
  /// BOLT's support for them is limited, and it may leave them in place.
  public var compilerSplitFunctions: Int

  public struct DebugInfoBytes: Codable, Sendable, Equatable {
    public var input: UInt64
    public var output: UInt64
    public var dropped: Bool { output < input }
  }

  /// The output's size over the binary's.
  public var growth: Double { inputBytes == 0 ? 0 : Double(outputBytes) / Double(inputBytes) }

  /// Growth above which the report warns before the output ships.
  public static let notableGrowth = 1.5
}

import Foundation

/// The figures llvm-bolt prints about a rewrite, read from its log.
///
/// They are BOLT's own wording (`BOLT-INFO: …`), which may change between versions: a
/// line that is not found leaves its figure nil rather than failing the step.
struct BoltSummary {
  var profiledFunctions: Int?
  var binaryFunctions: Int?
  var hotBytes: UInt64?
  var coldBytes: UInt64?
  var warnings: [String] = []
  /// BOLT said the new code did not fit in the old text (`-use-old-text`) and wrote it
  /// into a new segment instead.
  var oldTextFailed = false

  init(log: String) {
    var seen = Set<String>()
    for line in log.split(separator: "\n").map(String.init) {
      // "BOLT-INFO: 8 out of 12 functions in the binary (66.7%) have non-empty execution profile"
      if line.contains("have non-empty execution profile"), let numbers = Self.numbers(in: line, count: 2) {
        profiledFunctions = Int(numbers[0])
        binaryFunctions = Int(numbers[1])
      }
      // "BOLT-INFO: splitting separates 155 hot bytes from 106 cold bytes (…)"
      if line.contains("splitting separates"), let numbers = Self.numbers(in: line, count: 2) {
        hotBytes = numbers[0]
        coldBytes = numbers[1]
      }
      // "BOLT-WARNING: --use-old-text failed. The original .text too small to fit …"
      if line.contains("use-old-text failed") { oldTextFailed = true }
      if line.hasPrefix("BOLT-WARNING: "), seen.insert(line).inserted {
        warnings.append(String(line.dropFirst("BOLT-WARNING: ".count)))
      }
    }
  }

  /// The first `count` whole numbers of the line, or nil when it has fewer.
  static func numbers(in line: String, count: Int) -> [UInt64]? {
    let found = line.split(whereSeparator: { !$0.isNumber }).compactMap { UInt64($0) }
    return found.count >= count ? Array(found.prefix(count)) : nil
  }
}

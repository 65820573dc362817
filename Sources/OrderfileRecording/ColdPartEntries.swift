import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// The places where a function jumps into its cold parts past their first byte.
///
/// A breakpoint on a function's first byte sees every call, but a cold part (`foo.cold`) is
/// not called: its function jumps into it, and clang's `-fsplit-machine-functions` jumps to
/// whichever of its blocks the hot part leaves for (`jg foo.cold+0x6`). Those targets are
/// read from the function's own code with `llvm-objdump`, so each is an instruction
/// boundary, and armed beside the entries; a hit there records the cold part.
enum ColdPartEntries {
  /// `llvm-objdump` on PATH, else nil.
  static func disassembler() -> String? {
    let found = ProcessRunner.resolve("llvm-objdump")
    return found.hasPrefix("/") ? found : nil
  }

  /// The functions of `functions` that have cold parts, by name, with those parts' ranges.
  static func coldParts(of functions: [FunctionSymbol]) -> [String: [Range<UInt64>]] {
    var parts: [String: [Range<UInt64>]] = [:]
    for function in functions where function.hasSymbol && function.size > 0 {
      guard let parent = CloneName.coldPartParent(of: function.name) else { continue }
      parts[parent, default: []].append(function.address..<function.address + function.size)
    }
    return parts
  }

  /// The targets of the direct jumps that the functions owning cold parts make into those
  /// parts past their first byte, sorted; empty when the disassembler fails.
  static func entries(binary: String, functions: [FunctionSymbol], disassembler: String) -> [UInt64] {
    let parts = coldParts(of: functions)
    let ranges = parts.values.flatMap { $0 }.sorted { $0.lowerBound < $1.lowerBound }
    guard !ranges.isEmpty else { return [] }
    var targets = Set<UInt64>()
    // A few hundred names a run keeps the command line short.
    let parents = parts.keys.sorted()
    for start in stride(from: 0, to: parents.count, by: 300) {
      let names = parents[start..<min(start + 300, parents.count)].joined(separator: ",")
      guard
        let result = try? ProcessRunner.run(
          disassembler, ["-d", "--no-show-raw-insn", "--disassemble-symbols=" + names, binary]),
        result.succeeded
      else { return [] }
      // Bytes, not Characters: llvm-objdump prints ASCII, and splitting thousands of lines into
      // grapheme clusters was most of the tool's own planning time on Lua (perf record).
      for line in result.standardOutput.utf8.split(separator: UInt8(ascii: "\n")) {
        guard let target = jumpTarget(bytes: line), let part = ranges.first(where: { $0.contains(target) }),
          target != part.lowerBound
        else { continue }
        targets.insert(target)
      }
    }
    return targets.sorted()
  }

  /// The target of a direct jump in a line of llvm-objdump's output, nil for any other line
  /// (calls among them: a call returns, so it never enters a cold part):
  /// - x86-64: `    4075:      \tjg\t0x4b53 <parse_1.cold+0x6>`;
  /// - arm64: `b`, `b.gt`, `bc.ne`, `cbz w0,`, `tbnz w1, #0x3,` before the target
  ///   (`   13660:      \tb\t0xab0 <parse_3.cold>`).
  static func jumpTarget(_ line: Substring) -> UInt64? {
    jumpTarget(bytes: line.utf8)
  }

  static func jumpTarget(bytes line: Substring.UTF8View) -> UInt64? {
    let words = line.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
    // The address comes first: skip it, since an arm64 mnemonic can look like a hex digit (b).
    guard let address = words.firstIndex(where: { $0.last == UInt8(ascii: ":") }),
      let mnemonic = words[(address + 1)...].firstIndex(where: isDirectJump)
    else { return nil }
    // Operands before the target end with a comma (the register of cbz, the bit of tbz).
    guard let target = words[(mnemonic + 1)...].first(where: { $0.last != UInt8(ascii: ",") }),
      target.starts(with: "0x".utf8), let digits = String(target.dropFirst(2))
    else {
      return nil
    }
    return UInt64(digits, radix: 16)
  }

  /// Whether `mnemonic` is a jump that can name its target: every x86-64 `j…`, and arm64's
  /// branches without link (`br`, an indirect branch, names none).
  private static func isDirectJump(_ mnemonic: Substring.UTF8View) -> Bool {
    switch mnemonic.first {
    case UInt8(ascii: "j"):
      return true
    case UInt8(ascii: "b"):
      return mnemonic.count == 1 || mnemonic.starts(with: "b.".utf8) || mnemonic.starts(with: "bc.".utf8)
    case UInt8(ascii: "c"), UInt8(ascii: "t"):
      return ["cbz", "cbnz", "tbz", "tbnz"].contains { mnemonic.elementsEqual($0.utf8) }
    default:
      return false
    }
  }
}

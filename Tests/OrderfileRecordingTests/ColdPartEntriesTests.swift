import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@testable import OrderfileRecording

@Suite("Jumps into cold parts, read from llvm-objdump on x86-64 and arm64")
struct ColdPartEntriesTests {
  @Test("direct jumps of both machines name their target; calls, indirect jumps and other lines do not")
  func jumpLines() {
    let lines: [(String, UInt64?)] = [
      ("    4075:      \tjg\t0x4b53 <parse_1.cold+0x6>", 0x4b53),
      ("    4080:      \tjmp\t0x4b60 <parse_2.cold>", 0x4b60),
      ("    4085:      \tjmpq\t*0x2fe2(%rip)           # 0x7070 <x>", nil),
      ("    4090:      \tcall\t0x4b53 <parse_1.cold+0x6>", nil),
      ("   1125c:      \tb\t0x13538 <parse_3.cold+0x8>", 0x13538),
      ("   b0c4:      \tb.gt\t0x13638 <parse_3+0x28>", 0x13638),
      ("   13660:      \tbc.ne\t0xab0 <parse_3.cold>", 0xab0),
      ("   13664:      \tcbz\tw0, 0xab8 <parse_3.cold+0x8>", 0xab8),
      ("   13668:      \tcbnz\tx19, 0xabc <parse_3.cold+0xc>", 0xabc),
      ("   1366c:      \ttbnz\tw1, #0x3, 0xac0 <parse_3.cold+0x10>", 0xac0),
      ("   13670:      \tbl\t0xa40 <note>", nil),
      ("   13674:      \tbr\tx16", nil),
      ("   bb78:      \tadd\tw0, w0, #0x3", nil),
      ("0000000000013610 <parse_3>:", nil),
    ]
    for (line, target) in lines {
      #expect(ColdPartEntries.jumpTarget(Substring(line)) == target, "\(line)")
    }
  }

  @Test(
    "an arm64 binary split by clang's -fsplit-machine-functions: the jumps past each cold part's first instruction",
    .enabled(if: Arm64.available, Comment(rawValue: Arm64.skipReason)))
  func arm64SplitFunctions() throws {
    let work = try TemporaryDirectory("orderfile-arm64-cold")
    defer { work.remove() }
    let source = PackagePaths.fixtures + "/coldparts/launch.c"
    let profile = try coldPartsProfile(in: work)
    let (clang, cross) = Arm64.compiler("clang")
    let binary = work.file("split")
    try runChecked(
      clang,
      cross + [
        "-O2", "-fprofile-use=" + profile, "-fsplit-machine-functions", "-ffunction-sections",
        source, "-o", binary,
      ])

    let functions = try ELFSymbolizer(path: binary).functions
    let parts = ColdPartEntries.coldParts(of: functions)
    let parseParts = parts.filter { $0.key.hasPrefix("parse_") }.values.flatMap { $0 }
    #expect(parseParts.count == 16, "\(parts.keys.sorted())")
    let disassembler = ColdPartEntries.disassembler() ?? Toolchain.llvmBin + "/llvm-objdump"
    let entries = ColdPartEntries.entries(binary: binary, functions: functions, disassembler: disassembler)
    // Each parse_N leaves for its cold part at two places, one of them past its first instruction.
    let intoParse = entries.filter { entry in parseParts.contains { $0.contains(entry) } }
    #expect(intoParse.count == 16, "\(entries.map { String($0, radix: 16) })")
    let ranges = parts.values.flatMap { $0 }
    #expect(entries.allSatisfy { entry in ranges.contains { $0.contains(entry) && $0.lowerBound != entry } })
  }
}

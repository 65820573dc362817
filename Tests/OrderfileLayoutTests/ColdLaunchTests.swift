import Foundation
import OrderfileLayout
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A section as `llvm-readelf -S --wide` prints it: the section headers read without libdw.
private struct ReadelfSection {
  var name: String
  var type: String
  var offset: UInt64
  var size: UInt64
  var flags: String

  static func read(_ path: String) throws -> [ReadelfSection] {
    let listing = try runChecked("llvm-readelf", ["-S", "--wide", path]).standardOutput
    return listing.split(separator: "\n").compactMap { line in
      guard let close = line.firstIndex(of: "]"), line.trimmingCharacters(in: .whitespaces).hasPrefix("[") else {
        return nil
      }
      let fields = line[line.index(after: close)...].split(separator: " ")
      // Name Type Address Off Size ES Flg Lk Inf Al (Flg is missing when empty).
      guard fields.count >= 9, let offset = UInt64(fields[3], radix: 16), let size = UInt64(fields[4], radix: 16)
      else { return nil }
      return ReadelfSection(
        name: String(fields[0]), type: String(fields[1]), offset: offset, size: size,
        flags: fields.count == 10 ? String(fields[6]) : "")
    }
  }

  /// The section holding the byte at `offset`, as the referee should find it.
  static func holding(_ offset: UInt64, in sections: [ReadelfSection]) -> String {
    sections.last { $0.type != "NOBITS" && $0.size > 0 && $0.offset <= offset && offset < $0.offset + $0.size }?.name
      ?? FileSectionMap.outsideName
  }
}

@Suite("Cold launch by section", .serialized)
struct ColdLaunchTests {
  @Test("Sections read with libdw match llvm-readelf's, and each lands in its kind")
  func classification() throws {
    let work = try TemporaryDirectory("cold-classes")
    defer { work.remove() }
    let binary = try buildColdSectionsFixture(in: work)
    let ours = try FileSection.read(path: binary)
    let theirs = try ReadelfSection.read(binary)
    #expect(ours.map(\.name) == theirs.map(\.name))
    for (mine, other) in zip(ours, theirs) {
      #expect(mine.offset == other.offset, "\(mine.name)")
      #expect(mine.fileSize == (other.type == "NOBITS" ? 0 : other.size), "\(mine.name)")
      // The kind follows the flags llvm-readelf prints: X is code, W writable.
      let kind = SectionKind.of(mine)
      if other.flags.contains("X") { #expect(kind == .code, "\(mine.name)") }
      if kind == .writableData { #expect(other.flags.contains("W"), "\(mine.name)") }
      if other.type == "RELA" { #expect(kind == .relocations, "\(mine.name)") }
    }
    let expected: [String: SectionKind] = [
      ".text": .code, ".init": .code, ".plt": .code, ".rela.dyn": .relocations, ".rela.plt": .relocations,
      ".dynsym": .symbols, ".dynstr": .symbols, ".gnu.hash": .symbols, ".gnu.version": .symbols,
      ".gnu.version_r": .symbols, ".symtab": .symbols, ".strtab": .symbols, ".eh_frame": .unwind,
      ".eh_frame_hdr": .unwind, ".interp": .metadata, ".note.ABI-tag": .metadata, ".dynamic": .metadata,
      ".comment": .metadata, ".shstrtab": .metadata, ".rodata": .readOnlyData, ".data": .writableData,
      ".data.rel.ro": .writableData, ".got": .writableData, ".got.plt": .writableData, ".init_array": .writableData,
    ]
    let kinds = Dictionary(ours.map { ($0.name, SectionKind.of($0)) }, uniquingKeysWith: { first, _ in first })
    for (name, kind) in expected { #expect(kinds[name] == kind, "\(name)") }
    // Swift's metadata is plain allocated data by its flags: only its name tells.
    #expect(SectionKind.of(name: "swift5_typeref", type: 1, flags: 0x2) == .metadata)
    #expect(SectionKind.of(name: ".relr.dyn", type: 19, flags: 0x2) == .relocations)
  }

  @Test("Without root or a loop device: the page cache method finds every page the fixture touched")
  func pageCacheOnAnyDisk() throws {
    let work = try TemporaryDirectory("cold-any")
    defer { work.remove() }
    let binary = try buildColdSectionsFixture(in: work)
    let launch = try ColdLaunchReferee(method: .pageCache).measure(program: binary, arguments: [])
    #expect(launch.method == .pageCache && launch.exitStatus == 0)
    let module = try #require(launch.modules.first)
    #expect(module.residentBefore == 0)
    let map = try FileSectionMap(path: binary)
    let rodata = try #require(map.sections.first { $0.name == ".rodata" })
    #expect(module.count(of: .readOnlyData).pagesRead >= 4)
    #expect(module.count(of: .relocations).pagesRead >= 96 / 4)
    #expect(module.total.pagesRead <= module.filePages)
    #expect(rodata.fileSize > 0 && module.total.majorFaults == nil)
  }

  @Test(
    "On a loop device with 16 KiB read-ahead, perf's majors by section: the pages the fixture touched, and what llvm-readelf says of perf's own lines",
    .enabled(if: LoopFileSystem.unavailableWithPerf == nil, "\(LoopFileSystem.unavailableWithPerf ?? "")"))
  func perfMajorsBySection() throws {
    let disk = try LoopFileSystem(megabytes: 16, type: "ext4")
    defer { disk.unmount() }
    try disk.setReadAhead(kibibytes: 16)
    let work = try TemporaryDirectory("cold-perf")
    defer { work.remove() }
    let built = try buildColdSectionsFixture(in: work)
    let binary = disk.file("sections")
    try FileManager.default.copyItem(atPath: built, toPath: binary)
    let launch = try ColdLaunchReferee(method: .perf).measure(program: binary, arguments: [])
    #expect(launch.method == .perf)
    let module = try #require(launch.modules.first)
    #expect(module.device?.readAheadKiB == 16)
    // One major per page the program touched, each far from the others and from the edges.
    #expect(module.count(of: .readOnlyData).majorFaults == 4)
    #expect(module.sections.first { $0.name == ".data" }?.count.majorFaults == 4)
    #expect((module.count(of: .relocations).majorFaults ?? 0) > 0)

    // perf run by hand, its offsets placed in llvm-readelf's sections: the same counts.
    try PageCache.evict(path: binary)
    let recording = work.file("majors.data")
    let output = work.file("majors.txt")
    try runChecked(
      "perf", ["record", "-e", "major-faults", "-c", "1", "-d", "--no-buildid", "-q", "-o", recording, "--", binary])
    try runChecked("perf", ["trace", "-i", recording, "--no-syscalls", "-F", "maj", "-o", output])
    let sections = try ReadelfSection.read(binary)
    var byHand: [String: Int] = [:]
    for line in try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n") {
      guard let at = line.range(of: binary + "@0x") else { continue }
      let hex = line[at.upperBound...].prefix { $0.isHexDigit }
      guard let offset = UInt64(hex, radix: 16) else { continue }
      byHand[ReadelfSection.holding(offset, in: sections), default: 0] += 1
    }
    let counted = Dictionary(
      uniqueKeysWithValues: module.sections.compactMap { section in
        section.count.majorFaults.flatMap { $0 > 0 ? (section.name, $0) : nil }
      })
    #expect(counted == byHand)
    // Every page a major brought in is among the pages read, and perf's own reads of the
    // file (its symbol tables) are not: the page cache method alone reads as many.
    #expect(module.total.pagesRead >= module.total.majorFaults ?? 0)
    let alone = try ColdLaunchReferee(method: .pageCache).measure(program: binary, arguments: [])
    #expect(alone.modules.first?.total.pagesRead == module.total.pagesRead)
  }

  @Test(
    "The page cache method's pages read are the device's own count of what it read",
    .enabled(if: LoopFileSystem.unavailable == nil, "\(LoopFileSystem.unavailable ?? "")"))
  func pageCacheAgainstTheDevice() throws {
    let disk = try LoopFileSystem(megabytes: 16, type: "ext4")
    defer { disk.unmount() }
    try disk.setReadAhead(kibibytes: 16)
    let work = try TemporaryDirectory("cold-device")
    defer { work.remove() }
    let built = try buildColdSectionsFixture(in: work)
    let binary = disk.file("sections")
    try FileManager.default.copyItem(atPath: built, toPath: binary)
    // One launch first, so that the file system's own blocks (inode, extents) are cached and
    // the device's count below holds the launch's reads alone.
    _ = try ColdLaunchReferee(method: .pageCache).measure(program: binary, arguments: [])
    let before = try disk.sectorsRead()
    let launch = try ColdLaunchReferee(method: .pageCache).measure(program: binary, arguments: [])
    let sectors = try disk.sectorsRead() - before
    let module = try #require(launch.modules.first)
    #expect(module.residentBefore == 0)
    #expect(module.total.pagesRead * Int(launch.pageSize) == sectors * 512)
    #expect(module.count(of: .readOnlyData).pagesRead >= 4)
  }
}

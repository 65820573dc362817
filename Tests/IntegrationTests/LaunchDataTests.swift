import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The in-process recorder, which alone records data touches.
private let inProcessLibrary = PackagePaths.binaryDirectory + "/libOrderfileInProcess.so"

/// The tables the fixture's launch reads, in the order it reads them (descending, every seventh).
private let launchTables = stride(from: 91, through: 0, by: -7).map { "launch_table_\($0)" }

/// The defined symbols of `binary` with their addresses and sizes, by name.
private func symbols(of binary: String) throws -> [String: Range<UInt64>] {
  var found: [String: Range<UInt64>] = [:]
  for line in try runChecked(Toolchain.nm, ["--defined-only", "-S", binary]).standardOutput.split(separator: "\n") {
    let fields = line.split(separator: " ")
    guard fields.count == 4, let address = UInt64(fields[0], radix: 16), let size = UInt64(fields[1], radix: 16)
    else { continue }
    found[String(fields[3])] = address..<(address + size)
  }
  return found
}

/// The distinct 4 KiB pages of `binary`'s read-only data its launch touched, recorded with
/// `--data` (every page made PROT_NONE, each first touch counted): of `.rodata`, and in all.
private func dataPages(_ binary: String, in work: TemporaryDirectory) throws -> (rodata: Int, all: Int) {
  let trace = work.file(PathName.split(binary).base + ".data.trace")
  let recorded = try orderfile(["record", "-q", "--data", "-o", trace, "--", binary])
  guard recorded.succeeded else { throw TestSupportError("record --data failed: \(recorded.standardError)") }
  let rodata = try #require(try sectionRange(".rodata", of: binary))
  let pages = Set(try TraceReader.read(path: trace).dataTouches.map(\.page))
  return (pages.filter { $0.overlaps(rodata) }.count, pages.count)
}

/// The address range of section `name` in `binary`, from `readelf -S`.
func sectionRange(_ name: String, of binary: String) throws -> Range<UInt64>? {
  let text = try runChecked(ProcessRunner.resolve("readelf"), ["-SW", binary]).standardOutput
  for line in text.split(separator: "\n") {
    let fields = line.split(separator: " ").filter { !$0.hasPrefix("[") && $0 != "]" }
    guard let index = fields.firstIndex(of: Substring(name)), fields.count > index + 4,
      let address = UInt64(fields[index + 2], radix: 16), let size = UInt64(fields[index + 4], radix: 16)
    else { continue }
    return address..<(address + size)
  }
  return nil
}

@Suite(
  "The launch's data: recorded in-process, placed by name and by input section, pages measured",
  .enabled(
    if: FileManager.default.fileExists(atPath: inProcessLibrary), "needs Scripts/build-runtime's \(inProcessLibrary)"))
struct LaunchDataTests {
  @Test("record --data sees each table the launch reads; generate places them in that order, by lld and by script")
  func recordedAndPlaced() throws {
    let work = try TemporaryDirectory("orderfile-launch-data")
    defer { work.remove() }
    let object = work.file("launchdata.o")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-ffunction-sections", "-fdata-sections", "-c", PackagePaths.fixtures + "/launchdata/launchdata.c",
        "-o", object,
      ])
    func link(_ name: String, _ extra: [String] = []) throws -> String {
      let binary = work.file(name)
      let result = try runChecked(
        Toolchain.clang,
        ["-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map", object, "-o", binary] + extra,
        environment: Toolchain.environment)
      #expect(!(result.standardOutput + result.standardError).contains("warning"), "\(result.standardError)")
      return binary
    }
    let shipped = try link("default")
    let printed = try runChecked(shipped, []).standardOutput

    // 1. Recorded: the first touch inside each table the launch reads, and none in the others.
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "--data", "-o", trace, "--", shipped])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == printed)
    let touches = try TraceReader.read(path: trace).dataTouches
    let tables = try symbols(of: shipped).filter { $0.key.hasPrefix("launch_table_") }
    let touched = tables.filter { table in touches.contains { table.value.contains($0.address) } }
    #expect(Set(touched.keys) == Set(launchTables), "\(touched.keys.sorted())")
    let firstTouch = launchTables.compactMap { name in
      touches.firstIndex { tables[name]?.contains($0.address) == true }
    }
    #expect(firstTouch == firstTouch.sorted() && firstTouch.count == launchTables.count, "\(firstTouch)")

    // 2. A symbol orderfile names the tables after the code, in the order they were read; the
    // relink puts them first in .rodata, in that order, one after the other.
    let order = work.file("launch.order")
    let generated = try orderfile(["generate", trace, "-o", order, "--format", "lld"])
    #expect(generated.succeeded, "\(generated.standardError)")
    #expect(generated.standardOutput.contains("1 have no symbol"), "\(generated.standardOutput)")
    let lines = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    #expect(lines.filter { $0.hasPrefix("launch_table_") } == launchTables, "\(lines)")
    #expect(lines.contains("launch_tables"), "the pointer table in .data.rel.ro is placed too: \(lines)")
    let ordered = try link("ordered", ["-Wl,--symbol-ordering-file=" + order])
    #expect(try runChecked(ordered, []).standardOutput == printed)
    let placed = try symbols(of: ordered)
    let rodata = try #require(try sectionRange(".rodata", of: ordered))
    let byAddress = placed.filter { rodata.contains($0.value.lowerBound) }.sorted {
      $0.value.lowerBound < $1.value.lowerBound
    }
    #expect(
      Array(byAddress.prefix(launchTables.count).map(\.key)) == launchTables, "\(byAddress.prefix(16).map(\.key))")

    // 3. The lld script places by input section, named or not: the switch's jump table
    // (.rodata.classify, no symbol) goes with the tables, first in .rodata, then the literals.
    // generate picks the script itself: the trace holds data and the link map is there.
    let script = work.file("launch.ld")
    let chosen = try orderfile(["generate", trace, "-o", script])
    #expect(chosen.succeeded, "\(chosen.standardError)")
    #expect(chosen.standardError.contains("writing an lld script"), "\(chosen.standardError)")
    #expect(chosen.standardOutput.contains("1 have no symbol (jump tables, metadata), placed by input section"))
    #expect(try FileReading.text(atPath: script).contains("SECTIONS"))
    // Without the map the script cannot be written: the symbol list, and why.
    try FileManager.default.moveItem(atPath: shipped + ".map", toPath: shipped + ".map.aside")
    let unmapped = try orderfile(["generate", trace, "-o", work.file("unmapped.order")])
    try FileManager.default.moveItem(atPath: shipped + ".map.aside", toPath: shipped + ".map")
    #expect(unmapped.succeeded, "\(unmapped.standardError)")
    #expect(
      unmapped.standardError.contains("\(shipped).map is missing: writing a symbol list"), "\(unmapped.standardError)")
    #expect(try FileReading.text(atPath: work.file("unmapped.order")) == FileReading.text(atPath: order))
    let scripted = try link("scripted", ["-Wl,--script=" + script])
    #expect(try runChecked(scripted, []).standardOutput == printed)
    let inputs = try inputSections(of: ".rodata", inMap: scripted + ".map")
    let launchInputs = Set(launchTables.map { ".rodata." + $0 } + [".rodata.classify"])
    #expect(Set(inputs.prefix(launchInputs.count)) == launchInputs, "\(inputs.prefix(20))")
    // The string literals the launch printed are merged with the other literals of the
    // objects that ran, right after them.
    #expect(inputs.firstIndex(of: ".rodata.str1.1") == launchInputs.count, "\(inputs.prefix(20))")
    #expect(try inputSections(of: ".data.rel.ro", inMap: scripted + ".map").first == ".data.rel.ro.launch_tables")
    // .rodata stays where lld puts it, in front of the unwind tables: near the file's start.
    let scriptedRodata = try #require(try sectionRange(".rodata", of: scripted))
    let frameHeader = try #require(try sectionRange(".eh_frame_hdr", of: scripted))
    #expect(scriptedRodata.upperBound <= frameHeader.lowerBound, "\(scriptedRodata) \(frameHeader)")

    // 4. Measured: the ordered launch reads fewer pages of .rodata than the default one, and
    // estimate counted the read-only data pages of each relink within 3 pages and 3%.
    let defaultPages = try dataPages(shipped, in: work)
    let orderedPages = try dataPages(ordered, in: work)
    let scriptedPages = try dataPages(scripted, in: work)
    #expect(orderedPages.rodata < defaultPages.rodata && scriptedPages.rodata < defaultPages.rodata)
    for (orderfile, measured) in [(order, orderedPages.all), (script, scriptedPages.all)] {
      let estimate = try json(
        try IntegrationTests.orderfile([
          "estimate", "--trace", trace, "--binary", shipped, "--order", orderfile, "--json",
        ]))
      let counts = try #require((estimate["dataPages"] as? [[String: Any]])?.first { $0["pageSize"] as? Int == 4096 })
      #expect(counts["current"] as? Int == defaultPages.all, "\(counts)")
      let estimated = try #require(counts["ordered"] as? Int, "\(counts)")
      #expect(abs(estimated - measured) <= max(3, measured * 3 / 100), "estimated \(estimated), measured \(measured)")
    }
    print(
      "read-only data pages the launch touched (of them .rodata): default \(defaultPages.all) (\(defaultPages.rodata)), symbol order \(orderedPages.all) (\(orderedPages.rodata)), lld script \(scriptedPages.all) (\(scriptedPages.rodata))"
    )
  }

  @Test("record --data follows a page read byte by byte to its end: every string of the scan is recorded")
  func byteByByteScan() throws {
    let work = try TemporaryDirectory("orderfile-launch-data-bytewise")
    defer { work.remove() }
    let binary = work.file("bytewise")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-fdata-sections", "-fuse-ld=lld", PackagePaths.fixtures + "/launchdata/bytewise.c", "-o", binary,
      ], environment: Toolchain.environment)
    let trace = work.file("launch.trace")
    let recorded = try IntegrationTests.orderfile(["record", "-q", "--data", "-o", trace, "--", binary])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let touches = try TraceReader.read(path: trace).dataTouches
    let strings = try symbols(of: binary).filter { $0.key.hasPrefix("bytewise_doc_") }
    #expect(strings.count == 24)
    // Each string's every granule: a scan seen to its end, not only its first bytes.
    let unseen = strings.filter { string in
      stride(from: string.value.lowerBound, to: string.value.upperBound, by: 16).contains { granule in
        !touches.contains { $0.address / 16 == granule / 16 }
      }
    }
    #expect(unseen.isEmpty, "strings not wholly recorded: \(unseen.keys.sorted())")
  }

  @Test(
    "generate places an object the launch read inside a granule whose first touch was another's, and a table read at one entry last"
  )
  func sharedGranule() throws {
    let work = try TemporaryDirectory("orderfile-launch-data-granule")
    defer { work.remove() }
    let binary = work.file("bytewise")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-ffunction-sections", "-fdata-sections", "-fuse-ld=lld", "-Wl,--build-id",
        "-Wl,-Map=" + binary + ".map", PackagePaths.fixtures + "/launchdata/bytewise.c", "-o", binary,
      ], environment: Toolchain.environment)
    let strings = try symbols(of: binary)
    let first = try #require(strings["granule_first"])
    let second = try #require(strings["granule_second"])
    try #require(second.lowerBound / 16 == first.lowerBound / 16, "the fixture's strings share a granule")
    let trace = work.file("launch.trace")
    let recorded = try IntegrationTests.orderfile(["record", "-q", "--data", "-o", trace, "--", binary])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    // The recorder saw the granule once, in the first string: no touch of the second's own.
    let touches = try TraceReader.read(path: trace).dataTouches
    #expect(touches.contains { first.contains($0.address) })
    #expect(!touches.contains { second.contains($0.address) })
    let order = work.file("launch.order")
    #expect(try IntegrationTests.orderfile(["generate", trace, "-o", order, "--format", "lld"]).succeeded)
    let lines = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    #expect(lines.contains("granule_first") && lines.contains("granule_second"), "\(lines)")
    // The 64 KiB table the launch read first, at one entry, goes after the strings it read whole.
    let sparse = try #require(lines.firstIndex(of: "bytewise_sparse_table"), "\(lines)")
    let docs = lines.indices.filter { lines[$0].hasPrefix("bytewise_doc_") }
    #expect(docs.count == 24 && docs.allSatisfy { $0 < sparse }, "\(lines)")
    // The merged literals, read before the named strings, stand before them in a script.
    let script = work.file("launch.ld")
    #expect(try IntegrationTests.orderfile(["generate", trace, "-o", script, "--format", "lld-script"]).succeeded)
    let scriptLines = try FileReading.text(atPath: script).split(separator: "\n").map(String.init)
    let literals = try #require(scriptLines.firstIndex { $0.hasSuffix("(.rodata.str1.1)") }, "\(scriptLines)")
    let firstString = try #require(scriptLines.firstIndex { $0.hasSuffix("(.rodata.bytewise_doc_0)") })
    #expect(literals < firstString, "\(scriptLines)")
  }

  @Test("a program's own SIGSEGV handler still gets its own faults while its data is recorded")
  func programsOwnFaultHandler() throws {
    let work = try TemporaryDirectory("orderfile-launch-data-fault")
    defer { work.remove() }
    let binary = work.file("own_fault")
    try runChecked(
      Toolchain.clang, ["-O2", "-fuse-ld=lld", PackagePaths.fixtures + "/launchdata/own_fault.c", "-o", binary],
      environment: Toolchain.environment)
    let trace = work.file("launch.trace")
    let recorded = try IntegrationTests.orderfile(["record", "--data", "-o", trace, "--", binary])
    #expect(recorded.status == 0, "\(recorded.standardError)")
    #expect(recorded.standardError.contains("read-only data: "), "\(recorded.standardError)")
    #expect(recorded.standardOutput == "read from .rodata, own fault caught\n")
    // The recorder saw the literal read, on a page of its own handler's.
    let message = try #require(try symbols(of: binary)["message"])
    #expect(try TraceReader.read(path: trace).dataTouches.contains { message.contains($0.address) })
  }
}

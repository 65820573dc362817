import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The distinct 4 KiB pages of `binary`'s code that one run executes, counted by the page probe.
private func touchedPages(_ binary: String, in work: TemporaryDirectory) throws -> Int {
  try TouchedPages.ofMainExecutable(running: binary, in: work).count
}

/// `orderfile flags --language swift … --json`: the `swift build` arguments.
private func swiftArguments(_ build: [String]) throws -> [String] {
  struct Printed: Decodable { var arguments: [String] }
  let result = try orderfile(["flags", "--language", "swift", "--json"] + build)
  guard result.succeeded else { throw TestSupportError("orderfile flags failed: \(result.standardError)") }
  return try JSONDecoder().decode(Printed.self, from: Data(result.standardOutput.utf8)).arguments
}

/// The names of the input sections lld placed in `outputSection`, in address order, from a map.
func inputSections(of outputSection: String, inMap map: String) throws -> [String] {
  var inside = false
  var sections: [String] = []
  for line in try FileReading.text(atPath: map).split(separator: "\n").dropFirst() {
    let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: true)
    guard fields.count == 5 else { continue }
    let rest = fields[4]
    if !rest.hasPrefix(" ") && !rest.contains(":(") {
      inside = rest == Substring(outputSection)
    } else if inside, let open = rest.range(of: ":(", options: .backwards) {
      sections.append(String(rest[open.upperBound...].dropLast()))
    }
  }
  return sections
}

@Suite("Launch code without a symbol, and cold parts that ran: recorded, ordered, measured")
struct LaunchCodeWithoutSymbolTests {
  @Test(
    "Swift: private functions without a symbol are recorded, placed by an lld script, and the pages go down",
    .enabled(if: ExampleTools.swift != nil, "swift is not installed"))
  func swiftFunctionsWithoutSymbol() throws {
    let swift = try #require(ExampleTools.swift)
    let work = try TemporaryDirectory("orderfile-unnamed-swift")
    defer { work.remove() }
    let package = work.file("package")
    try runChecked(
      ProcessRunner.resolve("python3"), [PackagePaths.fixtures + "/unnamed/make-swift-package.py", "16", package])
    let base = ["build", "-c", "release", "--package-path", package, "--scratch-path", work.file(".build")]
    let bin = try runChecked(swift, base + ["--show-bin-path"]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    /// Links the release build with these arguments and a map beside it; returns a copy of both.
    func build(_ name: String, _ arguments: [String]) throws -> (binary: String, output: String) {
      let result = try runChecked(swift, base + arguments + ["-Xlinker", "-Map=" + bin + "/Launch.map"])
      let binary = work.file(name)
      try? FileManager.default.removeItem(atPath: binary)
      try? FileManager.default.removeItem(atPath: binary + ".map")
      try FileManager.default.copyItem(atPath: bin + "/Launch", toPath: binary)
      try FileManager.default.copyItem(atPath: bin + "/Launch.map", toPath: binary + ".map")
      return (binary, result.standardOutput + result.standardError)
    }

    // 1. The release build as it ships, with the flags the lld-script format asks for.
    let shipped = try build("default", try swiftArguments(["--format", "lld-script"])).binary
    let printed = try runChecked(shipped, []).standardOutput

    // 2. Recorded without a rebuild: the symbol-less functions are armed and recorded.
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", shipped])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == printed)
    let report = try json(try orderfile(["report", trace, "--json"]))
    let names = (report["firstCalls"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    let unnamed = names.filter { $0.contains("(.text..Lobjectdestroy") }
    #expect(unnamed.count >= 16, "\(names)")

    // 3. A symbol orderfile cannot name them, and says so; the lld script places them.
    let symbolOrder = work.file("launch.order")
    let symbols = try orderfile(["generate", trace, "-o", symbolOrder])
    #expect(symbols.succeeded, "\(symbols.standardError)")
    #expect(symbols.standardOutput.contains("launch functions have no symbol"), "\(symbols.standardOutput)")
    // The page cost is told: where the code stays against where the script puts it.
    let cost = try json(try orderfile(["generate", trace, "-o", work.file("again.order"), "--json"]))
    let module = try #require((cost["modules"] as? [[String: Any]])?.first)
    let at4K = try #require((module["withoutSymbolCost"] as? [[String: Any]])?.first { $0["pageSize"] as? Int == 4096 })
    let left = try #require(at4K["ordered"] as? Int)
    let placedToo = try #require(at4K["placed"] as? Int)
    #expect(placedToo < left, "\(at4K)")
    #expect(!(try FileReading.text(atPath: symbolOrder)).contains(".L"))
    let script = work.file("launch.ld")
    let scripted = try orderfile(["generate", trace, "-o", script, "--format", "lld-script"])
    #expect(scripted.succeeded, "\(scripted.standardError)")
    let scriptText = try FileReading.text(atPath: script)
    for name in unnamed { #expect(scriptText.contains("*" + name), "\(name) not in the script") }

    // 4. Relinked with each: no linker warning; the script puts the recorded sections first,
    // in its order.
    let withSymbols = try build("symbols", try swiftArguments(["--release", symbolOrder]))
    let withScript = try build("script", try swiftArguments(["--release", script, "--format", "lld-script"]))
    #expect(!withScript.output.contains("warning"), "\(withScript.output)")
    #expect(try runChecked(withScript.binary, []).standardOutput == printed)
    let placed = try inputSections(of: ".text.launch", inMap: withScript.binary + ".map")
    let wanted = unnamed.compactMap { $0.split(separator: "(", maxSplits: 1).last.map { String($0.dropLast()) } }
    let placedUnnamed = placed.filter { $0.hasPrefix(".text..L") }
    #expect(Set(wanted).isSubset(of: Set(placedUnnamed)), "placed: \(placedUnnamed)")
    // The names come from the map, so they hold across links: the ordered build, recorded,
    // names its code without a symbol as the default build did.
    let again = work.file("ordered.trace")
    #expect(try orderfile(["record", "-q", "-o", again, "--", withScript.binary]).succeeded)
    let againScript = work.file("ordered.ld")
    #expect(try orderfile(["generate", again, "-o", againScript, "--format", "lld-script"]).succeeded)
    func unnamedLines(_ path: String) throws -> Set<String> {
      Set(
        try FileReading.text(atPath: path).split(separator: "\n").map(String.init).filter { $0.contains("(.text..L") })
    }
    #expect(try unnamedLines(againScript) == unnamedLines(script))
    // verify matches each line to the input section it names, through the relink's map.
    let verified = try orderfile(["verify", "--binary", withScript.binary, "--order", script])
    #expect(verified.succeeded, "\(verified.standardOutput)")
    // Without that map, the entries without a symbol cannot be found, and verify says why.
    try FileManager.default.moveItem(atPath: withScript.binary + ".map", toPath: work.file("aside.map"))
    let blind = try orderfile(["verify", "--binary", withScript.binary, "--order", script])
    #expect(blind.status == 1 && blind.standardOutput.contains("link map"), "\(blind.standardOutput)")
    try FileManager.default.moveItem(atPath: work.file("aside.map"), toPath: withScript.binary + ".map")

    // 5. Measured: the script's launch touches fewer pages than the default layout and than
    // the symbol order, within two pages of estimate's lower bound, which counts them.
    let defaultPages = try touchedPages(shipped, in: work)
    let symbolPages = try touchedPages(withSymbols.binary, in: work)
    let scriptPages = try touchedPages(withScript.binary, in: work)
    let estimate = try json(
      try orderfile(["estimate", "--trace", trace, "--binary", shipped, "--order", script, "--json"]))
    let lowerBound = try #require(pages(estimate, 4096, "lowerBound"))
    let launchFunctions = estimate["launchFunctions"] as? Int ?? 0
    #expect(launchFunctions >= unnamed.count + 16, "estimate counted \(launchFunctions) launch functions")
    #expect(
      scriptPages < defaultPages && scriptPages < symbolPages,
      "default \(defaultPages), symbol order \(symbolPages), script \(scriptPages)")
    #expect(scriptPages <= lowerBound + 2, "script \(scriptPages) pages, lower bound \(lowerBound)")
    // The simulated cost agrees with what the two relinks measured, to a page each.
    #expect(abs(left - symbolPages) <= 1 && abs(placedToo - scriptPages) <= 1, "simulated \(left) and \(placedToo)")
    print(
      "swift, 4 KiB pages touched: default \(defaultPages), symbol order \(symbolPages) (simulated \(left)), lld script \(scriptPages) (simulated \(placedToo)), lower bound \(lowerBound)"
    )
  }

  @Test("gcc: the .cold parts a launch runs are placed after the launch functions, and the pages go down")
  func coldPartsThatRan() throws {
    let work = try TemporaryDirectory("orderfile-cold-parts")
    defer { work.remove() }
    // Source order kept, so each unit's pieces sit apart in the default layout.
    try coldParts(compiler: Toolchain.gcc, flags: ["-O2", "-fno-toplevel-reorder"], work: work)
  }

  @Test("clang: the cold parts -fsplit-machine-functions makes, entered past their first byte, are recorded and placed")
  func splitMachineFunctions() throws {
    let work = try TemporaryDirectory("orderfile-cold-parts-clang")
    defer { work.remove() }
    try coldParts(
      compiler: Toolchain.clang,
      flags: ["-O2", "-fprofile-use=" + (try coldPartsProfile(in: work)), "-fsplit-machine-functions"], work: work)
  }

  /// Builds the cold-parts program, records it, and checks that its 16 cold parts that ran are
  /// placed last and cut the pages the probe counts.
  private func coldParts(compiler: String, flags extraFlags: [String], work: TemporaryDirectory) throws {
    let source = PackagePaths.fixtures + "/coldparts/launch.c"
    let flags = extraFlags + ["-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", source]
    func link(_ name: String, _ extra: [String] = []) throws -> (binary: String, output: String) {
      let binary = work.file(name)
      let result = try runChecked(compiler, flags + ["-o", binary] + extra, environment: Toolchain.environment)
      return (binary, result.standardOutput + result.standardError)
    }
    let shipped = try link("default").binary
    let coldSymbols = try runChecked(Toolchain.nm, [shipped]).standardOutput.split(separator: "\n")
      .filter { $0.hasSuffix(".cold") && $0.contains(" parse_") }
    #expect(coldSymbols.count == 16, "the compiler split \(coldSymbols.count) cold parts off parse_N")
    let trace = work.file("launch.trace")
    #expect(try orderfile(["record", "-q", "-o", trace, "--", shipped]).succeeded)
    let order = work.file("launch.order")
    let generated = try orderfile(["generate", trace, "-o", order])
    #expect(generated.succeeded, "\(generated.standardError)")
    let entries = try FileReading.text(atPath: order).split(separator: "\n").map(String.init)
    let firstCold = try #require(entries.firstIndex { $0.hasSuffix(".cold") }, "\(generated.standardOutput)")
    #expect(entries[firstCold...].allSatisfy { $0.hasSuffix(".cold") }, "\(entries)")
    #expect(entries.filter { $0.hasPrefix("parse_") && $0.hasSuffix(".cold") }.count == 16, "\(entries)")

    let ordered = try link("ordered", ["-Wl,--symbol-ordering-file=" + order])
    #expect(!ordered.output.contains("warning"), "\(ordered.output)")
    #expect(try liesInOrder(Array(entries.filter { $0.hasPrefix("parse_") }), in: ordered.binary))
    let withoutCold = work.file("without-cold.order")
    try AtomicFile.write(entries.filter { !$0.hasSuffix(".cold") }.map { $0 + "\n" }.joined(), to: withoutCold)
    let hotOnly = try link("hot-only", ["-Wl,--symbol-ordering-file=" + withoutCold])

    let defaultPages = try touchedPages(shipped, in: work)
    let hotOnlyPages = try touchedPages(hotOnly.binary, in: work)
    let orderedPages = try touchedPages(ordered.binary, in: work)
    #expect(
      orderedPages < hotOnlyPages && orderedPages < defaultPages,
      "default \(defaultPages), without cold parts \(hotOnlyPages), with them \(orderedPages)")
    let estimate = try json(
      try orderfile(["estimate", "--trace", trace, "--binary", shipped, "--order", order, "--json"]))
    let lowerBound = try #require(pages(estimate, 4096, "lowerBound"))
    let estimatedNow = try #require(pages(estimate, 4096, "current"))
    #expect(orderedPages <= lowerBound + 2, "ordered \(orderedPages) pages, lower bound \(lowerBound)")
    #expect(abs(estimatedNow - defaultPages) <= 1, "estimate \(estimatedNow), probe \(defaultPages)")
    print(
      "\((compiler as NSString).lastPathComponent) cold parts, 4 KiB pages touched: default \(defaultPages) (estimate \(estimatedNow)), order without cold parts \(hotOnlyPages), with them \(orderedPages), lower bound \(lowerBound)"
    )
  }
}

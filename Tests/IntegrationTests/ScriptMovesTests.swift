import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The in-process recorder `record` runs without a rebuild.
private let inProcessLibrary = PackagePaths.binaryDirectory + "/libOrderfileInProcess.so"

/// The start address of section `name` in `binary`.
private func sectionAddress(_ name: String, of binary: String) throws -> UInt64? {
  try sectionRange(name, of: binary)?.lowerBound
}

@Suite(
  "An lld script moves what every launch reads besides its code: .got.plt beside .got, the launch's literals",
  .enabled(
    if: FileManager.default.fileExists(atPath: inProcessLibrary), "needs Scripts/build-runtime's \(inProcessLibrary)"))
struct ScriptMovesTests {
  @Test("a program with a writable .rodata: the launch objects' literals apart, .got.plt in front of .data")
  func writableReadOnlyData() throws {
    let work = try TemporaryDirectory("orderfile-script-moves")
    defer { work.remove() }
    let objects = try ["launch", "cold"].map { name in
      let object = work.file(name + ".o")
      try runChecked(
        Toolchain.clang,
        [
          "-O1", "-ffunction-sections", "-fdata-sections", "-c", PackagePaths.fixtures + "/scriptmoves/\(name).c", "-o",
          object,
        ])
      return object
    }
    func link(_ name: String, _ extra: [String] = []) throws -> String {
      let binary = work.file(name)
      try runChecked(
        Toolchain.clang,
        ["-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map"] + objects + ["-o", binary] + extra,
        environment: Toolchain.environment)
      return binary
    }
    let shipped = try link("default")
    let printed = try runChecked(shipped, []).standardOutput
    // lld's own layout, which the script changes: .got.plt behind .data, the literals of both
    // objects merged in the writable .rodata.
    let defaultGotPlt = try #require(try sectionAddress(".got.plt", of: shipped))
    #expect(defaultGotPlt > (try #require(try sectionAddress(".data", of: shipped))))
    #expect(try inputSections(of: ".rodata", inMap: shipped + ".map").contains(".rodata.str1.1"))

    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", shipped])
    #expect(recorded.succeeded, "\(recorded.standardError)")
    let script = work.file("launch.ld")
    let generated = try orderfile(["generate", trace, "--format", "lld-script", "-o", script])
    #expect(generated.succeeded, "\(generated.standardError)")
    let text = try FileReading.text(atPath: script)
    // The literals of the objects whose code ran (main's, the C runtime's), not the cold object's.
    let literals = try #require(text.range(of: "  .rodata.launch : {\n"), "\(text)")
    let block = text[literals.upperBound...].prefix { $0 != "}" }
    #expect(block.contains("    *launch.o(.rodata.str1.1)\n") && !block.contains("cold.o"), "\(text)")
    #expect(text[literals.upperBound...].contains("}\n} INSERT BEFORE .rodata;"), "\(text)")
    #expect(!text.contains("*cold.o(.rodata.str1.1)"), "\(text)")
    #expect(text.contains("  .got.plt : {\n    *(.got.plt)\n  }\n} INSERT BEFORE .data;"), "\(text)")

    let scripted = try link("scripted", ["-Wl,--script=" + script])
    #expect(try runChecked(scripted, []).standardOutput == printed)
    // The launch's literals, merged apart, and none of the cold object's.
    #expect(try inputSections(of: ".rodata.launch", inMap: scripted + ".map") == [".rodata.str1.1"])
    let strings = try runChecked(ProcessRunner.resolve("readelf"), ["-p", ".rodata.launch", scripted]).standardOutput
    #expect(strings.contains("launch literal") && !strings.contains("cold literal"), "\(strings)")
    // .got.plt now in front of .data, right behind .got.
    let gotPlt = try #require(try sectionAddress(".got.plt", of: scripted))
    #expect(gotPlt < (try #require(try sectionAddress(".data", of: scripted))))
    #expect(gotPlt > (try #require(try sectionAddress(".got", of: scripted))))

    // Recorded again from the relinked binary (as regenerate does), the script keeps both blocks.
    let again = work.file("again.trace")
    #expect(try orderfile(["record", "-q", "-o", again, "--", scripted]).succeeded)
    let regenerated = work.file("again.ld")
    #expect(try orderfile(["generate", again, "--format", "lld-script", "-o", regenerated]).succeeded)
    let kept = try FileReading.text(atPath: regenerated)
    #expect(kept.contains("  .got.plt : {\n    *(.got.plt)\n  }\n} INSERT BEFORE .data;"), "\(kept)")
    #expect(kept.contains("  .rodata.launch : {\n") && kept.contains("    *launch.o(.rodata.str1.1)\n"), "\(kept)")
  }

  @Test("a program whose .rodata stays read-only: no literals apart; .got.plt already in front of .data stays there")
  func readOnlyData() throws {
    let work = try TemporaryDirectory("orderfile-script-moves-none")
    defer { work.remove() }
    let binary = work.file("plain")
    // Without launch.c's writable .rodata input; a script puts .got.plt in front of .data.
    let source = work.file("plain.c")
    try "#include <stdio.h>\nint main(void) { printf(\"plain literal\\n\"); return 0; }\n".write(
      toFile: source, atomically: true, encoding: .utf8)
    let first = work.file("first.ld")
    try "SECTIONS {\n  .got.plt : { *(.got.plt) }\n} INSERT BEFORE .data;\n".write(
      toFile: first, atomically: true, encoding: .utf8)
    try runChecked(
      Toolchain.clang,
      [
        "-O1", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map",
        "-Wl,--script=" + first, source, "-o", binary,
      ],
      environment: Toolchain.environment)
    let trace = work.file("launch.trace")
    #expect(try orderfile(["record", "-q", "-o", trace, "--", binary]).succeeded)
    let script = work.file("launch.ld")
    #expect(try orderfile(["generate", trace, "--format", "lld-script", "-o", script]).succeeded)
    let text = try FileReading.text(atPath: script)
    #expect(!text.contains(".rodata.launch"), "\(text)")
    #expect(text.contains("  .got.plt : {\n    *(.got.plt)\n  }\n} INSERT BEFORE .data;"), "\(text)")
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The in-process recorder `record` preloads.
private let inProcessLibrary = PackagePaths.binaryDirectory + "/libOrderfileInProcess.so"

/// The start address of the code the last entry of `binary`'s `.eh_frame_hdr` search table
/// describes: the entry libgcc's `_Unwind_Find_FDE` reads before any binary search.
private func lastFrameTableEntry(of binary: String) throws -> UInt64 {
  let listing = try runChecked(ProcessRunner.resolve("readelf"), ["-SW", binary]).standardOutput
  let line = try #require(listing.split(separator: "\n").first { $0.contains(" .eh_frame_hdr ") })
  // `[Nr] Name Type Address Off Size …`, the number's bracket possibly apart from it.
  let fields = line.split(separator: " ").filter { !$0.hasPrefix("[") && $0 != "]" }
  let address = try #require(UInt64(fields[2], radix: 16))
  let offset = try #require(Int(fields[3], radix: 16))
  let bytes = try #require(FileManager.default.contents(atPath: binary))
  func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
  // Version 1; the count an unsigned 4-byte word; the table pairs of 4-byte offsets from the
  // header: what lld writes, and the only table layout libgcc searches.
  #expect(Array(bytes[offset..<offset + 4]) == [1, 0x1b, 0x03, 0x3b], "\(Array(bytes[offset..<offset + 4]))")
  let count = Int(word(offset + 8))
  let initial = Int32(bitPattern: word(offset + 12 + 8 * (count - 1)))
  return UInt64(Int64(address) + Int64(initial))
}

@Suite(
  "A Swift async main, whose main thread ends by a forced unwind: the lld script places main last",
  .enabled(
    if: FileManager.default.fileExists(atPath: inProcessLibrary), "needs Scripts/build-runtime's \(inProcessLibrary)"))
struct UnwoundMainTests {
  @Test("generate --format lld-script puts main behind .text: the last frame description, found without a search")
  func mainPlacedLast() throws {
    let work = try TemporaryDirectory("orderfile-unwound-main")
    defer { work.remove() }
    let source = work.file("main.swift")
    try AtomicFile.write(
      """
      @inline(never) func greet(_ name: String) -> String { "hello, " + name }

      @main struct App {
        static func main() async {
          print(greet(CommandLine.arguments.count > 5 ? "many" : "async main"))
        }
      }
      """, to: source)
    // One object, compiled once, so that each link names it alike.
    let object = work.file("App.o")
    try runChecked(
      Toolchain.llvmBin + "/swiftc",
      [
        "-O", "-parse-as-library", "-module-name", "App", "-Xfrontend", "-function-sections", "-c", source, "-o",
        object,
      ])
    func link(_ name: String, _ extra: [String] = []) throws -> String {
      let binary = work.file(name)
      try runChecked(
        Toolchain.llvmBin + "/swiftc",
        ["-use-ld=lld", "-Xlinker", "--build-id", "-Xlinker", "-Map=" + binary + ".map", object, "-o", binary] + extra)
      return binary
    }
    let shipped = try link("App")
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", shipped])
    #expect(recorded.status == 0, "\(recorded.standardError)")
    #expect(recorded.standardOutput == "hello, async main\n")

    let script = work.file("launch.ld")
    let generated = try orderfile(["generate", trace, "--format", "lld-script", "-o", script])
    #expect(generated.status == 0, "\(generated.standardError)")
    let text = try FileReading.text(atPath: script)
    let launch = try #require(text.range(of: ".text.launch"))
    let last = try #require(text.range(of: ".text.unwound : {\n    *App.o(.text.main)\n  }\n} INSERT AFTER .text;"))
    #expect(!text[launch.lowerBound..<last.lowerBound].contains("(.text.main)"), "\(text)")
    // merge, and so the daily job, places main as generate does: the trace merged alone is the same script.
    let merged = work.file("merged.ld")
    let merge = try orderfile(["merge", trace, "--format", "lld-script", "-o", merged])
    #expect(merge.status == 0, "\(merge.standardError)")
    #expect(try FileReading.text(atPath: merged) == text)

    let ordered = try link("ordered", ["-Xlinker", "--script=" + script])
    #expect(try runChecked(ordered, []).standardOutput == "hello, async main\n")
    let mainLines = try runChecked(Toolchain.nm, ["--defined-only", ordered]).standardOutput.split(separator: "\n")
      .filter { $0.hasSuffix(" T main") }
    let main = try #require(mainLines.first.flatMap { UInt64($0.prefix { $0 != " " }, radix: 16) })
    #expect(try lastFrameTableEntry(of: ordered) == main, "main at 0x\(String(main, radix: 16))")
    #expect(try lastFrameTableEntry(of: shipped) != main, "the default layout puts other code after main")
  }

  @Test("a C program that imports dispatch_main, which ends its main thread by unwinding, has main placed last")
  func dispatchMainImported() throws {
    let dispatch = Toolchain.llvmBin + "/../lib/swift/linux"
    try #require(
      FileManager.default.fileExists(atPath: dispatch + "/libdispatch.so"), "the Swift toolchain's libdispatch")
    let work = try TemporaryDirectory("orderfile-dispatch-main")
    defer { work.remove() }
    let source = work.file("serve.c")
    // dispatch_main is imported but called only with many arguments: the recorded run exits.
    try AtomicFile.write(
      """
      #include <stdio.h>
      void dispatch_main(void);
      __attribute__((noinline)) static int work(int n) { return n * 3 + 1; }
      int main(int argc, char **argv) {
        printf("%d\\n", work(argc));
        if (argc > 5) dispatch_main();
        return 0;
      }
      """, to: source)
    let binary = work.file("serve")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map", source,
        "-o", binary, "-L" + dispatch, "-Wl,-rpath," + dispatch, "-ldispatch",
      ], environment: Toolchain.environment)
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", binary])
    #expect(recorded.status == 0, "\(recorded.standardError)")
    let script = work.file("launch.ld")
    #expect(try orderfile(["generate", trace, "--format", "lld-script", "-o", script]).status == 0)
    let text = try FileReading.text(atPath: script)
    let unwound = try #require(text.range(of: ".text.unwound"), "\(text)")
    #expect(text[unwound.lowerBound...].contains("(.text.main)"), "\(text)")
    #expect(!text[..<unwound.lowerBound].contains("(.text.main)"), "\(text)")
  }

  @Test("a C program whose main returns keeps main in the launch section")
  func returningMainStays() throws {
    let work = try TemporaryDirectory("orderfile-returning-main")
    defer { work.remove() }
    let binary = work.file("launchdata")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", "-Wl,-Map=" + binary + ".map",
        PackagePaths.fixtures + "/launchdata/launchdata.c", "-o", binary,
      ], environment: Toolchain.environment)
    let trace = work.file("launch.trace")
    #expect(try orderfile(["record", "-q", "-o", trace, "--", binary]).status == 0)
    let script = work.file("launch.ld")
    #expect(try orderfile(["generate", trace, "--format", "lld-script", "-o", script]).status == 0)
    let text = try FileReading.text(atPath: script)
    #expect(text.contains("(.text.main)") && !text.contains(".text.unwound"), "\(text)")
  }
}

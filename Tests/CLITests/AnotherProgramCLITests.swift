import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("a binary that only a name pairs with the recorded module, with another build-id and other code, is refused")
struct AnotherProgramCLITests {
  static let recordedSource = """
    #define N __attribute__((noinline))
    N int parse_options(int x) { return x * 3; }
    N int load_config(int x) { return x + 7; }
    N int open_window(int x) { return x ^ 9; }
    int main(int argc, char **argv) { return parse_options(argc) + load_config(argc) + open_window(argc) == 1; }

    """
  /// Shares `_start`, `main` and the startup files' functions with the recorded program, nothing else.
  static let otherSource = """
    #define N __attribute__((noinline))
    N int compress_block(int x) { return x * 5; }
    N int write_header(int x) { return x + 1; }
    int main(int argc, char **argv) { return compress_block(argc) + write_header(argc) == 1; }

    """

  @Test("estimate, diff and generate --release-binary refuse another program of the same file name")
  func anotherProgramSameName() throws {
    let work = try TemporaryDirectory("orderfile-another-program")
    defer { work.remove() }
    for folder in ["recorded", "other", "rebuilt"] {
      try FileManager.default.createDirectory(atPath: work.file(folder), withIntermediateDirectories: true)
    }
    try AtomicFile.write(Self.recordedSource, to: work.file("app.c"))
    try AtomicFile.write(Self.otherSource, to: work.file("other.c"))
    let link = ["-g", "-fuse-ld=lld", "-Wl,--build-id"]
    let recorded = work.file("recorded/app")
    let other = work.file("other/app")
    let rebuilt = work.file("rebuilt/app")
    try runChecked(Toolchain.clang, ["-O2"] + link + [work.file("app.c"), "-o", recorded])
    try runChecked(Toolchain.clang, ["-O2"] + link + [work.file("other.c"), "-o", other])
    // The same program built again otherwise: another build-id, the same functions.
    try runChecked(Toolchain.clang, ["-O1"] + link + [work.file("app.c"), "-o", rebuilt])
    let trace = work.file("launch.trace")
    let recording = try orderfile(["record", "-q", "-o", trace, "--", recorded])
    #expect(recording.status == 0, "\(recording.standardError)")
    let order = work.file("app.order")
    try AtomicFile.write("main\nparse_options\n", to: order)

    for arguments in [
      ["estimate", "--trace", trace, "--binary", other],
      ["diff", order, order, "--trace", trace, "--binary", other],
      ["generate", trace, "--release-binary", other, "-o", work.file("new.order")],
    ] {
      let result = try orderfile(arguments)
      #expect(result.status == 65, "\(arguments[0]): \(result.standardError)")
      #expect(result.standardOutput.isEmpty, "\(arguments[0]) printed numbers: \(result.standardOutput)")
      let lines = result.standardError.split(separator: "\n")
      #expect(lines.count == 1, "\(arguments[0]): \(result.standardError)")
      let line = lines.first.map(String.init) ?? ""
      #expect(line.hasPrefix("orderfile: error: \(other) ("), "\(line)")
      #expect(line.contains("is another program than \(recorded) (build-id "), "\(line)")
      #expect(line.components(separatedBy: "build-id ").count == 3, "both build-ids: \(line)")
    }
    #expect(!FileManager.default.fileExists(atPath: work.file("new.order")))

    for arguments in [
      ["estimate", "--trace", trace, "--binary", rebuilt],
      ["generate", trace, "--release-binary", rebuilt, "-o", work.file("new.order")],
    ] {
      let result = try orderfile(arguments)
      #expect(result.status == 0, "\(arguments[0]) of a rebuild: \(result.standardError)")
    }
  }
}

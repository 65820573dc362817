import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("estimate and diff refuse a binary that matches no module of the trace")
struct UnrelatedBinaryCLITests {
  @Test("another program (no shared build-id, file name or launch functions): error 65 naming it, no numbers")
  func unrelatedBinary() throws {
    let fixture = try TracedBinary(called: ["main", "alpha", "beta", "gamma_"])
    let source = fixture.directory.file("other.c")
    try
      "__attribute__((noinline)) int delta(int x) { return x + 7; }\nint main(int argc, char **argv) { return delta(argc); }\n"
      .write(toFile: source, atomically: true, encoding: .utf8)
    let other = fixture.directory.file("other")
    try runChecked(Toolchain.clang, ["-O2", "-g", source, "-o", other])
    let order = fixture.directory.file("app.order")
    try AtomicFile.write("main\nalpha\n", to: order)

    for arguments in [
      ["estimate", "--trace", fixture.trace, "--binary", other],
      ["diff", order, order, "--trace", fixture.trace, "--binary", other],
    ] {
      let result = try orderfile(arguments)
      #expect(result.status == 65, "\(arguments[0]): \(result.standardError)")
      #expect(result.standardOutput.isEmpty, "\(arguments[0]) printed numbers: \(result.standardOutput)")
      #expect(
        result.standardError.hasPrefix(
          "orderfile: error: \(other): shares no build-id, real file or file name with any module of \(fixture.trace)"),
        "\(result.standardError)")
    }
  }

  @Test("the same program relinked under another name (new build-id) is still matched, by its launch functions")
  func relinkedUnderAnotherName() throws {
    let fixture = try TracedBinary(called: ["main", "alpha", "beta", "gamma_"])
    let relinked = fixture.directory.file("tool.relinked")
    try runChecked(Toolchain.clang, ["-O1", "-g", fixture.directory.file("tool.c"), "-o", relinked])
    let result = try orderfile(["estimate", "--trace", fixture.trace, "--binary", relinked])
    #expect(result.status == 0, "\(result.standardError)")
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// Runs `orderfile symbolize` with `input` on stdin.
private func symbolize(_ arguments: [String], input: String) throws -> ProcessResult {
  let directory = try TemporaryDirectory("orderfile-symbolize")
  let file = directory.file("addresses")
  try AtomicFile.write(input, to: file)
  return try ProcessRunner.run(
    "/bin/sh",
    ["-c", "input=$1; shift; exec \"$0\" symbolize \"$@\" < \"$input\"", PackagePaths.orderfileExecutable, file]
      + arguments)
}

@Suite("orderfile symbolize")
struct SymbolizeCLITests {
  @Test("--help names every language it demangles, Rust among them")
  func helpNamesLanguages() throws {
    let help = try orderfile(["symbolize", "--help"]).standardOutput.replacingOccurrences(of: "\n", with: " ")
    for language in ["C++", "Rust", "Swift"] { #expect(help.contains(language), "\(help)") }
  }

  @Test("one line per address in input order: function, and with --lines file:line; ?? for the unknown")
  func namesAndLines() throws {
    let fixture = try TracedBinary(called: [])
    let alpha = try #require(fixture.addresses["alpha"])
    let beta = try #require(fixture.addresses["beta"])
    let input = "0x\(String(alpha, radix: 16))\n\n\(String(beta + 1, radix: 16))\n0x1\n"
    let plain = try symbolize(["--binary", fixture.binary], input: input)
    #expect(plain.status == 0, "\(plain.standardError)")
    #expect(
      plain.standardOutput
        == "0x\(String(alpha, radix: 16))\talpha\n0x\(String(beta + 1, radix: 16))\tbeta\n0x1\t??\n")
    let rows = try symbolize(["--binary", fixture.binary, "--lines"], input: input).standardOutput
      .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(rows.count == 3)
    #expect(rows.first?.last == fixture.directory.file("tool.c") + ":1")
    #expect(rows.last == ["0x1", "??", "??"])
  }

  @Test("C++ names are demangled unless --no-demangle")
  func demangling() throws {
    let directory = try TemporaryDirectory("orderfile-symbolize")
    let source = directory.file("app.cpp")
    let binary = directory.file("app")
    try AtomicFile.write(
      "namespace app { __attribute__((noinline)) int init(int x) { return x + 1; } }\nint main(int c, char **) { return app::init(c); }\n",
      to: source)
    try runChecked(Toolchain.clang, ["-O2", "-x", "c++", source, "-o", binary])
    let nm = try runChecked(Toolchain.nm, [binary]).standardOutput.split(separator: "\n")
    let line = try #require(nm.first { $0.hasSuffix(" _ZN3app4initEi") })
    let address = String(try #require(line.split(separator: " ").first))
    #expect(try symbolize(["--binary", binary], input: address).standardOutput.hasSuffix("\tapp::init(int)\n"))
    #expect(
      try symbolize(["--binary", binary, "--no-demangle"], input: address).standardOutput.hasSuffix(
        "\t_ZN3app4initEi\n"))
  }

  @Test("a line that is not an address: what came before is printed, then one error naming the line, exit 65")
  func badLine() throws {
    let fixture = try TracedBinary(called: [])
    let result = try symbolize(["--binary", fixture.binary], input: "0x10\nnot-an-address\n0x20\n")
    #expect(result.status == 65)
    #expect(result.standardOutput.split(separator: "\n").count == 1)
    #expect(result.standardError == "orderfile: error: line 2: 'not-an-address' is not a hexadecimal address\n")
  }

  @Test("a binary that does not exist is an input not found, exit 66")
  func missingBinary() throws {
    let result = try symbolize(["--binary", "/nonexistent/app"], input: "0x10\n")
    #expect(result.status == 66)
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(result.standardError.contains("/nonexistent/app"))
  }
}

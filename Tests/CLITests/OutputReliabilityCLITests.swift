import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The failure, on stderr, of a command that must end with exactly one error line.
private func singleErrorLine(_ result: ProcessResult) -> String {
  let lines = result.standardError.split(separator: "\n")
  return lines.count == 1 ? String(lines[0]) : "\(lines.count) lines: \(result.standardError)"
}

@Suite("Inputs that are wrong in their data, and outputs written as sets", .serialized)
struct OutputReliabilityCLITests {
  @Test(
    "a stripped binary is an error naming it, the missing symbol table and the fixes, for generate, estimate and verify"
  )
  func strippedBinary() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    try runChecked(ProcessRunner.resolve("strip"), [fixture.binary])
    let order = fixture.directory.file("app.order")
    try AtomicFile.write("main\nalpha\n", to: order)
    let output = fixture.directory.file("out.order")
    for arguments in [
      ["generate", fixture.trace, "-o", output],
      ["estimate", "--trace", fixture.trace, "--binary", fixture.binary],
      ["verify", "--binary", fixture.binary, "--order", order],
    ] {
      let result = try orderfile(arguments)
      #expect(result.status == 65, "\(arguments[0]): \(result.standardError)")
      let line = singleErrorLine(result)
      #expect(line.hasPrefix("orderfile: error: '\(fixture.binary)' has no symbol table"), "\(arguments[0]): \(line)")
      #expect(line.contains("keep its .symtab"), "\(arguments[0])")
      #expect(line.contains("/usr/lib/debug/.build-id/"), "\(arguments[0])")
    }
    #expect(!FileManager.default.fileExists(atPath: output))

    // With a build-id, the error names the debug file that would do.
    let directory = try TemporaryDirectory("orderfile-stripped")
    let identified = try ManyFunctions(directory: directory)
    let trace = try identified.trace("launch.trace", "main f0")
    try runChecked(ProcessRunner.resolve("strip"), [identified.binary])
    let hex = identified.buildID.map { String(format: "%02x", $0) }.joined()
    let result = try orderfile(["generate", trace])
    #expect(result.status == 65)
    #expect(singleErrorLine(result).contains("/usr/lib/debug/.build-id/\(hex.prefix(2))/\(hex.dropFirst(2)).debug"))
  }

  @Test("weights whose sum overflows are a usage error, and nothing is written")
  func weightSumOverflows() throws {
    let directory = try TemporaryDirectory("orderfile-weights")
    let fixture = try ManyFunctions(directory: directory)
    let a = try fixture.trace("a.trace", "main f0 f1")
    let b = try fixture.trace("b.trace", "main f1 f0", pid: 78)
    let output = directory.file("app.order")
    let result = try orderfile(["merge", a + ":1e308", b + ":1e308", "--json", "--list", "-o", output])
    #expect(result.status == 64, "\(result.standardError)")
    #expect(singleErrorLine(result).contains("the weights add up to more than the largest number"))
    #expect(!FileManager.default.fileExists(atPath: output))
    let fine = try orderfile(["merge", a + ":1e307", b + ":1e307", "--json", "--list", "-o", output])
    #expect(fine.status == 0, "\(fine.standardError)")
    #expect(!fine.standardOutput.contains("nan"))
  }

  @Test("orderfiles that differ only in bytes that are not UTF-8 are refused, naming the file and line")
  func diffOfInvalidUTF8() throws {
    let directory = try TemporaryDirectory("orderfile-utf8")
    let base = directory.file("base.order")
    let head = directory.file("head.order")
    try AtomicFile.write(Array("main\n".utf8) + [0x66, 0xFF, 0x0A], to: base)
    try AtomicFile.write(Array("main\n".utf8) + [0x66, 0xFE, 0x0A], to: head)
    let result = try orderfile(["diff", base, head])
    #expect(result.status == 65, "\(result.standardError)")
    #expect(singleErrorLine(result) == "orderfile: error: \(base): line 2 is not valid UTF-8 (byte 0xff at column 2)")
  }

  @Test(
    "a trace without a main executable and a trace without threads are bad input (65) in one line, not usage errors")
  func dataProblemsAreNotUsageErrors() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let recorded = try TraceReader.read(path: fixture.trace)
    // Two modules, neither marked as the main executable, each with launch records.
    var modules = recorded.modules
    modules[0].isMainExecutable = false
    var second = modules[0]
    second.index = 1
    second.path = fixture.directory.file("tool-copy")
    try FileManager.default.copyItem(atPath: fixture.binary, toPath: second.path)
    modules.append(second)
    var records = recorded.records
    records.append(
      FirstCall(module: 1, address: records[0].address, timeNanoseconds: 400, threadID: 77, phase: .launch))
    let noMain = fixture.directory.file("nomain.trace")
    try AtomicFile.write(
      TraceEncoder.encode(Trace(path: noMain, header: recorded.header, modules: modules, records: records)), to: noMain)
    let generated = try orderfile(["generate", noMain, "-o", fixture.directory.file("app.order")])
    #expect(generated.status == 65, "\(generated.standardError)")
    #expect(singleErrorLine(generated).contains("2 modules selected"))
    #expect(!generated.standardError.contains("Usage"))

    let folded = try orderfile(["report", fixture.trace, "--folded", fixture.directory.file("stacks.folded")])
    #expect(folded.status == 65, "\(folded.standardError)")
    #expect(singleErrorLine(folded).contains("--folded needs a full-mode trace"))
    #expect(!folded.standardError.contains("Usage"))
  }

  @Test("report writes its exports as a set: when one cannot be written, none is")
  func reportExportsAreASet() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let chrome = fixture.directory.file("launch.json")
    try AtomicFile.write("old\n", to: chrome)
    let result = try orderfile([
      "report", fixture.trace, "--chrome-trace", chrome, "--html", fixture.directory.file("missing/launch.html"),
    ])
    #expect(result.status == 74, "\(result.standardError)")
    #expect(try FileReading.text(atPath: chrome) == "old\n")
    let made = try orderfile([
      "report", fixture.trace, "--chrome-trace", chrome, "--html", fixture.directory.file("launch.html"),
    ])
    #expect(made.status == 0, "\(made.standardError)")
    #expect(try FileReading.text(atPath: chrome) != "old\n")
    #expect(FileManager.default.fileExists(atPath: fixture.directory.file("launch.html")))
  }

  @Test("generate --output-dir swaps in a directory of earlier orderfiles whole, and keeps the user's files in another")
  func outputDirectoryIsSwapped() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let orders = fixture.directory.file("orders")
    let first = try orderfile(["generate", fixture.trace, "--output-dir", orders])
    #expect(first.status == 0, "\(first.standardError)")
    var info = stat()
    #expect(stat(orders, &info) == 0)
    let before = info.st_ino
    let second = try orderfile(["generate", fixture.trace, "--output-dir", orders])
    #expect(second.status == 0, "\(second.standardError)")
    #expect(stat(orders, &info) == 0)
    // A new inode: the whole directory was exchanged, so no reader saw old and new mixed.
    #expect(info.st_ino != before)
    #expect(try FileReading.text(atPath: orders + "/tool.order") == "main\nalpha\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.hasPrefix(".") } == [])

    try AtomicFile.write("mine\n", to: orders + "/NOTES")
    let third = try orderfile(["generate", fixture.trace, "--output-dir", orders])
    #expect(third.status == 0, "\(third.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: orders).sorted() == ["NOTES", "tool.order"])
    #expect(try FileReading.text(atPath: orders + "/NOTES") == "mine\n")
  }

  @Test("-o through a symbolic link replaces the file it points to, keeps the link, and keeps a 0600 mode")
  func outputThroughSymbolicLink() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let real = fixture.directory.file("real.order")
    let link = fixture.directory.file("app.order")
    try AtomicFile.write("old\n", to: real)
    #expect(chmod(real, 0o600) == 0)
    #expect(symlink(real, link) == 0)
    let result = try orderfile(["generate", fixture.trace, "-o", link])
    #expect(result.status == 0, "\(result.standardError)")
    var info = stat()
    #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    #expect(stat(real, &info) == 0 && info.st_mode & 0o7777 == 0o600)
    #expect(try FileReading.text(atPath: real) == "main\nalpha\n")
  }

  @Test("outputs named by one-letter relative paths are written, as files and as directories")
  func oneLetterRelativePaths() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    for arguments in [["-o", "a"], ["--output-dir", "d/o"], ["--output-dir", "e"]] {
      let result = try ProcessRunner.run(
        PackagePaths.orderfileExecutable, ["generate", fixture.trace] + arguments,
        currentDirectory: fixture.directory.path)
      #expect(result.status == 0, "\(arguments): \(result.standardError)")
    }
    #expect(try FileReading.text(atPath: fixture.directory.file("a")) == "main\nalpha\n")
    #expect(try FileReading.text(atPath: fixture.directory.file("d/o/tool.order")) == "main\nalpha\n")
    #expect(try FileReading.text(atPath: fixture.directory.file("e/tool.order")) == "main\nalpha\n")
  }

  @Test("record writes its trace to a one-letter relative path")
  func recordToOneLetterPath() throws {
    let directory = try TemporaryDirectory("orderfile-record-path")
    defer { directory.remove() }
    let runtime = try RuntimeBuilder.libraryDirectory()
    try "int main(void) { return 0; }\n".write(toFile: directory.file("tiny.c"), atomically: true, encoding: .utf8)
    try runChecked(
      Toolchain.clang,
      [
        "-O1", "-finstrument-functions", directory.file("tiny.c"), "-o", directory.file("tiny"), "-L", runtime,
        "-lOrderfileRuntime", "-Wl,-rpath," + runtime,
      ])
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["record", "--instrumented", "-q", "-o", "a", "--", "./tiny"],
      currentDirectory: directory.path)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(FileManager.default.fileExists(atPath: directory.file("a")))
  }
}

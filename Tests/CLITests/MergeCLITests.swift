import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A real binary of many functions, each about 2 KB, and traces of launches that call some
/// of them in a given order, written with the trace encoder.
struct ManyFunctions {
  let directory: TemporaryDirectory
  let binary: String
  let buildID: [UInt8]
  let addresses: [String: UInt64]

  static let names = (0..<12).map { "f\($0)" } + ["main"]

  /// - Parameter variant: compiled in, so different variants are different builds of one program.
  init(directory: TemporaryDirectory, subdirectory: String = "build", variant: Int = 1) throws {
    self.directory = directory
    let folder = directory.file(subdirectory)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    binary = folder + "/tool"
    let source = folder + "/tool.c"
    // Each function jumps over 2000 bytes of padding, so where the launch functions sit
    // decides how many pages the launch touches.
    var text = ""
    for index in 0..<12 {
      text +=
        "__attribute__((noinline)) int f\(index)(int x) { __asm__ volatile(\"jmp 1f\\n.skip 2000\\n1:\"); return x + \(index); }\n"
    }
    text +=
      "int main(int argc, char **argv) { return VARIANT + " + (0..<12).map { "f\($0)(argc)" }.joined(separator: " + ")
      + "; }\n"
    try text.write(toFile: source, atomically: true, encoding: .utf8)
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-fPIE", "-pie", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id", "-DVARIANT=\(variant)",
        source, "-o", binary,
      ])
    var addresses: [String: UInt64] = [:]
    for line in try runChecked(Toolchain.nm, [binary]).standardOutput.split(separator: "\n") {
      let fields = line.split(separator: " ")
      if fields.count == 3, let address = UInt64(fields[0], radix: 16) { addresses[String(fields[2])] = address }
    }
    self.addresses = addresses
    buildID = try BinaryLocator.buildID(ofFileAt: binary)?.bytes ?? []
  }

  /// Writes a trace of a launch that called `names` (space-separated) in this order.
  @discardableResult
  func trace(_ file: String, _ names: String, pid: UInt32 = 77) throws -> String {
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: pid, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 2, processStartNanoseconds: 100, processStartResolutionNanoseconds: 10_000_000,
      traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
    let module = TraceModule(
      index: 0, path: binary, buildID: buildID, loadBase: 0x5555_0000_0000, textRange: 0..<0x100_0000,
      isMainExecutable: true)
    let records = try names.split(separator: " ").enumerated().map { index, name in
      guard let address = addresses[String(name)] else { throw TestSupportError("no symbol \(name)") }
      return FirstCall(module: 0, address: address, timeNanoseconds: 300 + UInt64(index), threadID: pid, phase: .launch)
    }
    let path = directory.file(file)
    try AtomicFile.write(
      TraceEncoder.encode(Trace(path: path, header: header, modules: [module], records: records)), to: path)
    return path
  }
}

@Suite("orderfile merge", .serialized)
struct MergeCLITests {
  @Test("traces whose orders differ slightly merge to the majority order; generate does the same")
  func majority() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let fixture = try ManyFunctions(directory: directory)
    let traces = [
      try fixture.trace("1.trace", "main f0 f1 f2 f3 f4"),
      try fixture.trace("2.trace", "main f0 f2 f1 f3 f4"),
      try fixture.trace("3.trace", "main f0 f1 f2 f4 f3"),
      try fixture.trace("4.trace", "main f1 f0 f2 f3 f4"),
      try fixture.trace("5.trace", "main f0 f1 f2 f3 f4 f9"),
    ]
    let merged = directory.file("merged.order")
    let result = try orderfile(["merge"] + traces + ["-o", merged])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try FileReading.text(atPath: merged) == "main\nf0\nf1\nf2\nf3\nf4\nf9\n")
    #expect(result.standardOutput.contains("7 entries: 6 in every run, 1 in some runs (placed after)"))

    let generated = directory.file("generated.order")
    let viaGenerate = try orderfile(["generate"] + traces + ["-o", generated])
    #expect(viaGenerate.status == 0, "\(viaGenerate.standardError)")
    #expect(try FileReading.bytes(atPath: generated) == FileReading.bytes(atPath: merged))
  }

  @Test(
    "the orderfile and the --json report are byte-identical whatever order the traces and their weights are given in")
  func permutedTraces() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let fixture = try ManyFunctions(directory: directory)
    let traces = [
      try fixture.trace("a.trace", "main f0 f1 f2 f3", pid: 1) + ":2",
      try fixture.trace("b.trace", "main f1 f0 f3 f2 f5", pid: 2),
      try fixture.trace("c.trace", "main f0 f2 f1 f3 f6", pid: 3) + ":0.5",
    ]
    let output = directory.file("merged.order")
    var first: (order: [UInt8], stdout: String)?
    for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
      let result = try orderfile(["merge"] + order.map { traces[$0] } + ["-o", output, "--list", "--json"])
      #expect(result.status == 0, "\(result.standardError)")
      let bytes = try FileReading.bytes(atPath: output)
      if let first {
        #expect(bytes == first.order, "traces in order \(order)")
        #expect(result.standardOutput == first.stdout, "report for traces in order \(order)")
      } else {
        first = (bytes, result.standardOutput)
      }
    }
    #expect(first?.stdout.contains("\"weight\" : 0.5") == true)
  }

  @Test("a weight given as trace:weight on the command line changes the merged order")
  func weights() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let fixture = try ManyFunctions(directory: directory)
    let cold = try fixture.trace("cold.trace", "main f0 f1 f2")
    let notification = try fixture.trace("notification.trace", "main f2 f1 f0 f7")
    let even = try orderfile(["merge", cold, notification])
    let weighted = try orderfile(["merge", cold, notification + ":3"])
    #expect(even.standardOutput == "main\nf0\nf1\nf2\nf7\n", "\(even.standardError)")
    #expect(weighted.standardOutput == "main\nf2\nf1\nf0\nf7\n", "\(weighted.standardError)")
  }

  @Test("traces of different builds are refused unless --allow-mixed-builds")
  func mixedBuilds() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let old = try ManyFunctions(directory: directory, subdirectory: "old", variant: 1)
    let new = try ManyFunctions(directory: directory, subdirectory: "new", variant: 2)
    #expect(old.buildID != new.buildID)
    let traces = [try old.trace("old.trace", "main f0 f1"), try new.trace("new.trace", "main f0 f1 f2")]
    let output = directory.file("app.order")
    let refused = try orderfile(["merge"] + traces + ["-o", output])
    #expect(refused.status == 65)
    let lines = refused.standardError.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains("module 'tool' comes from different builds") == true, "\(lines)")
    #expect(lines.first?.contains("--allow-mixed-builds") == true)
    #expect(!FileManager.default.fileExists(atPath: output))

    let allowed = try orderfile(["merge"] + traces + ["-o", output, "--allow-mixed-builds"])
    #expect(allowed.status == 0, "\(allowed.standardError)")
    #expect(try FileReading.text(atPath: output) == "main\nf0\nf1\nf2\n")
    #expect(allowed.standardOutput.contains("warning: 2 builds merged by function name"))
  }

  @Test("a bad weight is a usage error naming the argument")
  func badWeight() throws {
    let result = try orderfile(["merge", "a.trace", "b.trace:0"])
    #expect(result.status == 64)
    #expect(result.standardError.contains("'b.trace:0': weight '0' is not a positive number"))
  }

  @Test("a missing trace is one error line, exit 66, nothing written")
  func missingTrace() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let fixture = try ManyFunctions(directory: directory)
    let good = try fixture.trace("good.trace", "main f0")
    let output = directory.file("app.order")
    let result = try orderfile(["merge", good, directory.file("none.trace"), "-o", output])
    #expect(result.status == 66)
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test("modules that share a file name get <name> and <name>-<index> orderfiles, from generate and merge alike")
  func modulesSharingAFileName() throws {
    let directory = try TemporaryDirectory("orderfile-merge")
    let first = try ManyFunctions(directory: directory, subdirectory: "a")
    let second = try ManyFunctions(directory: directory, subdirectory: "b", variant: 2)
    let header = TraceHeader(
      versionMajor: 1, versionMinor: 0, pid: 77, parentPID: nil, forkRecordIndex: nil, recordCapacity: 1024,
      moduleCapacity: 2, processStartNanoseconds: 100, processStartResolutionNanoseconds: 10_000_000,
      traceStartNanoseconds: 200, timeLimitNanoseconds: nil, droppedCount: 0, isClosed: true,
      windowReason: .exit, windowEndNanoseconds: 900, endNanoseconds: 900, minorFaults: nil, majorFaults: nil)
    let modules = [
      TraceModule(
        index: 0, path: first.binary, buildID: first.buildID, loadBase: 0x5555_0000_0000, textRange: 0..<0x100_0000,
        isMainExecutable: true),
      TraceModule(
        index: 1, path: second.binary, buildID: second.buildID, loadBase: 0x7777_0000_0000,
        textRange: 0..<0x100_0000, isMainExecutable: false),
    ]
    let calls: [(module: Int, address: UInt64?)] = [
      (0, first.addresses["main"]), (0, first.addresses["f0"]), (1, second.addresses["f1"]),
      (1, second.addresses["f2"]),
    ]
    let records = try calls.enumerated().map { index, call in
      FirstCall(
        module: call.module, address: try #require(call.address), timeNanoseconds: 300 + UInt64(index), threadID: 77,
        phase: .launch)
    }
    let traces = try ["1.trace", "2.trace"].map { name in
      let path = directory.file(name)
      try AtomicFile.write(
        TraceEncoder.encode(Trace(path: path, header: header, modules: modules, records: records)), to: path)
      return path
    }
    for (command, inputs) in [("generate", [traces[0]]), ("merge", traces)] {
      let orders = directory.file(command + "-orders")
      let result = try orderfile([command] + inputs + ["--output-dir", orders])
      #expect(result.status == 0, "\(command): \(result.standardError)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: orders).sorted() == ["tool-1.order", "tool.order"])
      #expect(try FileReading.text(atPath: orders + "/tool.order") == "main\nf0\n", "\(command)")
      #expect(try FileReading.text(atPath: orders + "/tool-1.order") == "f1\nf2\n", "\(command)")
    }
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// An arm64 release build with code on several pages: gcc splits each parse_N's unlikely branch
/// into parse_N.cold, which this launch takes, so the launch is spread over 17 pages of 4 KiB.
private func spreadOutProgram(in work: TemporaryDirectory) throws -> String {
  let (gcc, cross) = Arm64.compiler("gcc")
  let binary = work.file("cp")
  try runChecked(
    gcc,
    cross + [
      "-O2", "-freorder-blocks-and-partition", "-fno-toplevel-reorder", "-fuse-ld=lld", "-ffunction-sections",
      "-Wl,--build-id", PackagePaths.fixtures + "/coldparts/launch.c", "-o", binary,
    ])
  return binary
}

/// The qemu-user command line `--emulator` takes.
private let emulator = "\(Arm64.qemu) -L \(Arm64.sysroot)"

@Suite(
  "arm64 under --emulator: estimate --measure, and the emulated times said so", .serialized,
  .enabled(if: Arm64.available, Comment(rawValue: Arm64.skipReason)))
struct Arm64EmulatedRunTests {
  @Test(
    "estimate --measure --emulator counts the pages the page probe in qemu's guest counts itself; without it one line names --emulator"
  )
  func measureUnderEmulator() throws {
    let work = try TemporaryDirectory("orderfile-arm64-measure")
    defer { work.remove() }
    let runtime = try Arm64.runtimeDirectory(compiler: "clang")
    let environment = ["ORDERFILE_RUNTIME_DIR": runtime]
    let binary = try spreadOutProgram(in: work)
    let trace = work.file("launch.trace")
    let recorded = try orderfile(
      ["record", "-q", "--emulator", emulator, "-o", trace, "--", binary], environment: environment)
    #expect(recorded.succeeded, "\(recorded.standardError)")

    // The independent count: the arm64 probe preloaded into qemu's guest by hand.
    let (run, independent) = try Arm64.probedPages(binary, runtime: runtime, output: work.file("pages.txt"))
    #expect(run.standardOutput == recorded.standardOutput)
    #expect(independent > 4, "the fixture's launch is spread over pages: \(independent)")

    let measured = try orderfile(
      ["estimate", "--trace", trace, "--binary", binary, "--json", "--measure", "--emulator", emulator, "--", binary],
      environment: environment)
    #expect(measured.succeeded, "\(measured.standardError)")
    let measurement = try #require(json(measured)["measurement"] as? [String: Any], "\(measured.standardOutput)")
    let rows = try #require(measurement["rows"] as? [[String: Any]], "\(measurement)")
    let fourKiB = rows.first { $0["pageSize"] as? Int == 4096 }
    #expect(
      fourKiB?["measured"] as? Int == independent && fourKiB?["estimated"] as? Int == independent,
      "estimate --measure --emulator: \(rows); the probe by hand: \(independent)")

    // Without --emulator the kernel would refuse the program: one line, before it runs.
    let refused = try orderfile(
      ["estimate", "--trace", trace, "--binary", binary, "--measure", "--", binary], environment: environment)
    #expect(refused.status == 65, "\(refused.standardError)")
    let errors = refused.standardError.split(separator: "\n")
    #expect(
      errors.count == 1 && errors[0].contains("is an arm64 program and this machine is x86-64")
        && errors[0].contains(
          "--measure --emulator '\(Arm64.qemu.split(separator: "/").last ?? "") -L \(Arm64.sysroot)'"),
      "\(refused.standardError)")
  }

  @Test(
    "a launch recorded under --emulator is reported with its times marked as the emulator's (text, Markdown, HTML, JSON); a native one is not"
  )
  func emulatedTimes() throws {
    let work = try TemporaryDirectory("orderfile-arm64-report")
    defer { work.remove() }
    let environment = ["ORDERFILE_RUNTIME_DIR": try Arm64.runtimeDirectory(compiler: "clang")]
    let (clang, cross) = Arm64.compiler("clang")
    let source = PackagePaths.fixtures + "/breakpoints/sequence.c"
    try runChecked(clang, cross + ["-O2", "-g", source, "-o", work.file("arm64")])
    try runChecked(Toolchain.clang, ["-O2", "-g", source, "-o", work.file("native")])
    let emulated = work.file("emulated.trace")
    let native = work.file("native.trace")
    // The arm64 recorder from ORDERFILE_RUNTIME_DIR, the host's from the build folder.
    for (program, trace, options, variables) in [
      (work.file("arm64"), emulated, ["--emulator", emulator], environment), (work.file("native"), native, [], [:]),
    ] {
      let recorded = try orderfile(
        ["record", "-q", "--no-rebuild"] + options + ["-o", trace, "--", program, "2"], environment: variables)
      #expect(FileManager.default.fileExists(atPath: trace), "\(recorded.standardError)")
    }

    let text = try orderfile(["report", emulated, "--html", work.file("report.html")])
    #expect(text.succeeded, "\(text.standardError)")
    let lines = text.standardOutput.split(separator: "\n")
    #expect(lines.count > 1 && lines[1].hasPrefix("emulated times: "), "\(text.standardOutput)")
    #expect(lines[1].contains("the emulator's start-up"))
    let html = try FileReading.text(atPath: work.file("report.html"))
    #expect(html.contains("<p class=\"emulated\"><strong>Emulated times: "), "\(html.prefix(2000))")
    let markdown = try orderfile(["report", emulated, "--markdown"]).standardOutput
    #expect(markdown.contains("**Emulated times: "), "\(markdown)")
    #expect(try json(try orderfile(["report", emulated, "--json"]))["emulated"] as? Bool == true)

    let plain = try orderfile(["report", native])
    #expect(plain.succeeded, "\(plain.standardError)")
    #expect(!plain.standardOutput.contains("emulated"), "\(plain.standardOutput)")
    #expect(try json(try orderfile(["report", native, "--json"]))["emulated"] as? Bool == false)
  }
}

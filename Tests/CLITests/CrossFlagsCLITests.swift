import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `orderfile flags --target`: a cross build's compiler and flags, and how its launch is recorded.
@Suite("flags --target")
struct CrossFlagsCLITests {
  @Test("the instrumented arm64 build: the cross compiler, the arm64 runtime, the qemu-user recording line")
  func instrumented() throws {
    // A file with an arm64 ELF header is all the check reads.
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try Arm64.writeHeaderOnlyELF(to: directory.file("libOrderfileRuntime.so"))
    let environment = ["ORDERFILE_RUNTIME_DIR": directory.path, "ORDERFILE_INCLUDE_DIR": PackagePaths.runtimeInclude]
    let result = try orderfile(
      ["flags", "--instrument", "--compiler", "gcc", "--target", "aarch64-linux-gnu"], environment: environment)
    #expect(result.status == 0, "\(result.standardError)")
    let output = result.standardOutput
    #expect(output.contains("compile and link with aarch64-linux-gnu-gcc"), "\(output)")
    #expect(output.contains("-finstrument-functions -DORDERFILE_INSTRUMENTED"))
    #expect(
      output.contains(
        "orderfile record --instrumented -o launch.trace -- qemu-aarch64-static -L /usr/aarch64-linux-gnu ./app"))

    let json = try orderfile(
      ["flags", "--instrument", "--target", "aarch64-linux-gnu", "--json"], environment: environment)
    struct Printed: Decodable {
      var compile: [String]
      var link: [String]
      var compiler: String?
      var emulator: [String]?
    }
    let printed = try JSONDecoder().decode(Printed.self, from: Data(json.standardOutput.utf8))
    #expect(printed.compiler == "clang")
    #expect(printed.compile.first == "--target=aarch64-linux-gnu")
    #expect(printed.link.starts(with: ["--target=aarch64-linux-gnu", "-fuse-ld=lld"]))
    #expect(printed.emulator == ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"])
  }

  @Test("the arm64 release build, recorded as it is: the in-process line under qemu-user")
  func recordable() throws {
    let result = try orderfile(["flags", "--target", "aarch64-linux-gnu"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardOutput.contains(
        "orderfile record --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' -o launch.trace -- ./app"),
      "\(result.standardOutput)")
  }

  @Test("the cross recipes lead with recording the release build under qemu-user, C and Rust; Android's on the device")
  func releaseFirst() throws {
    for arguments in [["--target", "aarch64-linux-gnu"], ["--language", "rust", "--target", "aarch64-linux-gnu"]] {
      let result = try orderfile(["flags"] + arguments)
      #expect(result.status == 0, "\(result.standardError)")
      let output = result.standardOutput
      let record = try #require(
        output.range(of: "orderfile record --emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' -o launch.trace"),
        "\(arguments): \(output)")
      #expect(!output[..<record.lowerBound].contains("instrument"), "\(arguments): \(output)")
    }
    let rust = try orderfile(["flags", "--language", "rust", "--target", "aarch64-linux-gnu"]).standardOutput
    #expect(rust.contains("-- target/aarch64-unknown-linux-gnu/release/app)"), "\(rust)")
    let android = try orderfile(["flags", "--target", "aarch64-linux-android34"]).standardOutput
    #expect(android.contains("recorded on the device, through its instrumented build"), "\(android)")
    #expect(!android.contains("--no-rebuild"), "\(android)")
  }

  @Test(
    "Android links for 16 KiB pages, C and Rust; --page-size links for the pages given, and a size in bytes is refused")
  func pageSize() throws {
    let android = try orderfile(["flags", "--target", "aarch64-linux-android34", "--ldflags"]).standardOutput
    #expect(android.contains("-Wl,-z,max-page-size=16384"), "\(android)")
    let rust = try orderfile(["flags", "--language", "rust", "--target", "aarch64-linux-android34"]).standardOutput
    #expect(rust.contains("-C link-arg=-Wl,-z,max-page-size=16384"), "\(rust)")
    let gnu = try orderfile(["flags", "--target", "aarch64-linux-gnu", "--ldflags"]).standardOutput
    #expect(!gnu.contains("max-page-size"), "\(gnu)")
    let swift = try orderfile(["flags", "--language", "swift", "--page-size", "16"]).standardOutput
    #expect(swift.contains("-Xlinker -z -Xlinker max-page-size=16384"), "\(swift)")
    let bytes = try orderfile(["flags", "--page-size", "16384"])
    #expect(bytes.status == 64 && bytes.standardError.contains("--page-size is in KiB"), "\(bytes.standardError)")

    // The printed flags really align the link: lld's LOAD segments at 16 KiB, 4 KiB without.
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let source = directory.file("app.c")
    try "int main(void) { return 0; }\n".write(toFile: source, atomically: true, encoding: .utf8)
    func loadAlignments(_ flags: [String]) throws -> Set<String> {
      let printed = try orderfile(["flags", "--ldflags"] + flags).standardOutput
      let link = printed.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
      try runChecked(Toolchain.clang, [source, "-o", directory.file("app")] + link)
      let headers = try runChecked("/usr/bin/readelf", ["-lW", directory.file("app")]).standardOutput
      return Set(
        headers.split(separator: "\n").filter { $0.contains("LOAD") }.compactMap {
          $0.split(separator: " ").last.map(String.init)
        })
    }
    #expect(try loadAlignments(["--page-size", "16"]) == ["0x4000"])
    #expect(try loadAlignments([]) == ["0x1000"])
  }

  @Test("the runtime built for this machine is refused for an arm64 build, and an unknown triple is a usage error")
  func refused() throws {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let environment = ["ORDERFILE_RUNTIME_DIR": runtime, "ORDERFILE_INCLUDE_DIR": PackagePaths.runtimeInclude]
    let wrongRuntime = try orderfile(
      ["flags", "--instrument", "--target", "aarch64-linux-gnu"], environment: environment)
    #expect(wrongRuntime.status == 64)
    #expect(wrongRuntime.standardError.contains("is built for x86-64"), "\(wrongRuntime.standardError)")
    #expect(wrongRuntime.standardError.contains("Scripts/build-runtime --target aarch64-linux-gnu"))
    let unknown = try orderfile(["flags", "--target", "sparc-linux-gnu"])
    #expect(unknown.status == 64)
    #expect(unknown.standardError.contains("unknown triple 'sparc-linux-gnu'"), "\(unknown.standardError)")
    let swift = try orderfile(["flags", "--language", "swift", "--target", "aarch64-linux-gnu"])
    #expect(swift.status == 64, "\(swift.standardOutput)")
  }
}

/// `orderfile record` of a program built for another machine.
@Suite("record: a program of another machine")
struct OtherMachineCLITests {
  @Test("an arm64 program on this x86-64 machine is refused before it starts, both ways, naming qemu-user")
  func refused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let program = directory.file("app")
    try Arm64.writeHeaderOnlyELF(to: program)
    for mode in [["--no-rebuild"], ["--instrumented"]] {
      let result = try orderfile(["record"] + mode + ["-o", directory.file("launch.trace"), "--", program])
      #expect(result.status == 65, "\(mode): \(result.standardError)")
      #expect(
        result.standardError.contains("is an arm64 program and this machine is x86-64"), "\(result.standardError)")
      #expect(result.standardError.contains("--emulator 'qemu-aarch64-static -L /usr/aarch64-linux-gnu'"))
    }
  }

  @Test("--recorder tracer under --emulator is refused in one line: ptrace cannot see through qemu-user")
  func tracerUnderEmulator() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let program = directory.file("app")
    try Arm64.writeHeaderOnlyELF(to: program)
    let result = try orderfile([
      "record", "--recorder", "tracer", "--emulator", "qemu-aarch64-static -L /usr/aarch64-linux-gnu", "-o",
      directory.file("launch.trace"), "--", program,
    ])
    #expect(result.status == 64, "\(result.standardError)")
    let lines = result.standardError.split(separator: "\n").filter { !$0.isEmpty }
    #expect(lines.count == 1 && lines[0].contains("ptrace sees qemu-user"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: directory.file("launch.trace")))
    // No in-process recorder built for arm64 where the tool looks (the build folder holds the
    // host's): one line naming what to install, exit 69, before anything runs.
    let missing = try orderfile(
      [
        "record", "--no-rebuild", "--emulator", "qemu-aarch64-static -L /usr/aarch64-linux-gnu", "-o",
        directory.file("launch.trace"), "--", program,
      ], environment: ["ORDERFILE_RUNTIME_DIR": directory.path])
    #expect(missing.status == 69, "\(missing.standardError)")
    #expect(
      missing.standardError.contains("no libOrderfileInProcess.so built for arm64")
        && missing.standardError.contains(
          "installed without a cross compiler for aarch64-linux-gnu; run Scripts/install")
        && missing.standardError.contains("'Scripts/build-runtime --target aarch64-linux-gnu DIR'"),
      "\(missing.standardError)")
    let empty = try orderfile(["record", "--emulator", " ", "-o", directory.file("launch.trace"), "--", program])
    #expect(empty.status == 64 && empty.standardError.contains("--emulator needs a command"), "\(empty.standardError)")
  }
}

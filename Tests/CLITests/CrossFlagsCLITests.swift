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

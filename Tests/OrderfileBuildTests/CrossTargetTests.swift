import Foundation
import OrderfileBuild
import OrderfileOrdering
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Cross builds: target triples and their flags")
struct CrossTargetTests {
  @Test("triples in gcc's, Rust's and Android's spelling name the same machine")
  func triples() throws {
    for spelling in ["aarch64-linux-gnu", "aarch64-unknown-linux-gnu", "arm64-linux-gnu"] {
      let target = try CrossTarget(triple: spelling)
      #expect(target.architecture == .aarch64 && target.system == .linuxGNU, "\(spelling)")
      #expect(target.triple == "aarch64-linux-gnu")
      #expect(target.rustTriple == "aarch64-unknown-linux-gnu")
      #expect(target.sysroot == "/usr/aarch64-linux-gnu")
    }
    let android = try CrossTarget(triple: "aarch64-linux-android34")
    #expect(android.system == .android && android.apiLevel == 34)
    #expect(android.triple == "aarch64-linux-android34" && android.rustTriple == "aarch64-linux-android")
    #expect(android.sysroot == nil)
    for bad in ["sparc-linux-gnu", "aarch64", "aarch64-linux-musl", "aarch64-apple-darwin", "aarch64-linux-androidX"] {
      #expect(throws: BuildError.unknownTarget(bad), "\(bad)") { try CrossTarget(triple: bad) }
    }
  }

  @Test("clang takes --target on both lines and links with lld; gcc is the target's own cross compiler")
  func crossFlags() throws {
    let target = try CrossTarget(triple: "aarch64-linux-gnu")
    let release = BuildFlags.release(orderfile: "/src/app.order", format: .lld)
    let clang = try release.crossBuilt(for: target, compiler: .clang, host: .x86_64)
    #expect(clang.compiler == "clang")
    #expect(clang.compile == ["--target=aarch64-linux-gnu", "-ffunction-sections", "-fdata-sections"])
    #expect(clang.link.first == "--target=aarch64-linux-gnu")
    #expect(clang.link.filter { $0 == "-fuse-ld=lld" }.count == 1, "\(clang.link)")
    #expect(clang.link.last == "-Wl,--symbol-ordering-file=/src/app.order")
    #expect(clang.emulator == ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"])

    let gcc = try release.crossBuilt(for: target, compiler: .gcc, host: .x86_64, lldDirectory: "/opt/llvm/bin")
    #expect(gcc.compiler == "aarch64-linux-gnu-gcc")
    #expect(gcc.compile == release.compile)
    #expect(gcc.link == ["-B/opt/llvm/bin"] + release.link)
    // The instrumented build links with the target's own ld: nothing to point at.
    let instrumented = BuildFlags.instrumented(
      compiler: .gcc, runtime: RuntimeLocation(includeDirectory: "/i", libraryDirectory: "/l"))
    #expect(
      try instrumented.crossBuilt(for: target, compiler: .gcc, host: .x86_64, lldDirectory: "/opt/llvm/bin").link
        == instrumented.link)
    // On an arm64 host the program runs as it is.
    #expect(try release.crossBuilt(for: target, compiler: .gcc, host: .aarch64).emulator == nil)

    let android = try CrossTarget(triple: "aarch64-linux-android34")
    #expect(throws: BuildError.noCrossCompiler(target: "aarch64-linux-android34", compiler: "gcc")) {
      try release.crossBuilt(for: android, compiler: .gcc, host: .x86_64)
    }
    #expect(try release.crossBuilt(for: android, compiler: .clang, host: .x86_64).emulator == nil)
  }

  @Test("the instrumented cross build refuses a runtime built for another machine")
  func runtimeMachine() throws {
    let target = try CrossTarget(triple: "aarch64-linux-gnu")
    let host = try RuntimeBuilder.libraryDirectory()
    let location = RuntimeLocation(includeDirectory: PackagePaths.runtimeInclude, libraryDirectory: host)
    #expect(
      throws: BuildError.runtimeForOtherMachine(
        library: host + "/libOrderfileRuntime.so", built: "x86-64", target: "aarch64-linux-gnu")
    ) {
      try target.checkRuntime(location)
    }
    try CrossTarget(triple: "x86_64-linux-gnu").checkRuntime(location)
  }

  @Test("a tool in <prefix>/bin finds the runtime Scripts/install --target put in <prefix>/lib/<triple>")
  func installedForTarget() throws {
    let prefix = try TemporaryDirectory("orderfile-prefix")
    defer { prefix.remove() }
    for directory in ["bin", "include", "lib/aarch64-linux-gnu"] {
      try FileManager.default.createDirectory(atPath: prefix.file(directory), withIntermediateDirectories: true)
    }
    try AtomicFile.write("", to: prefix.file("include/orderfile.h"))
    try FileManager.default.copyItem(
      atPath: try RuntimeBuilder.libraryDirectory() + "/libOrderfileRuntime.so",
      toPath: prefix.file("lib/libOrderfileRuntime.so"))
    let target = try CrossTarget(triple: "aarch64-linux-gnu")
    let build = Build.instrumented(.gcc)
    // Only the host's runtime: refused, naming it.
    #expect(
      throws: BuildError.runtimeForOtherMachine(
        library: prefix.file("lib/libOrderfileRuntime.so"), built: "x86-64", target: "aarch64-linux-gnu")
    ) {
      try BuildFlags.forBuild(build, target: target, executablePath: prefix.file("bin/orderfile"), environment: [:])
    }
    // An arm64 ELF header is all the check reads.
    try Arm64.writeHeaderOnlyELF(to: prefix.file("lib/aarch64-linux-gnu/libOrderfileRuntime.so"))
    let flags = try BuildFlags.forBuild(
      build, target: target, executablePath: prefix.file("bin/orderfile"), environment: [:])
    #expect(flags.link.contains("-L" + prefix.file("lib/aarch64-linux-gnu")), "\(flags.link)")
    // The host build keeps the host's runtime.
    let host = try BuildFlags.forBuild(build, executablePath: prefix.file("bin/orderfile"), environment: [:])
    #expect(host.link.contains("-L" + prefix.file("lib")), "\(host.link)")
  }

  @Test("record --emulator's library: the one built for the program's machine, in lib/<triple> before the host's")
  func libraryForMachine() throws {
    let prefix = try TemporaryDirectory("orderfile-library-machine")
    defer { prefix.remove() }
    let tool = prefix.file("bin/orderfile")
    try FileManager.default.createDirectory(
      atPath: prefix.file("lib/aarch64-linux-gnu"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: prefix.file("bin"), withIntermediateDirectories: true)
    // The host's library beside the tool is never taken for an arm64 program.
    try FileManager.default.copyItem(
      atPath: try RuntimeBuilder.libraryDirectory() + "/libOrderfileRuntime.so",
      toPath: prefix.file("lib/libOrderfileInProcess.so"))
    let searched = [
      prefix.file("lib/aarch64-linux-gnu/libOrderfileInProcess.so"), prefix.file("bin/libOrderfileInProcess.so"),
      prefix.file("lib/libOrderfileInProcess.so"),
    ]
    #expect(
      throws: BuildError.noLibraryForMachine(
        library: "libOrderfileInProcess.so", machine: "arm64", triple: "aarch64-linux-gnu", searched: searched)
    ) {
      try RuntimeLocation.library(
        named: "libOrderfileInProcess.so", for: .aarch64, executablePath: tool, environment: [:])
    }
    #expect(
      (BuildError.noLibraryForMachine(library: "", machine: "", triple: "", searched: [])).exitStatus.rawValue == 69)
    try Arm64.writeHeaderOnlyELF(to: searched[0])
    #expect(
      try RuntimeLocation.library(
        named: "libOrderfileInProcess.so", for: .aarch64, executablePath: tool, environment: [:])
        == searched[0])
    #expect(
      try RuntimeLocation.library(
        named: "libOrderfileInProcess.so", for: .x86_64, executablePath: tool, environment: [:])
        == searched[2])
    // ORDERFILE_RUNTIME_DIR first, when it holds one for the machine.
    let elsewhere = try TemporaryDirectory("orderfile-library-machine-env")
    defer { elsewhere.remove() }
    try Arm64.writeHeaderOnlyELF(to: elsewhere.file("libOrderfileInProcess.so"))
    #expect(
      try RuntimeLocation.library(
        named: "libOrderfileInProcess.so", for: .aarch64, executablePath: tool,
        environment: ["ORDERFILE_RUNTIME_DIR": elsewhere.path]) == elsewhere.file("libOrderfileInProcess.so"))
  }

  @Test("Swift has no cross build; Rust's names the target and its linker")
  func languages() throws {
    let target = try CrossTarget(triple: "aarch64-linux-gnu")
    #expect(throws: BuildError.noCrossBuild(language: "swift")) {
      try LanguageBuild.forBuild(.recordable(format: .lld), language: .swift, target: target)
    }
    let rust = try LanguageBuild.forBuild(.recordable(format: .lld), language: .rust, target: target)
    #expect(rust.cargoArguments == ["--target", "aarch64-unknown-linux-gnu"])
    #expect(rust.arguments.starts(with: ["-C", "linker=aarch64-linux-gnu-gcc"]), "\(rust.arguments)")
  }
}

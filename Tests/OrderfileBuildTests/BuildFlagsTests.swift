import Foundation
import OrderfileBuild
import OrderfileOrdering
import OrderfileSupport
import Testing
import _OrderfileTestSupport

private let runtime = RuntimeLocation(includeDirectory: "/opt/of/include", libraryDirectory: "/opt/of/lib")

@Suite("Build flags")
struct BuildFlagsTests {
  @Test("the instrumented build: the compiler's hook flag, the runtime's header and library, an rpath")
  func instrumented() {
    let flags = BuildFlags.instrumented(compiler: .clang, runtime: runtime)
    #expect(
      flags.compile == ["-finstrument-functions-after-inlining", "-DORDERFILE_INSTRUMENTED", "-I/opt/of/include"])
    // The runtime survives a project's -Wl,--as-needed placed before it.
    #expect(
      flags.link == [
        "-L/opt/of/lib", "-Wl,--no-as-needed", "-lOrderfileRuntime", "-Wl,--as-needed", "-Wl,-rpath,/opt/of/lib",
        "-Wl,--build-id",
      ])
    #expect(BuildFlags.instrumented(compiler: .gcc, runtime: runtime).compile.first == "-finstrument-functions")
  }

  @Test("the release build: function sections, the linker and its ordering flag", arguments: OrderfileFormat.allCases)
  func release(format: OrderfileFormat) {
    let flags = BuildFlags.release(orderfile: "/src/app.order", format: format)
    #expect(flags.compile == format.compileFlags)
    #expect(flags.link.last == format.linkerFlag(path: "/src/app.order"))
  }

  @Test("the release build recorded as it is: nothing instrumented, one section per function, lld, a build-id")
  func recordable() throws {
    let flags = try BuildFlags.forBuild(.recordable(format: .lld))
    #expect(flags.compile == ["-ffunction-sections", "-fdata-sections"])
    #expect(flags.link == ["-fuse-ld=lld", "-Wl,--build-id"])
    #expect(!flags.compile.contains { $0.contains("instrument") })
  }

  @Test("Swift and Rust: the driver's own way to pass each flag, the order by its absolute path")
  func languages() throws {
    let directory = try TemporaryDirectory()
    let order = directory.file("app.order")
    try "main\n".write(toFile: order, atomically: true, encoding: .utf8)
    let swift = try LanguageBuild.forBuild(.release(orderfile: order, format: .lld), language: .swift)
    #expect(swift.arguments.starts(with: ["-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections"]))
    // A package's C targets need their own sections too.
    #expect(swift.arguments.indices.contains { swift.arguments[$0...].starts(with: ["-Xcc", "-ffunction-sections"]) })
    #expect(swift.arguments.suffix(2) == ["-Xlinker", "--symbol-ordering-file=\(order)"])
    let rust = try LanguageBuild.forBuild(.recordable(format: .lld), language: .rust)
    #expect(rust.arguments.contains("codegen-units=1"))
    #expect(
      rust.commandLine.hasPrefix("RUSTFLAGS='-C codegen-units=1 ")
        && rust.commandLine.hasSuffix(" cargo build --release --target x86_64-unknown-linux-gnu"))
    // The host as --target keeps RUSTFLAGS off build scripts and proc macros.
    #expect(rust.cargoArguments.starts(with: ["--target"]))
    // A runtime directory of its own, so the lookup cannot fall back to the one beside the tool.
    let runtime = directory.file("runtime")
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: runtime + "/libOrderfileRuntime.so", contents: Data())
    let instrumented = try LanguageBuild.forBuild(
      .instrumented(.clang), language: .rust, environment: ["ORDERFILE_RUNTIME_DIR": runtime])
    #expect(instrumented.arguments.contains("llvm-args=-sanitizer-coverage-trace-pc-guard"))
    #expect(instrumented.arguments.contains("dylib=OrderfileRuntime"))
    #expect(instrumented.arguments.contains("link-arg=-Wl,-rpath,\(runtime)"))
  }

  @Test("Rust flags fit the rustc found: a lint it does not know is left out, with a note")
  func rustcVersion() throws {
    #expect(RustCompiler.Version(versionOutput: "rustc 1.63.0\n") == RustCompiler.Version(1, 63, 0))
    #expect(
      RustCompiler.Version(versionOutput: "rustc 1.97.0-nightly (e50aa6fba 2026-05-19)")
        == RustCompiler.Version(1, 97, 0))
    #expect(RustCompiler.Version(versionOutput: "cargo 1.95.0") == nil)
    func build(_ minor: Int) throws -> LanguageBuild {
      try LanguageBuild.forBuild(
        .recordable(format: .lld), language: .rust,
        rustc: RustCompiler(program: "rustc", version: RustCompiler.Version(1, minor, 0)))
    }
    let old = try build(85)
    #expect(!old.arguments.contains("linker-messages"), "\(old.arguments)")
    #expect(old.notes.count == 1 && old.notes[0].contains("rustc 1.85.0"), "\(old.notes)")
    let current = try build(86)
    #expect(current.arguments.suffix(2) == ["-W", "linker-messages"])
    #expect(current.notes.isEmpty)
  }

  @Test("Rust's ordered build: RUSTFLAGS stay the release build's; the order goes to the final crate alone")
  func rustFinalCrate() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let order = directory.file("rustapp.order")
    try AtomicFile.write("main\n", to: order)
    let rustc = RustCompiler(program: "rustc", version: RustCompiler.Version(1, 95, 0))
    let shipped = try LanguageBuild.forBuild(.recordable(format: .lld), language: .rust, rustc: rustc)
    var ordered = try LanguageBuild.forBuild(
      .release(orderfile: order, format: .lld), language: .rust, rustc: rustc)
    #expect(ordered.arguments == shipped.arguments)
    #expect(ordered.cargoArguments.suffix(2) == ["--bin", "rustapp"])
    #expect(ordered.finalCrateArguments.prefix(3) == ["-C", "link-arg=-Wl,--symbol-ordering-file=\(order)", "--cfg"])
    #expect(ordered.commandLine.contains(" cargo rustc --release --target "), "\(ordered.commandLine)")
    ordered.keepRelocations()
    #expect(
      ordered.arguments == shipped.arguments && ordered.finalCrateArguments.contains("link-arg=-Wl,--emit-relocs"))
    // A shared library's orderfile orders the package's library.
    let library = directory.file("libwidgets.so.order")
    try AtomicFile.write("widgets_init\n", to: library)
    let cdylib = try LanguageBuild.forBuild(.release(orderfile: library, format: .lld), language: .rust, rustc: rustc)
    #expect(cdylib.cargoArguments.last == "--lib")
  }

  @Test("the release flags name the orderfile by its absolute path; a missing one is a usage error")
  func releaseOrderfilePath() throws {
    let directory = try TemporaryDirectory()
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    let flags = try BuildFlags.forBuild(.release(orderfile: directory.path + "/./app.order", format: .lld))
    #expect(flags.link == ["-fuse-ld=lld", "-Wl,--build-id", "-Wl,--symbol-ordering-file=\(order)"])
    #expect(throws: BuildError.noOrderfile(path: directory.file("none.order"))) {
      try BuildFlags.forBuild(.release(orderfile: directory.file("none.order"), format: .lld))
    }
    #expect(BuildError.noOrderfile(path: "x").exitStatus == .usage)
  }

  @Test("the runtime is found through the environment, or the lookup fails naming the tool")
  func runtimeLookup() throws {
    let directory = try TemporaryDirectory()
    try AtomicFile.write("", to: directory.file("libOrderfileRuntime.so"))
    try AtomicFile.write("", to: directory.file("orderfile.h"))
    let environment = ["ORDERFILE_RUNTIME_DIR": directory.path, "ORDERFILE_INCLUDE_DIR": directory.path]
    let flags = try BuildFlags.forBuild(
      .instrumented(.clang), executablePath: "/nowhere/orderfile", environment: environment)
    #expect(flags.link.first == "-L\(directory.path)")
    #expect(throws: BuildError.runtimeNotFound(near: "/nowhere/orderfile")) {
      try BuildFlags.forBuild(.instrumented(.clang), executablePath: "/nowhere/orderfile", environment: [:])
    }
  }

  @Test("words with shell metacharacters are quoted, safe ones are not")
  func shellQuoting() {
    #expect(BuildFlags.shellLine(["-I/a b", "-DX='1'", "-O2", ""]) == "'-I/a b' '-DX='\\''1'\\''' -O2 ''")
  }
}

@Suite("Build-system snippets")
struct BuildSystemSnippetTests {
  let flags = BuildFlags(
    compile: ["-ffunction-sections"], link: ["-fuse-ld=lld", "-Wl,--symbol-ordering-file=/src/app.order", "-lm"])
  let orders = [
    TargetOrderfile(module: "app", orderfile: "/src/orders/app.order"),
    TargetOrderfile(module: "libui.so.0.0.0", orderfile: "/src/orders/libui.so.0.0.0.order"),
  ]

  @Test("Make adds to CFLAGS, CXXFLAGS and LDFLAGS")
  func make() throws {
    #expect(
      try BuildSystem.make.snippet(flags).split(separator: "\n").dropFirst() == [
        "CFLAGS   += -ffunction-sections", "CXXFLAGS += -ffunction-sections",
        "LDFLAGS  += -fuse-ld=lld -Wl,--symbol-ordering-file=/src/app.order -lm",
      ])
  }

  @Test("Make, ordered: each orderfile a private variable of its module's file, in any folder, and of libtool's .la")
  func makeOrdered() throws {
    let lines = try BuildSystem.make.snippet(BuildFlags.recordable(format: .gold), orders: orders, format: .gold)
      .split(separator: "\n").map(String.init)
    #expect(lines.contains("LDFLAGS  += -fuse-ld=gold -Wl,--build-id"))
    #expect(
      lines.suffix(2) == [
        "app %/app: private LDFLAGS += -Wl,--section-ordering-file=/src/orders/app.order",
        "libui.so.0.0.0 %/libui.so.0.0.0 libui.la %/libui.la: private LDFLAGS += -Wl,--section-ordering-file=/src/orders/libui.so.0.0.0.order",
      ])
  }

  @Test("CMake: C and C++ flags of every target, the link flags of executables and shared libraries")
  func cmake() throws {
    let instrumented = BuildFlags.instrumented(compiler: .gcc, runtime: runtime)
    let lines = try BuildSystem.cmake.snippet(instrumented).split(separator: "\n").map(String.init)
    let compile = "-finstrument-functions -DORDERFILE_INSTRUMENTED -I/opt/of/include"
    #expect(lines.contains("string(APPEND CMAKE_C_FLAGS \" \(compile)\")"))
    #expect(lines.contains("string(APPEND CMAKE_CXX_FLAGS \" \(compile)\")"))
    for variable in ["CMAKE_EXE_LINKER_FLAGS", "CMAKE_SHARED_LINKER_FLAGS"] {
      #expect(
        lines.contains {
          $0.hasPrefix("string(APPEND \(variable) ") && $0.contains("-Wl,--no-as-needed -lOrderfileRuntime")
        })
    }
    #expect(!lines.contains { $0.contains("orderfile_order") })
  }

  @Test("CMake, ordered: one orderfile per target through a function, a library's target named without lib and .so")
  func cmakeOrdered() throws {
    let lines = try BuildSystem.cmake.snippet(BuildFlags.recordable(format: .lld), orders: orders)
      .split(separator: "\n").map(String.init)
    #expect(lines.contains("string(APPEND CMAKE_SHARED_LINKER_FLAGS \" -fuse-ld=lld -Wl,--build-id\")"))
    #expect(
      lines.contains("    target_link_options [[${target}]] PRIVATE [[-Wl,--symbol-ordering-file=${orderfile}]])"))
    #expect(lines.contains { $0.contains("APPEND PROPERTY LINK_DEPENDS [[${orderfile}]]") })
    #expect(
      lines.suffix(2) == [
        "orderfile_order(app \"/src/orders/app.order\")",
        "orderfile_order(ui \"/src/orders/libui.so.0.0.0.order\")",
      ])
  }

  @Test("Meson: project arguments, and each target's link_args and link_depends by target name")
  func meson() throws {
    let lines = try BuildSystem.meson.snippet(BuildFlags.recordable(format: .lld), orders: orders)
      .split(separator: "\n").map(String.init)
    #expect(lines.contains("add_project_arguments('-ffunction-sections', '-fdata-sections', language: ['c', 'cpp'])"))
    #expect(lines.contains("add_project_link_arguments('-fuse-ld=lld', '-Wl,--build-id', language: ['c', 'cpp'])"))
    #expect(lines.contains("  'ui': ['-Wl,--symbol-ordering-file=/src/orders/libui.so.0.0.0.order'],"))
    #expect(lines.contains("  'ui': ['/src/orders/libui.so.0.0.0.order'],"))
    let plain = try BuildSystem.meson.snippet(BuildFlags.recordable(format: .lld)).split(separator: "\n")
    #expect(plain.suffix(2) == ["orderfile_link_args = {}", "orderfile_link_depends = {}"])
    let quoted = try BuildSystem.meson.snippet(
      BuildFlags.recordable(format: .lld), orders: [TargetOrderfile(module: "app", orderfile: "/src/it's\\/app.order")])
    #expect(quoted.contains("  'app': ['/src/it\\'s\\\\/app.order'],"), "\(quoted)")
  }

  @Test("module=orderfile pairs: a bad pair, a module named twice and a missing file are refused, naming them")
  func pairs() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let app = directory.file("app.order")
    let library = directory.file("libui.so.order")
    try AtomicFile.write("main\n", to: app)
    try AtomicFile.write("ui_init\n", to: library)
    #expect(
      try TargetOrderfile.parse(["app=" + app, "libui.so=" + library], format: .lld) == [
        TargetOrderfile(module: "app", orderfile: app), TargetOrderfile(module: "libui.so", orderfile: library),
      ])
    #expect(
      try TargetOrderfile.parse([library], format: .lld) == [TargetOrderfile(module: "libui.so", orderfile: library)])
    #expect(throws: BuildError.notAPair(library)) { try TargetOrderfile.parse(["app=" + app, library], format: .lld) }
    #expect(throws: BuildError.moduleNamedTwice(module: "app")) {
      try TargetOrderfile.parse(["app=" + app, "app=" + library], format: .lld)
    }
    #expect(throws: BuildError.noOrderfile(path: "none.order")) {
      try TargetOrderfile.parse(["app=none.order"], format: .lld)
    }
    #expect(TargetOrderfile(module: "libui.so.0", orderfile: "").targetName == "ui")
    #expect(TargetOrderfile(module: "libsort", orderfile: "").targetName == "libsort")
    #expect(TargetOrderfile(module: "libui.sock", orderfile: "").targetName == "libui.sock")
  }

  @Test("the compiler comes from CXX or CC; gcc wins a mix, since clang takes gcc's flag")
  func detectedCompiler() {
    #expect(InstrumentingCompiler.detected(in: ["CXX": "/usr/bin/g++-12"]) == .gcc)
    #expect(InstrumentingCompiler.detected(in: ["CC": "ccache clang"]) == .clang)
    #expect(InstrumentingCompiler.detected(in: ["CC": "clang", "CXX": "g++"]) == .gcc)
    #expect(InstrumentingCompiler.detected(in: ["CC": "cc"]) == .gcc)
    #expect(InstrumentingCompiler.detected(in: ["CC": "icx"]) == nil)
    #expect(InstrumentingCompiler.detected(in: [:]) == nil)
  }

  @Test("SwiftPM passes compile flags with -Xcc, the linker with -use-ld and -Wl words with -Xlinker")
  func swiftpm() throws {
    let last = try BuildSystem.swiftpm.snippet(flags).split(separator: "\n").last
    #expect(
      last
        == "swift build -c release -Xcc -ffunction-sections -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=/src/app.order -Xlinker -lm"
    )
  }
}

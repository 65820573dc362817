import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `Scripts/install` into a temporary prefix with --destdir, then a small C project built
/// against that prefix alone — Make with pkg-config, CMake with find_package, and the
/// flags the installed tool prints — recorded instrumented, ordered and relinked.
///
/// Cost: the install is a release build with the Swift runtime linked statically, in its
/// own scratch folder (.build-install). It runs once per test run (`InstalledTree.shared`);
/// from scratch it takes several minutes on 2 cores, then seconds while nothing changed.
/// Whether cmake is on PATH, for the CMake tests' `.enabled(if:)`.
private let hasCMake = ProcessRunner.resolve("cmake").hasPrefix("/")
private let noCMake: Comment = "cmake is not installed (Scripts/setup-deps installs it)"

@Suite("Scripts/install", .serialized)
struct InstallTests {
  @Test("the tree holds the tool, the runtime both ways, headers, pkg-config, CMake, completions, man pages, docs")
  func installedTree() throws {
    let tree = try InstalledTree.shared.get()
    for file in [
      "bin/orderfile", "lib/libOrderfileRuntime.so", "lib/libOrderfileRuntime.a",
      "lib/libOrderfileRuntimeEmbedded.a", "lib/libOrderfilePageProbe.so", "include/orderfile.h",
      "include/orderfile_trace_format.h", "lib/pkgconfig/orderfile-runtime.pc",
      "lib/cmake/OrderfileRuntime/OrderfileRuntimeConfig.cmake",
      "lib/cmake/OrderfileRuntime/OrderfileRuntimeConfigVersion.cmake",
      "share/bash-completion/completions/orderfile", "share/zsh/site-functions/_orderfile",
      "share/fish/vendor_completions.d/orderfile.fish", "share/man/man1/orderfile.1",
      "share/man/man1/orderfile.flags.1", "share/doc/orderfile/README.md", "share/doc/orderfile/Docs/Reference.md",
    ] {
      #expect(FileManager.default.fileExists(atPath: tree.root + "/" + file), "missing \(file)")
    }
    // The installed README's links land on the installed pages of Docs/, as in the checkout.
    #expect(try DocumentationLinkTests.brokenLinks(of: "README.md", root: tree.root + "/share/doc/orderfile") == [])
    // The archive holds the whole runtime as one object, so any hook pulls in all of it.
    let members = try runChecked("/usr/bin/ar", ["t", tree.root + "/lib/libOrderfileRuntime.a"])
    #expect(members.standardOutput == "orderfile-runtime.o\n")
    let symbols = try runChecked(Toolchain.nm, ["-g", "--defined-only", tree.root + "/lib/libOrderfileRuntime.a"])
    #expect(symbols.standardOutput.contains(" T __cyg_profile_func_enter\n"))
    #expect(symbols.standardOutput.contains(" T orderfile_startup_complete\n"))
    // The embedded archive binds its library's hook calls inside the library: hidden hooks.
    let embedded = try runChecked("/usr/bin/readelf", ["-sW", tree.root + "/lib/libOrderfileRuntimeEmbedded.a"])
    let enter = embedded.standardOutput.split(separator: "\n").filter { $0.hasSuffix(" __cyg_profile_func_enter") }
    #expect(enter.count == 1 && enter[0].contains(" HIDDEN "), "\(enter)")
    let soname = try runChecked("/usr/bin/readelf", ["-d", tree.root + "/lib/libOrderfileRuntime.so"])
    #expect(soname.standardOutput.contains("Library soname: [libOrderfileRuntime.so]"))
    let manual = try String(contentsOfFile: tree.root + "/share/man/man1/orderfile.flags.1", encoding: .utf8)
    #expect(manual.contains("--instrument"))
  }

  @Test(
    "with the cross toolchain here, the install carries the arm64 runtime in lib/aarch64-linux-gnu: flags --target name it, record and estimate --measure under --emulator find it with nothing set",
    .enabled(if: Arm64.available, Comment(rawValue: Arm64.skipReason)))
  func crossRuntime() throws {
    let tree = try InstalledTree.shared.get()
    let directory = tree.root + "/lib/" + Arm64.triple
    for file in [
      "libOrderfileRuntime.so", "libOrderfileRuntime.a", "libOrderfileRuntimeEmbedded.a", "libOrderfilePageProbe.so",
      "libOrderfileInProcess.so",
    ] {
      #expect(FileManager.default.fileExists(atPath: directory + "/" + file), "missing \(file)")
    }
    // The in-process recorder too, which `record --emulator` preloads into an arm64 program.
    for library in ["libOrderfileRuntime.so", "libOrderfileInProcess.so"] {
      let header = try runChecked("/usr/bin/readelf", ["-h", directory + "/" + library]).standardOutput
      #expect(header.contains("AArch64"), "\(library): \(header)")
    }
    let flags = try tree.run("orderfile flags --instrument --target \(Arm64.triple) --ldflags")
    #expect(flags.contains("-L\(directory)"), "\(flags)")
    // record --emulator finds the arm64 in-process recorder there, with nothing set.
    let work = try TemporaryDirectory("orderfile-install-emulator")
    defer { work.remove() }
    let (clang, cross) = Arm64.compiler("clang")
    try runChecked(
      clang, cross + ["-O2", "-g", PackagePaths.fixtures + "/breakpoints/sequence.c", "-o", work.file("sequence")])
    _ = try tree.run(
      "orderfile record -q --emulator '\(Arm64.qemu) -L \(Arm64.sysroot)' -o launch.trace -- ./sequence 2 > out 2> err; echo $? > status",
      in: work.path)
    let recorded = try FileReading.text(atPath: work.file("err"))
    #expect(try FileReading.text(atPath: work.file("status")) == "2\n", "\(recorded)")
    let generated = try tree.run("orderfile generate launch.trace -o sequence.order 2>&1", in: work.path)
    #expect(
      try FileReading.text(atPath: work.file("sequence.order")).contains("step_a\nstep_b\nstep_c\nstep_d\nstep_e"),
      "\(generated)")
    // The arm64 page probe too: the launch's pages counted in qemu's guest.
    let measured = try tree.run(
      "orderfile estimate --trace launch.trace --binary sequence --json --measure --emulator '\(Arm64.qemu) -L \(Arm64.sysroot)' -- ./sequence 2 2>/dev/null",
      in: work.path)
    let rows = (try JSONSerialization.jsonObject(with: Data(measured.utf8)) as? [String: Any])
      .flatMap { $0["measurement"] as? [String: Any] }.flatMap { $0["rows"] as? [[String: Any]] }
    #expect((rows?.first?["measured"] as? Int ?? 0) > 0, "\(measured)")
  }

  @Test("the installed tool prints flags naming the installed runtime, not the checkout")
  func printedFlagsNameThePrefix() throws {
    let tree = try InstalledTree.shared.get()
    let flags = try tree.run("orderfile flags --instrument --compiler gcc")
    #expect(flags.contains("-I\(tree.root)/include"), "\(flags)")
    #expect(flags.contains("-L\(tree.root)/lib"), "\(flags)")
    #expect(!flags.contains(PackagePaths.root), "\(flags)")
  }

  @Test("Make with pkg-config: instrumented build, record, generate, relink")
  func makeWithPkgConfig() throws {
    let tree = try InstalledTree.shared.get()
    let project = try SmallProject(tree: tree)
    try project.write(
      "Makefile",
      """
      CC = gcc
      CFLAGS ?= -O2 -g
      ifeq ($(INSTRUMENT),1)
      CFLAGS += $(shell pkg-config --cflags orderfile-runtime)
      LDLIBS += $(shell pkg-config --libs orderfile-runtime)
      endif
      app: main.o work.o
      \t$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
      clean:
      \trm -f app *.o

      """)
    #expect(try tree.run("pkg-config --variable=libdir orderfile-runtime").hasSuffix("/lib\n"))
    try project.roundTrip(
      instrumented: "make INSTRUMENT=1",
      release: { ldflags in "make clean && make CFLAGS='-O2 -g -ffunction-sections' LDFLAGS=\"\(ldflags)\"" })
  }

  /// A CMake project that links `target` when configured with -DINSTRUMENT=ON.
  private func cmakeProject(_ tree: InstalledTree, linking target: String) throws -> SmallProject {
    let project = try SmallProject(tree: tree)
    try project.write(
      "CMakeLists.txt",
      """
      cmake_minimum_required(VERSION 3.16)
      project(app C)
      option(INSTRUMENT "link orderfile's recording runtime" OFF)
      add_executable(app main.c work.c)
      if(INSTRUMENT)
        find_package(OrderfileRuntime 0.1 REQUIRED)
        target_link_libraries(app PRIVATE \(target))
      endif()

      """)
    return project
  }

  @Test("CMake with find_package: instrumented build, record, generate, relink", .enabled(if: hasCMake, noCMake))
  func cmakeWithFindPackage() throws {
    let tree = try InstalledTree.shared.get()
    let project = try cmakeProject(tree, linking: "OrderfileRuntime::OrderfileRuntime")
    let configure = "cmake -S . -B build -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo"
    try project.roundTrip(
      instrumented:
        "\(configure) -DINSTRUMENT=ON -DCMAKE_PREFIX_PATH=\"$ORDERFILE_PREFIX\" && cmake --build build && cp build/app app",
      release: { ldflags in
        "rm -rf build && \(configure) -DINSTRUMENT=OFF -DCMAKE_C_FLAGS=-ffunction-sections"
          + " -DCMAKE_EXE_LINKER_FLAGS=\"\(ldflags)\" && cmake --build build && cp build/app app"
      })
  }

  @Test(
    "CMake with the printed recipe: a static library's code is instrumented, and the plain signature works",
    .enabled(if: hasCMake, noCMake))
  func cmakeRecipeReachesLibraries() throws {
    let tree = try InstalledTree.shared.get()
    let project = try SmallProject(tree: tree)
    let path = project.directory.path
    // The project's code in a static library, linked with target_link_libraries' plain
    // signature, as older projects do; the recipe goes before the targets.
    try tree.run("orderfile flags --instrument --packages --build-system cmake > orderfile.cmake", in: path)
    try project.write(
      "CMakeLists.txt",
      """
      cmake_minimum_required(VERSION 3.16)
      project(app C)
      include(${CMAKE_SOURCE_DIR}/orderfile.cmake)
      add_library(core STATIC work.c)
      add_executable(app main.c)
      target_link_libraries(app core)

      """)
    try tree.run(
      "cmake -S . -B build -DCMAKE_C_COMPILER=gcc -DCMAKE_PREFIX_PATH=\"$ORDERFILE_PREFIX\" && cmake --build build",
      in: path)
    try tree.run("orderfile record --instrumented -o launch.trace -- build/app", in: path)
    try tree.run("orderfile generate launch.trace -o app.order", in: path)
    let order = try String(contentsOfFile: project.directory.file("app.order"), encoding: .utf8)
    // main is the executable's; the rest is the library's, which only a recipe that
    // reaches every target records.
    #expect(
      order.split(separator: "\n").prefix(4) == ["main", "parse_config", "open_window", "render_frame"], "\(order)")
  }

  @Test(
    "CMake with OrderfileRuntime::Static: the runtime linked in, and a launch recorded", .enabled(if: hasCMake, noCMake)
  )
  func cmakeWithStaticRuntime() throws {
    let tree = try InstalledTree.shared.get()
    let project = try cmakeProject(tree, linking: "OrderfileRuntime::Static")
    let path = project.directory.path
    try tree.run(
      "cmake -S . -B build -DCMAKE_C_COMPILER=gcc -DINSTRUMENT=ON -DCMAKE_PREFIX_PATH=\"$ORDERFILE_PREFIX\""
        + " && cmake --build build",
      in: path)
    #expect(!(try tree.run("ldd build/app", in: path)).contains("libOrderfileRuntime"))
    // The runtime's exit handler is in the program although nothing names it.
    try tree.run("orderfile record --instrumented -o launch.trace -- build/app", in: path)
    try tree.run("orderfile generate launch.trace -o names.order", in: path)
    let order = try String(contentsOfFile: project.directory.file("names.order"), encoding: .utf8)
    #expect(order.split(separator: "\n").prefix(2) == ["main", "parse_config"], "\(order)")
  }

  @Test("the printed flags: instrumented build, record, generate, relink")
  func printedFlags() throws {
    let tree = try InstalledTree.shared.get()
    let project = try SmallProject(tree: tree)
    try project.roundTrip(
      instrumented:
        "gcc -O2 -g $(orderfile flags --instrument --compiler gcc --cflags) main.c work.c -o app"
        + " $(orderfile flags --instrument --compiler gcc --ldflags)",
      release: { ldflags in "gcc -O2 -g -ffunction-sections main.c work.c -o app \(ldflags)" })
  }
}

/// `Scripts/package-deb`: a package built from the same install tree, that runs without
/// the Swift toolchain. The package is unpacked with `dpkg-deb -x` rather than installed,
/// so the test needs no root and changes nothing on the machine.
@Suite("Scripts/package-deb")
struct DebianPackageTests {
  @Test(
    "the .deb has the right control fields and files, and its orderfile runs without /opt/swift",
    .enabled(
      if: ProcessRunner.resolve("dpkg-shlibdeps").hasPrefix("/"),
      "dpkg-shlibdeps is not installed (Scripts/setup-deps installs dpkg-dev)"))
  func debianPackage() throws {
    // The release build the install tests made; the package reuses it.
    _ = try InstalledTree.shared.get()
    let work = try TemporaryDirectory("orderfile-deb")
    defer { work.remove() }
    let built = try ProcessRunner.run(PackagePaths.root + "/Scripts/package-deb", [work.file("out")])
    #expect(built.succeeded, "Scripts/package-deb exited \(built.status):\n\(built.standardError.suffix(3000))")
    let deb = built.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), "\(built.standardOutput)")

    let info = try runChecked("/usr/bin/dpkg-deb", ["--info", deb]).standardOutput
    #expect(info.contains(" Package: orderfile\n"), "\(info)")
    let depends = try #require(
      info.split(separator: "\n").first { $0.hasPrefix(" Depends: ") }, "no Depends: in\n\(info)")
    for package in ["libdw1", "libc6", "libstdc++6"] {
      #expect(depends.contains(package), "Depends: lacks \(package): \(depends)")
    }
    #expect(!depends.lowercased().contains("swift"), "\(depends)")

    let contents = try runChecked("/usr/bin/dpkg-deb", ["--contents", deb]).standardOutput
    for file in [
      "./usr/bin/orderfile", "./usr/lib/libOrderfileRuntime.so", "./usr/lib/libOrderfileRuntime.a",
      "./usr/lib/libOrderfileRuntimeEmbedded.a", "./usr/lib/libOrderfilePageProbe.so",
      "./usr/include/orderfile.h", "./usr/include/orderfile_trace_format.h",
      "./usr/lib/pkgconfig/orderfile-runtime.pc", "./usr/lib/cmake/OrderfileRuntime/OrderfileRuntimeConfig.cmake",
      "./usr/share/man/man1/orderfile.1.gz", "./usr/share/bash-completion/completions/orderfile",
      "./usr/share/zsh/site-functions/_orderfile", "./usr/share/fish/vendor_completions.d/orderfile.fish",
      "./usr/share/doc/orderfile/README.md",
    ] {
      #expect(contents.contains(" \(file)\n"), "the package lacks \(file)")
    }
    if Arm64.available {
      for file in ["libOrderfileInProcess.so", "libOrderfilePageProbe.so", "libOrderfileRuntime.so"] {
        #expect(contents.contains(" ./usr/lib/aarch64-linux-gnu/\(file)\n"), "the package lacks the arm64 \(file)")
      }
    }
    #expect(!contents.contains("/usr/local"), "files outside the /usr prefix")
    #expect(contents.split(separator: "\n").allSatisfy { $0.contains(" root/root ") }, "files not owned by root")

    // Unpacked, the tool runs with nothing but the system on its paths.
    let unpacked = work.file("root")
    try runChecked("/usr/bin/dpkg-deb", ["-x", deb, unpacked])
    let tool = unpacked + "/usr/bin/orderfile"
    let version = try runChecked("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", tool, "--version"])
    #expect(info.contains(" Version: \(version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))\n"))
    let libraries = try runChecked("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "ldd", tool]).standardOutput
    #expect(!libraries.contains("/opt/swift") && !libraries.contains("not found"), "\(libraries)")
    #expect(!libraries.contains("libswiftCore") && !libraries.contains("libFoundation"), "\(libraries)")
    let dynamic = try runChecked("/usr/bin/readelf", ["-d", tool]).standardOutput
    #expect(!dynamic.contains("/opt/swift"), "a run path into the toolchain:\n\(dynamic)")
    guard Arm64.available else { return }
    // The unpacked tool records an arm64 program under qemu-user with its own arm64 recorder.
    let (clang, cross) = Arm64.compiler("clang")
    try runChecked(
      clang, cross + ["-O2", "-g", PackagePaths.fixtures + "/breakpoints/sequence.c", "-o", work.file("sequence")])
    let recorded = try ProcessRunner.run(
      "/usr/bin/env",
      [
        "-i", "PATH=/usr/bin:/bin", tool, "record", "-q", "--emulator", "\(Arm64.qemu) -L \(Arm64.sysroot)", "-o",
        work.file("launch.trace"), "--", work.file("sequence"), "2",
      ])
    #expect(recorded.status == 2, "\(recorded.standardError)")
    #expect(FileManager.default.fileExists(atPath: work.file("launch.trace")), "\(recorded.standardError)")
  }
}

/// The staged tree, removed at exit (written once, before any test reads it).
nonisolated(unsafe) private var stagedTree: String?

/// The tree `Scripts/install --destdir` wrote, once per test run.
struct InstalledTree: Sendable {
  /// The --destdir folder, kept until exit.
  let staging: TemporaryDirectory
  var destdir: String { staging.path }
  /// `destdir` + the prefix: where the installed files are.
  let root: String

  static let shared: Result<InstalledTree, any Error> = Result { try install() }

  private static func install() throws -> InstalledTree {
    let staging = try TemporaryDirectory("orderfile-install")
    let destdir = staging.path
    // The tree outlives every test that uses it; it goes when the test process exits.
    stagedTree = destdir
    atexit { if let stagedTree { try? FileManager.default.removeItem(atPath: stagedTree) } }
    // With the arm64 cross toolchain here, the arm64 runtime too, without being asked.
    let result = try ProcessRunner.run(
      PackagePaths.root + "/Scripts/install", ["--prefix", "/usr/local", "--destdir", destdir])
    guard result.succeeded else {
      throw TestSupportError("Scripts/install exited \(result.status):\n\(result.standardError.suffix(3000))")
    }
    let root = destdir + "/usr/local"
    guard result.standardOutput == root + "\n" else {
      throw TestSupportError("Scripts/install printed \(result.standardOutput), expected \(root)")
    }
    return InstalledTree(staging: staging, root: root)
  }

  /// The environment of a user of the installed tree: its bin on PATH, its pkg-config
  /// folder, system tools, and nothing of the checkout or the Swift toolchain.
  var environment: [String: String] {
    [
      "PATH": root + "/bin:/usr/local/bin:/usr/bin:/bin",
      "PKG_CONFIG_PATH": root + "/lib/pkgconfig",
      "ORDERFILE_PREFIX": root,
      "HOME": destdir,
      "LC_ALL": "C",
    ]
  }

  /// Runs a shell command as that user would, in `directory`; throws with its output on failure.
  @discardableResult
  func run(_ command: String, in directory: String? = nil) throws -> String {
    let result = try ProcessRunner.run(
      "/usr/bin/env", ["-i"] + environment.map { "\($0.key)=\($0.value)" } + ["/bin/sh", "-c", command],
      currentDirectory: directory)
    guard result.succeeded else {
      throw TestSupportError("'\(command)' exited \(result.status):\n\(result.standardError)\(result.standardOutput)")
    }
    return result.standardOutput
  }
}

/// A C program whose launch calls its functions in an order unlike their order in the source.
struct SmallProject {
  let tree: InstalledTree
  let directory: TemporaryDirectory

  init(tree: InstalledTree) throws {
    self.tree = tree
    directory = try TemporaryDirectory("orderfile-install-project")
    try write(
      "work.c",
      """
      #include <stdio.h>
      __attribute__((noinline)) int cold_path(int x) { return x * 7; }
      __attribute__((noinline)) int render_frame(int x) { return x + 3; }
      __attribute__((noinline)) int unused_helper(int x) { return x - 1; }
      __attribute__((noinline)) int parse_config(int x) { return x * 2; }
      __attribute__((noinline)) int open_window(int x) { return render_frame(x) + 1; }

      """)
    try write(
      "main.c",
      """
      #include <stdio.h>
      #ifdef ORDERFILE_INSTRUMENTED
      #include <orderfile.h>
      #endif
      int cold_path(int), parse_config(int), open_window(int), unused_helper(int);
      int main(int argc, char **argv) {
        (void)argv;
        int value = open_window(parse_config(argc));
      #ifdef ORDERFILE_INSTRUMENTED
        orderfile_startup_complete();
      #endif
        if (argc > 5) value += cold_path(value) + unused_helper(value);
        printf("%d\\n", value);
        return 0;
      }

      """)
  }

  func write(_ name: String, _ text: String) throws {
    try text.write(toFile: directory.file(name), atomically: true, encoding: .utf8)
  }

  /// Builds instrumented with `instrumented`, records a launch, writes a gold orderfile,
  /// rebuilds with `release(ldflags)` and checks that the linker applied the order.
  func roundTrip(instrumented: String, release: (String) -> String) throws {
    let path = directory.path
    try tree.run(instrumented, in: path)
    // The program finds the runtime in the prefix, through its own run path.
    // (pkg-config names it through the .pc file's own folder, lib/pkgconfig/../..: resolve it.)
    let loaded = try tree.run(
      "realpath \"$(ldd ./app | sed -n 's/^.*libOrderfileRuntime.so => \\(.*\\) (0x.*$/\\1/p')\"", in: path)
    #expect(loaded == "\(tree.root)/lib/libOrderfileRuntime.so\n", "loaded from \(loaded)")

    try tree.run("orderfile record --instrumented -o launch.trace -- ./app", in: path)
    // The lld format names one function a line, for the checks; gold links the release.
    try tree.run("orderfile generate launch.trace -o names.order", in: path)
    try tree.run("orderfile generate launch.trace -o app.order --format gold", in: path)
    let order = try String(contentsOfFile: directory.file("names.order"), encoding: .utf8)
    let names = order.split(separator: "\n").map(String.init)
    let launch = ["main", "parse_config", "open_window", "render_frame"]
    #expect(launch.allSatisfy(names.contains), "\(order)")
    #expect(names.filter(launch.contains) == launch, "first-call order: \(order)")
    #expect(!names.contains("cold_path") && !names.contains("unused_helper"), "\(order)")

    let ldflags = try tree.run("orderfile flags --release app.order --format gold --ldflags", in: path)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(ldflags.contains("--section-ordering-file"), "\(ldflags)")
    try tree.run(release(ldflags), in: path)
    let undefined = try tree.run("nm -u app", in: path)
    #expect(!undefined.contains("__cyg_profile_func_enter"), "the release build is instrumented:\n\(undefined)")
    try tree.run("orderfile verify --binary app --order app.order", in: path)
    #expect(try tree.run("./app", in: path) == "6\n")
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("orderfile regenerate: the command line")
struct RegenerateCLITests {
  @Test("no configuration file: exit 66, naming it")
  func missingConfiguration() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-cli")
    let result = try orderfile(["regenerate", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 66)
    #expect(
      result.standardError
        == "orderfile: error: no configuration file at '\(directory.file("orderfile.yml"))' (write one as in Examples/ci/orderfile.yml, or pass --config)\n"
    )
    #expect(result.standardOutput.isEmpty)
  }

  @Test(
    "a build that fails: exit 2, naming the step and its log; progress as plain lines off a terminal; the log exists while the build runs"
  )
  func failingBuild() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-cli")
    // The progress line names the log before the build starts: the build finds it there
    // (status 9 otherwise).
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      build: test -f "$ORDERFILE_WORK/build.log" || exit 9; echo compiling; exit 3
      relink: "true"
      binaries:
        app: build/app
      scenarios:
        - name: cold
          command: [app]

      """, to: directory.file("orderfile.yml"))
    let result = try orderfile(["regenerate", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 2)
    #expect(
      result.standardError == """
        orderfile: [1/7] building the release binaries (log: .orderfile/build.log)
        orderfile: error: the build command failed with status 3; its output: .orderfile/build.log

        """)
    #expect(try FileReading.text(atPath: directory.file(".orderfile/build.log")) == "compiling\n")
    #expect(!FileManager.default.fileExists(atPath: directory.file("orderfiles")))
  }

  @Test("a release binary without a build-id: exit 65, naming the module, before anything is recorded")
  func noBuildID() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-cli")
    try AtomicFile.write("int main(void) { return 0; }\n", to: directory.file("main.c"))
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      build: mkdir -p build && \(Toolchain.clang) -fuse-ld=lld -Wl,--build-id=none main.c -o build/app
      relink: "true"
      binaries:
        app: build/app
      scenarios:
        - name: cold
          command: [app]

      """, to: directory.file("orderfile.yml"))
    let result = try orderfile(["regenerate", "-q", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 65)
    #expect(
      result.standardError
        == "orderfile: error: binaries.app: 'build/app' has no GNU build-id: link it with -Wl,--build-id, so that its traces are told from the relinked binary\n",
      "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: directory.file(".orderfile/traces/cold-1.trace")))
  }

  @Test("binaries: names a library by its SONAME link, which the trace records by its real file")
  func libraryBySONAMELink() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-soname")
    defer { directory.remove() }
    try AtomicFile.write(
      """
      __attribute__((noinline)) int core_parse(int x) { return x * 3 + 1; }
      __attribute__((noinline)) int core_draw(int x) { return x ^ 5; }
      int core_unused(int x) { return x - 7; }
      int core_start(int x) { return core_draw(core_parse(x)); }

      """, to: directory.file("core.c"))
    try AtomicFile.write(
      "int core_start(int);\nint main(int argc, char **argv) { return core_start(argc) == 12345; }\n",
      to: directory.file("main.c"))
    // The relink overwrites the real file the SONAME link points to, as a libtool build does.
    try AtomicFile.write(
      """
      set -e
      mkdir -p build
      lib_order= app_order=
      if [ -n "$1" ]; then
        lib_order="-Wl,--symbol-ordering-file=$1/libcore.so.0.order"
        app_order="-Wl,--symbol-ordering-file=$1/app.order"
      fi
      cc="\(Toolchain.clang) -O2 -g -ffunction-sections -fuse-ld=lld -Wl,--build-id"
      $cc -fPIC -shared -Wl,-soname,libcore.so.0 $lib_order core.c -o build/libcore.so.0.0.0
      ln -sf libcore.so.0.0.0 build/libcore.so.0
      $cc $app_order main.c -Lbuild -l:libcore.so.0 -Wl,-rpath,"$PWD/build" -o build/app

      """, to: directory.file("build.sh"))
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      build: sh build.sh
      relink: sh build.sh "$ORDERFILE_NEW_DIR"
      binaries:
        app: build/app
        libcore.so.0: build/libcore.so.0
      scenarios:
        - name: cold
          command: [app]
      runs: 1

      """, to: directory.file("orderfile.yml"))
    let result = try orderfile(["regenerate", "-q", "--json", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 0, "\(result.standardError)")
    let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
    let modules = (report["modules"] as? [[String: Any]] ?? []).compactMap { $0["module"] as? String }
    #expect(modules == ["app", "libcore.so.0"], "\(result.standardOutput)")
    let order = try FileReading.text(atPath: directory.file("orderfiles/libcore.so.0.order")).split(separator: "\n")
    #expect(order.first == "core_start" && order.contains("core_parse"), "\(order)")
  }

  /// A project of one C program whose scenarios `a` and `b` each read a table of their own,
  /// declared after the one never read, regenerated as an lld script (`data: true` when
  /// `data`); its link writes a map unless `map` is false.
  private func lldScriptProject(data: Bool, map: Bool = true) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory("orderfile-regenerate-script")
    try AtomicFile.write(
      """
      #include <stdio.h>
      const int table_unused[1024] = {7, 8};
      const int table_b[1024] = {5, 6};
      const int table_a[1024] = {3, 4};
      int main(int argc, char **argv) {
        long sum = argv[1][0] == 'a' ? table_a[argc - 2] : table_b[argc - 2];
        printf("%ld\\n", sum);
        return 0;
      }

      """, to: directory.file("main.c"))
    try AtomicFile.write(
      """
      set -e
      mkdir -p build
      script=
      if [ -n "$1" ]; then script="-Wl,--script=$1/app.ld"; fi
      \(Toolchain.clang) -O2 -ffunction-sections -fdata-sections -c main.c -o build/main.o
      \(Toolchain.clang) -fuse-ld=lld -Wl,--build-id \(map ? "-Wl,-Map=build/app.map" : "") $script build/main.o -o build/app

      """, to: directory.file("build.sh"))
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      format: lld-script
      data: \(data)
      build: sh build.sh
      relink: sh build.sh "$ORDERFILE_NEW_DIR"
      binaries:
        app: build/app
      scenarios:
        - name: a
          command: [app, a]
        - name: b
          command: [app, b]
      runs: 1

      """, to: directory.file("orderfile.yml"))
    return directory
  }

  @Test(
    "format lld-script with data: true: the daily job's script places the code and the launch's data of every scenario",
    .enabled(
      if: FileManager.default.fileExists(atPath: PackagePaths.binaryDirectory + "/libOrderfileInProcess.so"),
      "needs Scripts/build-runtime's libOrderfileInProcess.so"))
  func lldScriptWithData() throws {
    let directory = try lldScriptProject(data: true)
    defer { directory.remove() }
    let result = try orderfile(["regenerate", "-q", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 0, "\(result.standardError)")
    let script = try FileReading.text(atPath: directory.file("orderfiles/app.ld"))
    let lines = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.contains("*main.o(.text.main)"), "\(script)")
    let tables = lines.filter { $0.hasPrefix("*main.o(.rodata.table_") }
    #expect(Set(tables) == ["*main.o(.rodata.table_a)", "*main.o(.rodata.table_b)"], "\(script)")
  }

  @Test("format lld-script reads each binary's link map, as generate does: a link without one is exit 65, naming it")
  func lldScriptWithoutMap() throws {
    let directory = try lldScriptProject(data: false, map: false)
    defer { directory.remove() }
    let result = try orderfile(["regenerate", "-q", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 65, "\(result.standardError)")
    #expect(result.standardError.contains("needs the link map of the recorded binary"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: directory.file("orderfiles/app.ld")))
  }

  @Test("a configuration with data: true under instrumented: exit 65, naming the key")
  func dataWithInstrumented() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-data-instrumented")
    defer { directory.remove() }
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      data: true
      build: "true"
      relink: "true"
      binaries:
        app: build/app
      instrumented:
        build: "true"
        binaries:
          app: build/app
      scenarios:
        - name: cold
          command: [/bin/true]

      """, to: directory.file("orderfile.yml"))
    let result = try orderfile(["regenerate", "--config", directory.file("orderfile.yml")])
    #expect(result.status == 65)
    #expect(
      result.standardError.hasPrefix(
        "orderfile: error: \(directory.file("orderfile.yml")):2: data: an instrumented build's runtime records no data"),
      "\(result.standardError)")
  }

  @Test("--runs must be positive")
  func badRuns() throws {
    let result = try orderfile(["regenerate", "--runs", "0"])
    #expect(result.status == 64)
    #expect(result.standardError.contains("--runs must be at least 1"), "\(result.standardError)")
  }
}

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

  @Test("a build that fails: exit 2, naming the step and its log; progress as plain lines off a terminal")
  func failingBuild() throws {
    let directory = try TemporaryDirectory("orderfile-regenerate-cli")
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      build: echo compiling; exit 3
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

  @Test("--runs must be positive")
  func badRuns() throws {
    let result = try orderfile(["regenerate", "--runs", "0"])
    #expect(result.status == 64)
    #expect(result.standardError.contains("--runs must be at least 1"), "\(result.standardError)")
  }
}

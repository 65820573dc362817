import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The ordered Rust build as `orderfile flags --language rust --release` prints it, run as
/// printed on Tests/Fixtures/rust/workspace: a binary crate and a library it depends on by
/// path, built offline by cargo.
@Suite("Rust: the ordered build compiles the final crate alone")
struct RustFinalCrateTests {
  /// A copy of the fixture workspace in `work`, and the environment its builds run in: the
  /// cargo and rustc the recipes name, ld.lld for -fuse-ld=lld, nothing from crates.io.
  static func workspace(in work: TemporaryDirectory) throws -> (project: String, environment: [String: String]) {
    let cargo = try #require(ExampleTools.cargo)
    let project = work.file("workspace")
    try FileManager.default.copyItem(atPath: PackagePaths.fixtures + "/rust/workspace", toPath: project)
    let environment = [
      "PATH": PathName.directory(of: cargo) + ":" + Toolchain.llvmBin + ":"
        + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
      "CARGO_NET_OFFLINE": "true",
    ]
    return (project, environment)
  }

  @Test(
    "applying an orderfile as flags prints it compiles the binary's crate, not its dependency, and places the order",
    .enabled(if: ExampleTools.cargo != nil, "cargo is not installed (not on PATH nor in ~/.cargo/bin)"))
  func finalCrateOnly() throws {
    let work = try TemporaryDirectory("orderfile-rust-final-crate")
    defer { work.remove() }
    let (project, environment) = try Self.workspace(in: work)
    func build(_ flags: [String]) throws -> (command: String, compiled: [String]) {
      let printed = try orderfile(["flags", "--language", "rust"] + flags, environment: environment)
      #expect(printed.succeeded, "\(printed.standardError)")
      let command = try #require(
        printed.standardOutput.split(separator: "\n").last { !$0.hasPrefix("#") }.map(String.init),
        "\(printed.standardOutput)")
      let result = try runChecked("/bin/sh", ["-c", command], environment: environment, currentDirectory: project)
      let compiled = (result.standardError + result.standardOutput).split(separator: "\n")
        .filter { $0.contains("Compiling ") }.map { $0.trimmingCharacters(in: .whitespaces) }
      return (command, compiled)
    }

    // 1. The release build as it ships: both crates compiled.
    let shipped = try build([])
    #expect(shipped.compiled.count == 2, "\(shipped.compiled)")
    let words = shipped.command.split(separator: " ").map(String.init)
    let triple = try #require(words.firstIndex(of: "--target").map { words[$0 + 1] }, "\(shipped.command)")
    let binary = project + "/target/" + triple + "/release/app"
    let launch = try textSymbolsInAddressOrder(binary).filter { symbol in
      ["app_first", "app_second", "app_third", "dep_setup"].contains { symbol.contains($0) }
    }
    #expect(launch.count == 4, "\(launch)")

    // 2. The order reverses the default layout; generate --output-dir names it after the binary.
    let orders = project + "/orders"
    try FileManager.default.createDirectory(atPath: orders, withIntermediateDirectories: true)
    let order = Array(launch.reversed())
    try AtomicFile.write(order.joined(separator: "\n") + "\n", to: orders + "/app.order")
    let ordered = try build(["--release", orders + "/app.order"])
    #expect(ordered.command.contains(" cargo rustc ") && ordered.command.contains("--bin app"), "\(ordered.command)")
    #expect(ordered.compiled == ["Compiling app v0.1.0 (\(project))"], "cargo compiled \(ordered.compiled)")
    #expect(try textSymbolsInAddressOrder(binary).filter(launch.contains) == order)

    // 3. A new order under the same name: the binary's crate is built again, still alone.
    let rotated = Array(order.dropFirst()) + [order[0]]
    try AtomicFile.write(rotated.joined(separator: "\n") + "\n", to: orders + "/app.order")
    let again = try build(["--release", orders + "/app.order"])
    #expect(again.compiled == ["Compiling app v0.1.0 (\(project))"], "cargo compiled \(again.compiled)")
    #expect(try textSymbolsInAddressOrder(binary).filter(launch.contains) == rotated)
  }

  @Test(
    "regenerate builds and relinks a cargo crate as Reference.md says: each step compiles the binary's crate alone",
    .enabled(if: ExampleTools.cargo != nil, "cargo is not installed (not on PATH nor in ~/.cargo/bin)"))
  func regenerate() throws {
    let work = try TemporaryDirectory("orderfile-rust-regenerate")
    defer { work.remove() }
    let (project, environment) = try Self.workspace(in: work)
    try FileManager.default.createDirectory(atPath: project + "/orderfiles", withIntermediateDirectories: true)
    try AtomicFile.write("main\n", to: project + "/orderfiles/app.order")
    // The ordered build of Reference.md's regenerate section, from the committed orderfiles
    // and then from the regenerated ones.
    func ordered(_ directory: String) -> String {
      "RUSTFLAGS='-C codegen-units=1 -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--build-id -W linker-messages'"
        + " cargo rustc --release --target $(uname -m)-unknown-linux-gnu --bin app --"
        + " -C link-arg=-Wl,--symbol-ordering-file=\(directory)/app.order"
        + " --cfg orderfile_$(cksum < \(directory)/app.order | cut -d' ' -f1)"
    }
    let machine = try hostMachine()
    try AtomicFile.write(
      """
      orderfiles: orderfiles
      build: >-
        \(ordered("$ORDERFILE_ORDER_DIR"))
      relink: >-
        \(ordered("$ORDERFILE_NEW_DIR"))
      binaries:
        app: target/\(machine)-unknown-linux-gnu/release/app
      scenarios:
        - name: cold
          command: [app]
      runs: 1

      """, to: project + "/orderfile.yml")
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["regenerate", "-q"], environment: environment, currentDirectory: project)
    #expect(result.succeeded, "\(result.standardError)")
    func compiled(_ log: String) throws -> [String] {
      try FileReading.text(atPath: project + "/.orderfile/" + log).split(separator: "\n")
        .filter { $0.contains("Compiling ") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }
    #expect(try compiled("build.log").count == 2)
    #expect(try compiled("relink.log") == ["Compiling app v0.1.0 (\(project))"])
    let order = try FileReading.text(atPath: project + "/orderfiles/app.order")
    #expect(order.contains("dep_setup") && order.contains("app_first"), "\(order)")
  }
}

/// This machine as `uname -m` names it (x86_64, aarch64), the first word of its Rust triple.
private func hostMachine() throws -> String {
  try runChecked("/bin/uname", ["-m"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `orderfile flags --language rust`: what a cargo build needs, as the command prints it.
@Suite("flags --language rust")
struct RustFlagsCLITests {
  @Test("the release build relinks when only the orderfile's contents change, and shows lld's warnings")
  func releaseRelinks() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let order = directory.file("app.order")
    try AtomicFile.write("main\n", to: order)
    let first = try orderfile(["flags", "--language", "rust", "--release", order])
    #expect(first.status == 0, "\(first.standardError)")
    #expect(first.standardOutput.contains("-W linker-messages"), "\(first.standardOutput)")
    try AtomicFile.write("main\nsetup\n", to: order)
    let second = try orderfile(["flags", "--language", "rust", "--release", order])
    // cargo builds again only when RUSTFLAGS change.
    #expect(first.standardOutput != second.standardOutput, "\(second.standardOutput)")
    #expect(second.standardOutput.contains("--cfg orderfile_"))
  }

  @Test(
    "the release flags fit Debian's rustc 1.63: no -W linker-messages, one note, and that rustc builds with them",
    .enabled(if: RustToolchains.debian != nil, "Debian's rustc is not installed (apt-get install rustc)"))
  func debianRustc() throws {
    let rustc = try #require(RustToolchains.debian)
    let arguments = try buildWithPrintedFlags(rustc: rustc)
    #expect(!arguments.contains("linker-messages"), "\(arguments)")
    let text = try orderfile(["flags", "--language", "rust"], environment: ["RUSTC": rustc])
    let notes = text.standardOutput.split(separator: "\n").filter { $0.hasPrefix("# Note: ") }
    #expect(
      notes.count == 1 && notes[0].contains("rustc 1.63.0") && notes[0].contains("linker_messages"),
      "\(text.standardOutput)")
  }

  @Test(
    "the release flags keep -W linker-messages for rustup's rustc, which builds with them",
    .enabled(if: RustToolchains.rustup != nil, "rustup's rustc is not installed (~/.cargo/bin)"))
  func rustupRustc() throws {
    let arguments = try buildWithPrintedFlags(rustc: try #require(RustToolchains.rustup))
    #expect(arguments.suffix(2) == ["-W", "linker-messages"], "\(arguments)")
  }

  /// Compiles, links and runs a small program with `rustc` and the release build's RUSTFLAGS
  /// as `flags --language rust --json` prints them for that compiler (`RUSTC`, as cargo reads
  /// it); returns those flags.
  private func buildWithPrintedFlags(rustc: String) throws -> [String] {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let printed = try orderfile(["flags", "--language", "rust", "--json"], environment: ["RUSTC": rustc])
    #expect(printed.status == 0, "\(printed.standardError)")
    let json = try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any]
    let arguments = try #require(json?["arguments"] as? [String], "\(printed.standardOutput)")
    let source = directory.file("main.rs")
    try AtomicFile.write("fn main() { println!(\"ordered\"); }\n", to: source)
    let binary = directory.file("main")
    let compiled = try ProcessRunner.run(
      rustc, arguments + [source, "-o", binary], environment: Toolchain.environment)
    #expect(compiled.succeeded, "\(rustc) refused the printed flags: \(compiled.standardError)")
    if compiled.succeeded { #expect(try runChecked(binary, []).standardOutput == "ordered\n") }
    return arguments
  }

  @Test("--emit-relocs keeps the relocations of a Rust release build")
  func emitRelocs() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let order = directory.file("x.order")
    try AtomicFile.write("main\n", to: order)
    let result = try orderfile(["flags", "--language", "rust", "--release", order, "--emit-relocs", "--format", "lld"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.contains("-C link-arg=-Wl,--emit-relocs"), "\(result.standardOutput)")
  }

  @Test("--compiler is refused for Rust, which builds with rustc")
  func compilerRefused() throws {
    let result = try orderfile(["flags", "--language", "rust", "--instrument", "--compiler", "gcc"])
    #expect(result.status == 64)
    #expect(
      result.standardError.contains("--compiler") && result.standardError.contains("rustc"), "\(result.standardError)")
  }

  @Test("the instrumented build prints a target folder of its own and the host as --target")
  func instrumentedFolder() throws {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let result = try orderfile(
      ["flags", "--language", "rust", "--instrument"], environment: ["ORDERFILE_RUNTIME_DIR": runtime])
    #expect(result.status == 0, "\(result.standardError)")
    let command = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
    #expect(command.contains(" cargo build --release --target "), "\(command)")
    #expect(command.hasSuffix(" --target-dir target/instrumented"), "\(command)")
  }
}

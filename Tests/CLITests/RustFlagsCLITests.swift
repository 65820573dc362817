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

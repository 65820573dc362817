import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The runtime the tests run is the one `Scripts/build-runtime` makes for installation, not
/// a second build with flags of its own.
@Suite("Runtime build")
struct RuntimeBuildTests {
  @Test("the tests' shared runtime carries the soname the installed one has")
  func soname() throws {
    let library = try RuntimeBuilder.libraryDirectory() + "/libOrderfileRuntime.so"
    let headers = try runChecked(Toolchain.llvmBin + "/llvm-objdump", ["-p", library]).standardOutput
    let soname = headers.split(separator: "\n").first { $0.contains("SONAME") }
    #expect(soname?.split(separator: " ").last == "libOrderfileRuntime.so", "\(headers)")
  }

  @Test("every library the script makes is there, and a stale one is rebuilt rather than taken")
  func staleLibrariesAreNotTaken() throws {
    let built = try RuntimeBuilder.libraryDirectory()
    let directory = try TemporaryDirectory("runtime-build")
    defer { directory.remove() }
    for library in RuntimeBuilder.libraries {
      try FileManager.default.copyItem(atPath: built + "/" + library, toPath: directory.file(library))
    }
    #expect(RuntimeBuilder.isUpToDate(directory.path))
    // Older than the sources, as after an edit of the runtime since the last build.
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 0)], ofItemAtPath: directory.file("libOrderfileRuntime.a"))
    #expect(!RuntimeBuilder.isUpToDate(directory.path))
    try FileManager.default.removeItem(atPath: directory.file("libOrderfileRuntime.a"))
    #expect(!RuntimeBuilder.isUpToDate(directory.path))
  }
}

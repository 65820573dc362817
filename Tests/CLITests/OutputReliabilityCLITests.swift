import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The failure, on stderr, of a command that must end with exactly one error line.
private func singleErrorLine(_ result: ProcessResult) -> String {
  let lines = result.standardError.split(separator: "\n")
  return lines.count == 1 ? String(lines[0]) : "\(lines.count) lines: \(result.standardError)"
}

@Suite("Inputs that are wrong in their data, and outputs written as sets", .serialized)
struct OutputReliabilityCLITests {
  @Test("-o through a symbolic link replaces the file it points to, keeps the link, and keeps a 0600 mode")
  func outputThroughSymbolicLink() throws {
    let fixture = try TracedBinary(called: ["main", "alpha"])
    let real = fixture.directory.file("real.order")
    let link = fixture.directory.file("app.order")
    try AtomicFile.write("old\n", to: real)
    #expect(chmod(real, 0o600) == 0)
    #expect(symlink(real, link) == 0)
    let result = try orderfile(["generate", fixture.trace, "-o", link])
    #expect(result.status == 0, "\(result.standardError)")
    var info = stat()
    #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    #expect(stat(real, &info) == 0 && info.st_mode & 0o7777 == 0o600)
    #expect(try FileReading.text(atPath: real) == "main\nalpha\n")
  }
}

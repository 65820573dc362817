import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileRecording

/// What `ldd` lists for `path`: the libraries it resolves to a file ("libx.so => /path (0x…)").
private func lddLibraries(_ path: String) throws -> [String] {
  let listed = try runChecked("/usr/bin/ldd", [path])
  return listed.standardOutput.split(separator: "\n").compactMap { line in
    guard let arrow = line.range(of: "=> /") else { return nil }
    return line[line.index(before: arrow.upperBound)...].split(separator: " ").first.map(String.init)
  }
}

@Suite(
  "The libraries a recording plans: the program's own loader asked, as ldd asks it",
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "needs ldd to compare with"))
struct LinkedLibrariesTests {
  @Test("a program with a library of its own: the same libraries, in the same order, as ldd lists")
  func sameAsLdd() throws {
    let work = try TemporaryDirectory("orderfile-linked-libraries")
    let program = try PreMainProgram.build(in: work, instrumented: false)
    let expected = try lddLibraries(program)
    #expect(expected.contains(work.file("libpremain.so")), "\(expected)")
    #expect(LinkedLibraries.of(program) == expected)
  }

}

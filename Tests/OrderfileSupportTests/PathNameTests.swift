import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Path names: a directory and a base name, taken one way")
struct PathNameTests {
  @Test(
    "directory and base name, trailing and doubled slashes ignored, one-letter names included",
    arguments: [
      ("a", ".", "a"), ("a/", ".", "a"), ("/", "/", ""), ("", ".", ""), ("/lib64/", "/", "lib64"),
      ("/usr/lib/libc.so.6", "/usr/lib", "libc.so.6"), ("dir//file", "dir", "file"), ("./x//", ".", "x"),
    ])
  func parts(path: String, directory: String, base: String) {
    #expect(PathName.directory(of: path) == directory)
    #expect(PathName.base(of: path) == base)
  }

  @Test("no file under Sources takes a base name another way (NSString's lastPathComponent, a split at \"/\")")
  func oneWay() throws {
    let sources = PackagePaths.root + "/Sources"
    let spellings = ["lastPathComponent", "split(separator: \"/\").last", "components(separatedBy: \"/\").last"]
    var found: [String] = []
    for case let name as String in FileManager.default.enumerator(atPath: sources) ?? .init()
    where name.hasSuffix(".swift") {
      let text = try String(contentsOfFile: sources + "/" + name, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where spellings.contains(where: { line.contains($0) }) {
        found.append("Sources/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(found.isEmpty, "use PathName.base(of:):\n\(found.joined(separator: "\n"))")
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A real program's release build from its pinned Debian source (`Scripts/real-program`).
private struct RealProgram: Decodable {
  var executable: String
  var link: [String]
  var objects: [String]
  var libraries: [String]
  var launch: [String]

  /// Builds `name` into `directory`; nil when the source cannot be fetched here (exit 69).
  static func build(_ name: String, in directory: String) throws -> RealProgram? {
    let result = try ProcessRunner.run(PackagePaths.root + "/Scripts/real-program", [name, directory])
    if result.status == 69 { return nil }
    guard result.succeeded else {
      throw TestSupportError(
        "Scripts/real-program \(name) exited \(result.status): \(result.standardError.suffix(2000))")
    }
    return try JSONDecoder().decode(RealProgram.self, from: Data(result.standardOutput.utf8))
  }

  /// Links the release objects again, with `order` when given; returns lld's standard error.
  func relink(to output: String, order: String?) throws -> String {
    let ordering = order.map { ["-Wl,--symbol-ordering-file=" + $0] } ?? []
    return try runChecked(link[0], Array(link.dropFirst()) + ordering + objects + ["-o", output] + libraries)
      .standardError
  }
}

@Suite("Real programs ordered from their release binaries alone", .serialized)
struct RealProgramsNoRebuildTests {
  @Test(
    "Lua and SQLite: record the release binary, generate, relink with lld, verify, fewer launch pages",
    arguments: ["lua", "sqlite3"])
  func realProgram(name: String) throws {
    let work = try TemporaryDirectory("orderfile-real-\(name)")
    // Whether the source can be fetched is known only by trying: the test is then cancelled,
    // which the run reports as skipped with this reason, never as a pass.
    guard let program = try RealProgram.build(name, in: work.file("build")) else {
      try Test.cancel("the Debian source of \(name) cannot be fetched here (Scripts/real-program exited 69)")
    }
    let trace = work.file("launch.trace")
    let recorded = try orderfile(["record", "-q", "-o", trace, "--", program.executable] + program.launch)
    #expect(recorded.succeeded, "\(recorded.standardError)")
    #expect(recorded.standardOutput == (try runChecked(program.executable, program.launch).standardOutput))

    let order = work.file("\(name).order")
    let generated = try orderfile(["generate", trace, "-o", order, "--min-match", "1.0"])
    #expect(generated.succeeded, "\(generated.standardError)")
    let entries = try FileReading.text(atPath: order).split(separator: "\n")
    #expect(entries.count > 100, "\(name) runs more than a hundred functions at launch: \(entries.count)")
    #expect(entries.contains("main"))

    let ordered = work.file("\(name)-ordered")
    let warnings = try program.relink(to: ordered, order: order)
    #expect(!warnings.contains("warning"), "\(warnings)")
    let verified = try orderfile(["verify", "--binary", ordered, "--order", order])
    #expect(verified.succeeded, "\(verified.standardOutput)\(verified.standardError)")
    #expect(isContiguous(entries.map(String.init), in: try textSymbolsInAddressOrder(ordered)))

    let before = try json(orderfile(["estimate", "--trace", trace, "--binary", program.executable, "--json"]))
    let after = try json(orderfile(["estimate", "--trace", trace, "--binary", ordered, "--json"]))
    for pageSize in [4096, 16384] {
      let now = try #require(pages(before, pageSize, "current"))
      let relinked = try #require(pages(after, pageSize, "current"))
      let bound = try #require(pages(after, pageSize, "lowerBound"))
      #expect(relinked < now, "\(name), page size \(pageSize): \(now) before, \(relinked) after")
      #expect(relinked <= bound + 1, "\(name), page size \(pageSize): \(relinked) pages against a bound of \(bound)")
    }
  }
}

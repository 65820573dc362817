import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The shell block of the README's app walkthrough, between its markers.
private func appWalkthrough() throws -> String {
  let readme = try FileReading.text(atPath: PackagePaths.root + "/README.md")
  guard let begin = readme.range(of: "<!-- app walkthrough: begin -->\n```sh\n"),
    let end = readme.range(of: "```\n<!-- app walkthrough: end -->", range: begin.upperBound..<readme.endIndex)
  else { throw TestSupportError("README.md has no app walkthrough block between its markers") }
  return String(readme[begin.upperBound..<end.lowerBound])
}

@Suite(
  "The README's app walkthrough, run as it stands",
  .enabled(if: GtkDemo.unavailable == nil, Comment(rawValue: GtkDemo.unavailable ?? "")))
struct AppWalkthroughTests {
  @Test(
    "record returns by itself and leaves no process; the library's orderfile is written, applied and verified; the ordered library touches at most the lower bound + 3 pages, measured"
  )
  func walkthrough() throws {
    let work = try TemporaryDirectory("orderfile-app-walkthrough")
    defer { work.remove() }
    // The block runs from a checkout's root: its paths are relative to one.
    try FileManager.default.createSymbolicLink(
      atPath: work.file("Tests"), withDestinationPath: PackagePaths.root + "/Tests")
    let display = try VirtualDisplay()
    defer { display.stop() }
    var environment = display.environment
    environment["PATH"] =
      PathName.directory(of: PackagePaths.orderfileExecutable) + ":"
      + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    let script = "set -euo pipefail\n" + (try appWalkthrough())
    let started = Date()
    let result = try ProcessRunner.run(
      "timeout", ["600", "bash", "-c", script], environment: environment, currentDirectory: work.path)
    #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
    #expect(Date().timeIntervalSince(started) < 300)
    #expect(result.standardError.contains("it was ended"), "\(result.standardError)")
    for program in ["out/app/gtkdemo", "out/app-ordered/gtkdemo"] {
      #expect(BackgroundProcess.processes(running: work.file(program)).isEmpty, "\(program) outlived the block")
    }
    #expect(FileManager.default.fileExists(atPath: work.file("out/app.html")))

    // The ordered library's launch, as the block's last estimate measured it, in numbers.
    let estimate = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      [
        "estimate", "--trace", "out/app.trace", "--binary", "out/app-ordered/libgtkdemo.so.0", "--json", "--measure",
        "--until", GtkDemo.launchEnd, "--", "out/app-ordered/gtkdemo",
      ], environment: environment, currentDirectory: work.path)
    #expect(estimate.status == 0, "\(estimate.standardError)")
    let json = try JSONSerialization.jsonObject(with: Data(estimate.standardOutput.utf8)) as? [String: Any] ?? [:]
    let rows = json["pages"] as? [[String: Any]] ?? []
    let row = try #require(rows.first { $0["pageSize"] as? Int == 4096 }, "\(estimate.standardOutput)")
    let lowerBound = try #require(row["lowerBound"] as? Int, "\(row)")
    let measurement = try #require(json["measurement"] as? [String: Any], "\(estimate.standardOutput)")
    let measuredRows = measurement["rows"] as? [[String: Any]] ?? []
    let measured = try #require(
      measuredRows.first { $0["pageSize"] as? Int == 4096 }?["measured"] as? Int, "\(measurement)")
    #expect(measured <= lowerBound + 3, "the ordered library touches \(measured) pages, bound \(lowerBound)")
  }
}

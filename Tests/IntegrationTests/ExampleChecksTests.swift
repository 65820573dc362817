import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("The bundled example's own checks")
struct ExampleChecksTests {
  @Test("make check: the record codecs refuse malformed input and round-trip every record, under the sanitizers")
  func codecs() throws {
    let work = try TemporaryDirectory("orderfile-example-check")
    let result = try runChecked(
      ProcessRunner.resolve("make"),
      ["-s", "-C", PackagePaths.root + "/Examples/launchpad", "check", "BUILD_DIR=" + work.file("check")])
    #expect(
      result.standardOutput.contains("wire_test: all checks passed"), "\(result.standardOutput)\(result.standardError)")
  }
}

import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("merge --previous on a multi-threaded program")
struct MergeThreadTimingCLITests {
  @Test("recorded again with its worker thread's timing changed, unchanged code merges to the same orderfile")
  func unchangedTwice() throws {
    let work = try TemporaryDirectory("orderfile-merge-threads")
    let program = try buildBreakpointFixture(["warmup.c"], in: work, flags: ["-pthread"], output: "warmup")
    func record(_ day: String, workerAfter calls: [Int]) throws -> [String] {
      try calls.map { after in
        let trace = work.file("\(day)-\(after).trace")
        let result = try orderfile(["record", "-o", trace, "--", program], environment: ["WARM_AFTER": "\(after)"])
        #expect(result.status == 0, "\(result.standardError)")
        return trace
      }
    }
    func merge(_ traces: [String], to output: String, previous: String? = nil) throws -> String {
      let result = try orderfile(
        ["merge"] + traces + ["-o", work.file(output)] + (previous.map { ["--previous", work.file($0)] } ?? []))
      #expect(result.status == 0, "\(result.standardError)")
      return try FileReading.text(atPath: work.file(output))
    }
    // The first day the worker starts early; the second day late, as on a loaded machine.
    let first = try merge(try record("first", workerAfter: [1, 2, 3, 4, 5]), to: "first.order")
    let secondDay = try record("second", workerAfter: [12, 14, 16, 18, 19])
    #expect(try merge(secondDay, to: "second.order", previous: "first.order") == first)
    // Merged afresh the second day's order is another: keeping the first is --previous's doing.
    let afresh = try merge(secondDay, to: "afresh.order")
    #expect(afresh != first)
    #expect(afresh.contains("warm_0"), "\(afresh)")
  }
}

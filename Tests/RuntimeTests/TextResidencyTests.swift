import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The measurements taken when the launch window closes: the resident size of each
/// module's code (from /proc/self/smaps) and the process's page-fault counts.
@Suite("Text resident size and faults")
struct TextResidencyTests {
  @Test(
    "every module gets a page-aligned, non-zero resident text size, however the window closes",
    arguments: [
      ("phase_marks.c", [String: String]()),  // orderfile_startup_complete()
      ("call_tree.c", [:]),  // exit with the window open
      ("call_tree.c", ["ORDERFILE_MODE": "full"]),
      ("library_user.c", [:]),  // the executable and an instrumented library
    ])
  func measured(source: String, environment: [String: String]) throws {
    let directory = try TemporaryDirectory("runtime-text-rss")
    var extra: [String] = []
    if source == "library_user.c" {
      _ = try RuntimeFixture.library("fixture_library.c", named: "fixture", compiler: .gcc, in: directory)
      extra = ["-L", directory.path, "-lfixture", "-Wl,-rpath," + directory.path]
    }
    let program = try RuntimeFixture.program(source, compiler: .gcc, in: directory, extra: extra)
    let path = directory.file("rss.trace")
    var variables = environment
    variables["ORDERFILE_OUTPUT"] = path
    let run = try RuntimeFixture.run(program, environment: variables)
    #expect(run.succeeded, "\(run.standardError)")
    let trace = try TraceReader.read(path: path)
    #expect(!trace.modules.isEmpty)
    for module in trace.modules {
      let resident = try #require(module.textResidentBytes, "\(module.path) has no resident text size")
      #expect(resident > 0, "\(module.path)")
      #expect(resident % 4096 == 0, "\(module.path): \(resident)")
    }
    #expect((trace.header.minorFaults ?? 0) > 0)
    #expect(trace.header.majorFaults != nil)
  }
}

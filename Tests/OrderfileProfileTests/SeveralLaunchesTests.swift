import Foundation
import OrderfileProfile
import OrderfileSupport
import Testing
import _OrderfileTestSupport

private let millisecond: Int64 = 1_000_000

@Suite("orderfile report over several launches", .serialized)
struct SeveralLaunchesTests {
  @Test("ten recorded launches: each part's median, with the library's initializers at the median sleep")
  func tenLaunches() throws {
    let directory = try TemporaryDirectory("orderfile-premain-series")
    let program = try PreMainProgram.build(in: directory, instrumented: true)
    var traces: [String] = []
    var librarySleeps: [Int64] = []
    for launch in 0..<10 {
      let trace = directory.file("launch\(launch).trace")
      let recorded = try ProcessRunner.run(
        PackagePaths.orderfileExecutable, ["record", "-q", "-o", trace, "--", program, directory.file("sleeps")])
      #expect(recorded.succeeded, "\(recorded.standardError)")
      librarySleeps.append(Int64(try PreMainProgram.Sleeps(path: directory.file("sleeps")).library.count))
      traces.append(trace)
    }
    let text = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report"] + traces)
    #expect(text.succeeded, "\(text.standardError)")
    #expect(text.standardOutput.hasPrefix("10 launches of \(program); process start from 10 spawn\n"))
    let row = text.standardOutput.split(separator: "\n").first { $0.contains("initializers of libpremain.so") }
    #expect(row?.split(separator: " ").dropFirst(3).first == "10", "\(text.standardOutput)")

    let json = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", "--json"] + traces)
    let series = try JSONDecoder().decode(LaunchSeries.self, from: Data(json.standardOutput.utf8))
    let library = try #require(series.statistics.first { $0.name == "initializers of libpremain.so" })
    let sorted = librarySleeps.sorted()
    let medianSleep = (sorted[4] + sorted[5]) / 2
    #expect(abs(Int64(library.medianNanoseconds) - medianSleep) < millisecond, "\(library) against \(sorted)")
    #expect(
      series.statistics.contains { $0.name == "runtime start-up (overhead)" && $0.isOverhead && $0.launches == 10 })

    let refused = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, ["report", "--html", directory.file("x.html")] + traces)
    #expect(refused.status == 64)
    #expect(refused.standardError.contains("--html exports one launch: give one trace, not 10"))
  }
}

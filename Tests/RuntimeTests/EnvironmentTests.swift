import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The ORDERFILE_* variables: bad values warn once and never stop the program.
@Suite("Environment")
struct EnvironmentTests {
  /// One bad value per variable, with the start of the warning it must produce.
  static let badValues: [(variable: String, value: String)] = [
    ("ORDERFILE_CAPACITY", "lots"),
    ("ORDERFILE_CAPACITY", "12"),
    ("ORDERFILE_CAPACITY", "99999999999999999999999"),
    ("ORDERFILE_TIME_LIMIT_MS", "-5"),
    ("ORDERFILE_TIME_LIMIT_MS", "0"),
    ("ORDERFILE_TIME_LIMIT_MS", "1.5"),
    ("ORDERFILE_DISABLE", "yes"),
    ("ORDERFILE_VERBOSE", "2"),
    ("ORDERFILE_OUTPUT", "x-%q.trace"),
    ("ORDERFILE_OUTPUT", "x%"),
    ("ORDERFILE_MODE", "ful"),
    ("ORDERFILE_MARKS", "0"),
    ("ORDERFILE_MARKS", "65537"),
    ("ORDERFILE_EVENTS", "15"),
    ("ORDERFILE_EVENTS", "4194305"),
    ("ORDERFILE_EVENT_THREADS", "0"),
    ("ORDERFILE_EVENT_THREADS", "1025"),
  ]

  @Test("a bad value gets exactly one warning and the program runs on", arguments: badValues)
  func badValue(variable: String, value: String) throws {
    let directory = try TemporaryDirectory("runtime-env")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .gcc, in: directory)
    var environment = [variable: value]
    if variable != "ORDERFILE_OUTPUT" {
      environment["ORDERFILE_OUTPUT"] = directory.file("env.trace")
    }
    let run = try RuntimeFixture.run(
      program, ["exit"], environment: environment, currentDirectory: directory.path)
    #expect(run.succeeded)
    #expect(!run.standardOutput.isEmpty, "the program ran")
    let lines = run.standardError.split(separator: "\n")
    #expect(lines.count == 1, "\(run.standardError)")
    #expect(lines.first?.hasPrefix("orderfile: warning: ignoring \(variable)='\(value)': ") == true)
    #expect(lines.first?.contains("; using ") == true)
    // The default took over, so a trace was still written.
    let traces = try RuntimeFixture.traces(in: directory)
    #expect(traces.count == 1)
    if let trace = traces.first {
      #expect(try TraceReader.read(path: trace).header.isClosed)
    }
  }

  @Test("an unwritable output path: one warning, no trace, the program runs on")
  func unwritableOutput() throws {
    let directory = try TemporaryDirectory("runtime-unwritable")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .clang, in: directory)
    let run = try RuntimeFixture.run(
      program, ["exit"], environment: ["ORDERFILE_OUTPUT": directory.file("missing/dir/x.trace")])
    #expect(run.succeeded)
    #expect(RuntimeFixture.addresses(run.standardOutput).count == 5)
    #expect(
      run.standardError
        == "orderfile: warning: cannot create trace file '\(directory.file("missing/dir/x.trace"))': "
        + "No such file or directory; recording disabled\n")
  }

  @Test("ORDERFILE_DISABLE=1 writes nothing and says nothing")
  func disabled() throws {
    let directory = try TemporaryDirectory("runtime-disabled")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .gcc, in: directory)
    let run = try RuntimeFixture.run(
      program, ["exit"],
      environment: ["ORDERFILE_DISABLE": "1", "ORDERFILE_VERBOSE": "1", "ORDERFILE_OUTPUT": directory.file("x.trace")])
    #expect(run.succeeded)
    #expect(run.standardError.isEmpty)
    #expect(try RuntimeFixture.traces(in: directory).isEmpty)
  }

  @Test("ORDERFILE_VERBOSE=1 prints one summary line; %e and %p expand")
  func verboseAndPattern() throws {
    let directory = try TemporaryDirectory("runtime-verbose")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .gcc, in: directory)
    let run = try RuntimeFixture.run(
      program, ["exit"],
      environment: ["ORDERFILE_VERBOSE": "1", "ORDERFILE_OUTPUT": directory.file("%e.%p.100%%.trace")])
    #expect(run.succeeded)
    let traces = try RuntimeFixture.traces(in: directory)
    #expect(traces.count == 1)
    let path = try #require(traces.first)
    let trace = try TraceReader.read(path: path)
    let name = (program as NSString).lastPathComponent
    #expect(path == directory.file("\(name).\(trace.header.pid).100%.trace"))
    #expect(
      run.standardError
        == "orderfile: \(trace.records.count) first calls recorded, 0 dropped, trace '\(path)'\n")
  }
}

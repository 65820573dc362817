import Foundation
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The recorders `record` can use on Tests/Fixtures/breakpoints/wandering.c.
enum ChildRecorder: String, CaseIterable, Sendable, CustomStringConvertible {
  /// An instrumented build, through the runtime it links.
  case instrumented
  case inProcess = "in-process"
  case tracer
  var description: String { rawValue }
}

/// wandering.c's launcher, its children (each changes to `/` first, then forks a grandchild
/// there), the image one of them executes there, and a child that runs a system program.
private struct WanderingLauncher {
  let work: TemporaryDirectory
  let program: String

  init(_ recorder: ChildRecorder) throws {
    work = try TemporaryDirectory("orderfile-children")
    let source = PackagePaths.fixtures + "/breakpoints/wandering.c"
    program = work.file("wandering")
    if recorder == .instrumented {
      let runtime = try RuntimeBuilder.libraryDirectory()
      try runChecked(
        Toolchain.clang,
        [
          "-O1", "-g", "-finstrument-functions", source, "-o", program, "-L", runtime, "-lOrderfileRuntime",
          "-Wl,-rpath," + runtime,
        ])
    } else {
      try runChecked(Toolchain.clang, ["-O2", "-g", source, "-o", program])
    }
    try FileManager.default.createDirectory(atPath: work.file("tr"), withIntermediateDirectories: true)
  }

  /// `orderfile record` of the launcher, run in `work` with output `tr/launch.trace` and the
  /// runtime's directory named relative to `work` too.
  func record(_ recorder: ChildRecorder, systemProgram: [String] = []) throws -> ProcessResult {
    let runtime = try RuntimeBuilder.libraryDirectory()
    let link = work.file("runtime")
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: runtime)
    }
    let choice = recorder == .instrumented ? [] : ["--recorder", recorder.rawValue]
    return try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "-q"] + choice + ["-o", "tr/launch.trace", "--", program] + systemProgram,
      environment: ["ORDERFILE_RUNTIME_DIR": "runtime"], currentDirectory: work.path)
  }

  /// Every trace written into `tr`, read.
  func traces() throws -> [Trace] {
    try FileManager.default.contentsOfDirectory(atPath: work.file("tr")).sorted().map {
      try TraceReader.read(path: work.file("tr/" + $0))
    }
  }

  /// The names of the launcher's functions `trace` recorded.
  func functions(in trace: Trace) throws -> Set<String> {
    guard let module = trace.modules.first(where: { $0.path == program }) else { return [] }
    let symbolizer = try ELFSymbolizer(path: program)
    return Set(
      trace.records.filter { $0.module == module.index }.compactMap {
        symbolizer.function(containing: $0.address)?.name
      })
  }
}

@Suite("children that change directory, and children that run none of the program's code", .serialized)
struct ChildrenCLITests {
  @Test(
    "record -o with a relative path keeps the trace of every child, whatever directory it changes to",
    arguments: ChildRecorder.allCases)
  func relativeOutput(recorder: ChildRecorder) throws {
    let launcher = try WanderingLauncher(recorder)
    defer { launcher.work.remove() }
    let result = try launcher.record(recorder)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(!result.standardError.contains("cannot"), "\(result.standardError)")
    let traces = try launcher.traces()
    let functions = try traces.map(launcher.functions(in:))
    // 3 children, each with a grandchild, each running its own function in `/`; the image a
    // child executed there; the launcher's own trace.
    #expect(functions.filter { $0.contains("grandchild_work") }.count == 3, "\(functions)")
    #expect(functions.filter { $0.contains("child_work") }.count == 3, "\(functions)")
    #expect(functions.filter { $0.contains("second_image") }.count == 1, "\(functions)")
    #expect(functions.filter { $0.contains("parent_after") }.count == 1, "\(functions)")
    #expect(traces.count == 8, "\(traces.map(\.path))")
  }

  @Test(
    "the runtime alone, with a relative ORDERFILE_OUTPUT: a program a child executes in another directory writes there too"
  )
  func runtimeRelativeOutput() throws {
    let launcher = try WanderingLauncher(.instrumented)
    defer { launcher.work.remove() }
    let result = try ProcessRunner.run(
      launcher.program, [], environment: ["ORDERFILE_OUTPUT": "tr/launch.%p.trace"],
      currentDirectory: launcher.work.path)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError.isEmpty, "\(result.standardError)")
    let functions = try launcher.traces().map(launcher.functions(in:))
    #expect(functions.filter { $0.contains("second_image") }.count == 1, "\(functions)")
    #expect(functions.filter { $0.contains("grandchild_work") }.count == 3, "\(functions)")
  }

  @Test(
    "a child that runs only a system program (make) leaves no trace",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "needs /usr/bin/make (Debian make)"),
    arguments: [ChildRecorder.inProcess, .tracer])
  func systemProgramChild(recorder: ChildRecorder) throws {
    let launcher = try WanderingLauncher(recorder)
    defer { launcher.work.remove() }
    let result = try launcher.record(recorder, systemProgram: ["/usr/bin/make", "--version"])
    #expect(result.status == 0, "\(result.standardError)")
    let traces = try launcher.traces()
    let left = traces.filter { trace in trace.modules.contains { $0.path.hasPrefix("/usr/bin/") } }
    #expect(left.isEmpty, "traces of make: \(left.map(\.path))")
    #expect(traces.count == 8, "\(traces.map(\.path))")
  }

  @Test(
    "a launcher that runs a system program, then execs the program: the trace at -o is the program's, none is empty",
    arguments: [ChildRecorder.inProcess, .tracer])
  func launcherThenProgram(recorder: ChildRecorder) throws {
    let launcher = try WanderingLauncher(recorder)
    defer { launcher.work.remove() }
    let result = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      [
        "record", "-q", "--recorder", recorder.rawValue, "-o", "tr/launch.trace", "--", "/bin/sh", "-c",
        "cd / && /bin/true; exec \"$0\"", launcher.program,
      ],
      currentDirectory: launcher.work.path)
    #expect(result.status == 0, "\(result.standardError)")
    let main = try TraceReader.read(path: launcher.work.file("tr/launch.trace"))
    #expect(try launcher.functions(in: main).contains("parent_after"), "\(main.modules.map(\.path))")
    let empty = try launcher.traces().filter { $0.records.isEmpty }.map(\.path)
    #expect(empty.isEmpty, "\(empty)")
  }
}

@Suite("generate given traces without launch records")
struct TracesWithoutLaunchRecordsCLITests {
  @Test("a trace a system program left is skipped with a note; only such traces: an error naming them")
  func skipsTracesWithoutLaunchRecords() throws {
    let fixture = try TracedBinary(called: ["main", "alpha", "beta"])
    // What `record` of an earlier version kept for a child that ran only `sh`: no record.
    var empty = try TraceReader.read(path: fixture.trace)
    empty.records = []
    let emptyPath = fixture.directory.file("launch.trace.4242")
    try AtomicFile.write(TraceEncoder.encode(empty), to: emptyPath)
    let order = fixture.directory.file("app.order")

    let result = try orderfile(["generate", fixture.trace, emptyPath, "-o", order])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try FileReading.text(atPath: order).split(separator: "\n").contains("alpha"))
    let notes = result.standardError.split(separator: "\n").filter { $0.contains(emptyPath) }
    #expect(notes.count == 1 && notes[0].hasPrefix("orderfile: skipped 1 trace without launch records"), "\(notes)")

    let other = fixture.directory.file("launch.trace.4243")
    try AtomicFile.write(TraceEncoder.encode(empty), to: other)
    let none = try orderfile(["generate", emptyPath, other, "-o", fixture.directory.file("none.order")])
    #expect(none.status == 65, "\(none.standardError)")
    #expect(
      none.standardError == "orderfile: error: none of the 2 traces has launch records (\(emptyPath), \(other)): "
        + "each recorded process ran none of its modules' functions in its launch window\n",
      "\(none.standardError)")
    #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("none.order")))
  }
}

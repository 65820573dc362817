import Foundation
import OrderfileBuild
import OrderfileCommands
import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileProfile
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing

@Suite("Command output")
struct CommandOutputTests {
  @Test("notes, warnings and errors are one prefixed line each on stderr; documents go out as they are")
  func lines() {
    var output = CommandOutput()
    output.note("recorded 3 launch functions")
    output.print("main\n")
    output.warning("2 first calls were dropped")
    output.printToStandardError("report\n")
    output.fail("match rate 50.0% is below --min-match 90.0%", status: .gateFailed)
    #expect(output.standardOutput == "main\n")
    #expect(
      output.standardError
        == "orderfile: recorded 3 launch functions\norderfile: warning: 2 first calls were dropped\nreport\norderfile: error: match rate 50.0% is below --min-match 90.0%\n"
    )
    #expect(output.status == .gateFailed)
    #expect(
      output.writes.map(\.stream) == [.standardError, .standardOutput, .standardError, .standardError, .standardError])
  }

  @Test("a failed command is its error's message on one line and its error's status")
  func failure() {
    let output = CommandOutput(error: TraceError.unreadable(path: "a.trace", message: "no such file"))
    #expect(output.standardOutput.isEmpty)
    #expect(output.standardError == "orderfile: error: a.trace: cannot read trace: no such file\n")
    #expect(output.status == .noInput)
  }

  /// One error of each kind, with the status Docs/Reference.md promises for it.
  static let statuses: [(any Error, OrderfileSupport.ExitStatus)] = [
    (SupportError.cannotRead(path: "a", call: "open", message: "no such file"), .noInput),
    (SupportError.cannotWrite(path: "a", call: "open", message: "no such device"), .ioError),
    (TraceError.unreadable(path: "a", message: "gone"), .noInput),
    (TraceError.badMagic(path: "a", found: 0), .dataError),
    (SymbolizationError.cannotRead(path: "a", reason: "gone"), .noInput),
    (SymbolizationError.binaryNotFound(path: "a", buildID: nil, searched: []), .noInput),
    (SymbolizationError.notELF(path: "a", leadingBytes: ""), .dataError),
    (SymbolizationError.notAnAddress(line: 2, text: "x"), .dataError),
    (OrderingError.emptyTrace(trace: "a"), .dataError),
    (OrderingError.severalModules(names: ["a", "b"]), .dataError),
    (MergeError.badWeight(argument: "a:0", weight: "0"), .usage),
    (MergeError.weightsOverflow(weights: ["a:1e+308", "b:1e+308"]), .usage),
    (MergeError.previousNotDirectory(path: "a"), .usage),
    (MergeError.noSuchModule(name: "a", available: []), .dataError),
    (MergeError.noLaunchRecords(traces: ["a", "b"]), .dataError),
    (OrderingError.anotherProgram(binary: "a", module: "b", trace: "c"), .dataError),
    (LayoutError.emptyOrderfile(path: "a"), .dataError),
    (ProfileError.notFullMode(trace: "a"), .dataError),
    (BuildError.noOrderfile(path: "a"), .usage),
    (RecordingError.noTrace(program: "a", status: 0), .dataError),
    (RecordingError.scratch(message: "read-only"), .ioError),
    (RecordingError.runtimeNotLoaded(program: "a", status: 0, instrumented: ["a"]), .dataError),
    (OrderingError.releaseBinaryMatchesNoModule(path: "a", traces: ["t"], modules: []), .dataError),
    (OrderingError.binaryMatchesNoModule(binary: "b", trace: "t", modules: ["a"]), .dataError),
    (SupportError.launchFailed(program: "a", message: "no such file or directory", errno: ENOENT), .noInput),
    (SupportError.launchFailed(program: "a", message: "exec format error", errno: ENOEXEC), .dataError),
    (SupportError.launchFailed(program: "a", message: "pipe: too many open files", errno: EMFILE), .ioError),
    (BreakpointRecordingError.tracer(program: "a", message: "already traced", errno: EPERM), .unavailable),
    (BreakpointRecordingError.tracer(program: "a", message: "exec format error", errno: ENOEXEC), .dataError),
  ]

  @Test("every library error gives the exit status the reference promises")
  func exitStatuses() {
    for (error, status) in Self.statuses {
      #expect(CommandOutput(error: error).status == status, "\(error)")
    }
  }
}

import Foundation
import OrderfileSupport

/// Why an order could not be produced.
public enum OrderingError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// `--module` named no module of the trace.
  case noSuchModule(name: String, trace: String, available: [String])
  /// The trace recorded no launch functions at all; `instrumented`: the program's own
  /// runtime wrote it (`TraceHeader.isFromRuntime`), else `record` without a rebuild did.
  case emptyTrace(trace: String, instrumented: Bool = true)
  /// One orderfile was asked for (a file or stdout), but the selection covers several
  /// modules: the trace marks none as the main executable, or `--module` names a file name
  /// that several modules share. Bad input data, not a bad flag: the same command works on
  /// a trace that tells its modules apart.
  case severalModules(names: [String])
  /// A `--release-binary` is no recorded module: neither its build-id, nor its real file, nor
  /// any file name it goes by (its own, its real file's, its SONAME) is one of theirs.
  case releaseBinaryMatchesNoModule(path: String, traces: [String], modules: [String])
  /// A `--binary` shares no build-id, real file or file name with any module of the trace, no
  /// `--trace-module` says which one it is, and it lacks most of the main executable's launch
  /// functions: any figure would compare unrelated code.
  case binaryMatchesNoModule(binary: String, trace: String, modules: [String])
  /// A binary paired with a recorded module by name, with another build-id, that is another
  /// program: it shares (almost) none of the module's functions but the startup files'.
  case anotherProgram(binary: String, module: String, trace: String)
  /// The `lld-script` format names input sections, which only a link map of the recorded
  /// binary gives: the binary, and why its map was not used (nil when there is none).
  case noLinkMap(binary: String, problem: String?)

  public var errorDescription: String? {
    switch self {
    case .noLinkMap(let binary, let problem):
      let why = problem.map { ": \($0)" } ?? ": none at \(binary).map"
      return
        "\(binary): --format lld-script needs the link map of the recorded binary\(why); link it with -Wl,-Map=\(binary).map (swiftc: -Xlinker -Map=\(binary).map) and record it again"

    case .anotherProgram(let binary, let module, let trace):
      return
        "\(binary) is another program than \(module) recorded in \(trace): another build-id, and almost none of its functions but the startup files' are the module's; record this binary, or give a build of the recorded one"
    case .noSuchModule(let name, let trace, let available):
      return "\(trace): no module matches '\(name)'; the trace has: \(available.joined(separator: ", "))"
    case .emptyTrace(let trace, let instrumented):
      return instrumented
        ? "\(trace): the trace has no launch records: was the program compiled with -finstrument-functions and linked with the runtime?"
        : "\(trace): the trace has no launch records: the recorded process ran none of its modules' functions in its launch window (a system program the launch started leaves such a trace), or the window closed before its first call"
    case .severalModules(let names):
      return
        "\(names.count) modules selected (\(names.joined(separator: ", "))): use --module to pick one, or --output-dir for one orderfile each"
    case .releaseBinaryMatchesNoModule(let path, let traces, let modules):
      return
        "\(path): the release binary is no module recorded in \(traces.joined(separator: ", ")) (no build-id, real file or file name in common); recorded: \(modules.joined(separator: ", "))"
    case .binaryMatchesNoModule(let binary, let trace, let modules):
      return
        "\(binary): shares no build-id, real file or file name with any module of \(trace), nor most of its main executable's launch functions (recorded: \(modules.joined(separator: ", "))); name the module with --trace-module if it is one of them"
    }
  }

  public var exitStatus: ExitStatus {
    switch self {
    case .noSuchModule, .emptyTrace, .severalModules, .releaseBinaryMatchesNoModule, .binaryMatchesNoModule,
      .noLinkMap, .anotherProgram:
      return .dataError
    }
  }
}

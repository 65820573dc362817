import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

#if canImport(Glibc)
  import Glibc
#endif

/// Rewrites a release binary with LLVM BOLT: the orderfile's first-call order decides
/// where functions go, a launch profile from BOLT's own instrumentation decides which
/// blocks are cold and split out.
///
/// Steps: `llvm-bolt -instrument` makes a copy that counts branches; the launch runs with
/// that copy in the binary's place and writes a `.fdata` profile at exit; `llvm-bolt`
/// then rewrites the binary with the profile and the order. The binary must be linked
/// with `-Wl,--emit-relocs`, so BOLT may move whole functions. The result is written
/// beside the output under a temporary name and renamed into place.
public struct BoltOptimizer {
  public var binary: String
  public var order: String
  public var output: String
  /// The llvm-bolt to use; found on PATH when nil.
  public var boltPath: String?
  /// The launch to profile: its program (the binary) and arguments. Empty runs the
  /// binary without arguments.
  public var command: [String]
  /// Asks BOLT to put the new code in the old text's place (`-use-old-text`); BOLT falls
  /// back to a new segment when it does not fit, and the report says which happened.
  public var oldText: Bool
  /// Asks BOLT to rewrite the debug info for the new layout (`-update-debug-sections`)
  /// rather than drop it, which it does by default, with a warning.
  public var keepDebugInfo: Bool
  /// Ends the profiled launch this many milliseconds after its start, for a program that
  /// never exits by itself (an app, a server): the instrumented copy then writes its profile
  /// every second, and the program is ended once a profile written after the limit is there.
  public var timeLimitMilliseconds: Int?

  /// What BOLT is told besides the profile and the order: reorder blocks by ext-tsp,
  /// split every function with a profile, move every block the launch did not run (and
  /// landing pads) out of the hot part. `-lite=0` rewrites functions without a profile
  /// too: the instrumentation skips a function whose indirect branches BOLT cannot follow
  /// (Lua's `pmain`), and lite mode would then leave that launch function at its old
  /// address, a page away from the rest. `-no-huge-pages` aligns the new text to 4 KiB
  /// pages rather than 2 MiB: by default BOLT starts it 2 MiB into the file and its cold
  /// part 2 MiB after that, which made a 120 KB program 6.3 MB and puts the launch's code
  /// megabytes away from the rest of the file, for huge pages that nothing maps (that
  /// takes BOLT's `-hugify`).
  public static let splitOptions = [
    "-reorder-blocks=ext-tsp", "-split-functions", "-split-all-cold", "-split-eh", "-lite=0", "-no-huge-pages",
  ]

  /// BOLT's option that writes the new code over the old text when it fits there, rather
  /// than into a new segment after the rest of the file.
  public static let oldTextOption = "-use-old-text"

  /// BOLT's option that rewrites the DWARF sections for the new layout instead of dropping them.
  public static let keepDebugInfoOption = "-update-debug-sections"

  public init(
    binary: String, order: String, output: String, boltPath: String? = nil, command: [String] = [],
    oldText: Bool = false, keepDebugInfo: Bool = false, timeLimitMilliseconds: Int? = nil
  ) {
    self.keepDebugInfo = keepDebugInfo
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.binary = binary
    self.order = order
    self.output = output
    self.boltPath = boltPath
    self.command = command
    self.oldText = oldText
  }

  /// The options of the optimizing run besides the profile, the order and the output.
  var layoutOptions: [String] {
    Self.splitOptions + (oldText ? [Self.oldTextOption] : []) + (keepDebugInfo ? [Self.keepDebugInfoOption] : [])
  }

  public func run() throws -> BoltReport {
    if FileIdentity.same(binary, output) { throw BoltError.outputIsInput(path: output) }
    let tool = try BoltTool.locate(explicit: boltPath)
    let sections = Set(try BinaryLocator.sectionNames(ofFileAt: binary))
    if sections.contains(".bolt.org.text") { throw BoltError.alreadyRewritten(binary: binary) }
    guard sections.contains(".rela.text") else { throw BoltError.noRelocations(binary: binary) }
    let orderfile = try Orderfile.read(path: order)
    let functions = try ELFSymbolizer(path: binary).functions
    var functionOrder = BoltFunctionOrder(order: orderfile, functions: functions)
    guard !functionOrder.names.isEmpty else { throw BoltError.noOrderedFunction(order: order, binary: binary) }
    let launch = command.isEmpty ? [binary] : command
    guard FileIdentity.same(ProcessRunner.resolve(launch[0]), binary) else {
      throw BoltError.commandRunsOtherProgram(program: launch[0], binary: binary)
    }

    let scratch = try ScratchDirectory.beside(output)
    defer { scratch.remove() }
    // Beside the binary where it can be: a program finds its libraries and data relative
    // to itself ($ORIGIN in its rpath, /proc/self/exe).
    let instrumented =
      try (try? ReservedFile.beside(binary))
      ?? ReservedFile.beside(
        scratch.file(PathName.base(of: binary)))
    defer { instrumented.discard() }
    let profileStem = scratch.file("launch.fdata")
    let orderPath = scratch.file("function-order.txt")

    var clock = Stopwatch()
    let instrumentRun = try runBolt(
      tool,
      [
        binary, "-instrument", "-instrumentation-file=\(profileStem)", "-o", instrumented.path,
      ] + (timeLimitMilliseconds == nil ? ["-instrumentation-file-append-pid"] : Self.periodicProfileOptions),
      step: "instrument")
    try instrumented.setMode(0o755)
    let instrumentSeconds = clock.lap()
    let launchStatus = try Self.launch(
      instrumented.path, Array(launch.dropFirst()), name: launch[0],
      endWhen: timeLimitMilliseconds.map { ProfileWindow(limitMilliseconds: $0, stem: profileStem) })
    let launchSeconds = clock.lap()
    let profile = try collectProfile(stem: profileStem, tool: tool, status: launchStatus)
    functionOrder.follow(withFunctionsOf: try FileReading.text(atPath: profile))
    try AtomicFile.write(functionOrder.text, to: orderPath)

    let optimizeOptions =
      ["-reorder-functions=user", "-function-order=\(PathName.base(of: order))"] + layoutOptions
    let temporary = try ReservedFile.beside(output)
    var committed = false
    defer { if !committed { temporary.discard() } }
    let optimizeRun = try runBolt(
      tool,
      [binary, "-data=\(profile)", "-o", temporary.path, "-reorder-functions=user", "-function-order=\(orderPath)"]
        + layoutOptions,
      step: "optimize")
    let optimizeSeconds = clock.lap()
    try temporary.commit(mode: 0o755)
    committed = true
    // BOLT leaves a function it cannot rewrite (an indirect branch it cannot follow, a
    // function the compiler already split) in the original text, away from the others.
    let ordered = Set(functionOrder.names)
    let leftInPlace = try ELFSymbolizer(path: output).functions.filter {
      $0.sectionName == ".bolt.org.text" && $0.allNames.contains(where: ordered.contains)
    }.map(\.name)

    let summary = BoltSummary(
      log: instrumentRun.standardOutput + optimizeRun.standardOutput + optimizeRun.standardError)
    return BoltReport(
      binary: binary, output: output, order: order, bolt: tool.path, command: launch, launchStatus: launchStatus,
      orderedFunctions: functionOrder.names.count, absentFunctions: functionOrder.absent,
      coldPartsLeftToBolt: functionOrder.coldParts.count, profiledFunctions: summary.profiledFunctions,
      binaryFunctions: summary.binaryFunctions, hotBytes: summary.hotBytes, coldBytes: summary.coldBytes,
      inputBytes: Self.size(binary), outputBytes: Self.size(output),
      debugInfoBytes: .init(
        input: try BinaryLocator.debugInfoBytes(ofFileAt: binary),
        output: try BinaryLocator.debugInfoBytes(ofFileAt: output)),
      seconds: .init(instrument: instrumentSeconds, launch: launchSeconds, optimize: optimizeSeconds),
      optimizeOptions: optimizeOptions, warnings: summary.warnings,
      textInOldPlace: oldText ? !summary.oldTextFailed : nil, leftInPlace: leftInPlace,
      compilerSplitFunctions: Set(functions.compactMap { CloneName.coldPartParent(of: $0.name) }).count)
  }

  /// What the instrumented copy is told when the launch has a time limit: write the profile
  /// every second, never clearing the counts, so that each write holds the whole run so far.
  /// BOLT then writes one file, the stem itself: it refuses a profile per process with them.
  static let periodicProfileOptions = ["-instrumentation-sleep-time=1", "-instrumentation-no-counters-clear"]

  /// Runs the launch with this terminal's stdin and stderr; its stdout goes to stderr too,
  /// since stdout carries the report. Returns its status (128 + signal when killed; 0 when
  /// it was ended after its time limit, as `endWhen` asks).
  static func launch(_ executable: String, _ arguments: [String], name: String, endWhen window: ProfileWindow? = nil)
    throws -> Int32
  {
    let child = try ChildProcess.spawn(
      executable, arguments: [executable] + arguments, environment: ChildProcess.environment(adding: [:]),
      program: name, standardOutput: 2)
    let started = MonotonicClock.nanoseconds()
    let exit = ProgramEnding.wait(
      for: child.pid, afterLaunch: .end, launchOver: window.map { window in { window.isOver(since: started) } })
    return exit.endedAfterLaunch ? 0 : exit.status
  }

  private func runBolt(_ tool: BoltTool, _ arguments: [String], step: String) throws -> ProcessResult {
    let result = try ProcessRunner.run(tool.path, arguments)
    guard result.succeeded else {
      let last =
        (result.standardError + result.standardOutput).split(separator: "\n").last.map(String.init) ?? "no output"
      throw BoltError.boltFailed(step: step, status: result.status, message: last)
    }
    return result
  }

  /// The launch's profile: one file per process that ran the instrumented copy (a program
  /// that forks leaves several), merged into one when there are more.
  private func collectProfile(stem: String, tool: BoltTool, status: Int32) throws -> String {
    let (directory, base) = PathName.split(stem)
    let prefix = base + "."
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
      .filter { $0.hasPrefix(prefix) || $0 == base }.sorted().map { directory + "/" + $0 }
    guard let first = files.first else {
      throw BoltError.noProfile(program: command.first ?? binary, status: status)
    }
    guard files.count > 1, let merge = tool.mergeFdata else { return first }
    let merged = try ProcessRunner.run(merge, files)
    guard merged.succeeded else {
      throw BoltError.boltFailed(
        step: "merge the profiles", status: merged.status,
        message: merged.standardError.split(separator: "\n").last.map(String.init) ?? "no output")
    }
    let path = directory + "/merged.fdata"
    try AtomicFile.write(merged.standardOutput, to: path)
    return path
  }

  static func size(_ path: String) -> UInt64 {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
  }
}

/// Seconds between laps of a monotonic clock.
struct Stopwatch {
  private var last = MonotonicClock.nanoseconds()

  mutating func lap() -> Double {
    let now = MonotonicClock.nanoseconds()
    defer { last = now }
    return Double(now - last) / 1e9
  }
}

/// When a profiled launch with a time limit is over: the limit has passed and a profile
/// written after it is there (the instrumented copy writes one a second), or, failing that,
/// a few seconds more have passed.
struct ProfileWindow {
  var limitMilliseconds: Int
  /// The profile BOLT writes (`periodicProfileOptions`).
  var stem: String

  func isOver(since start: UInt64) -> Bool {
    let deadline = start + UInt64(limitMilliseconds) * 1_000_000
    let now = MonotonicClock.nanoseconds()
    guard now >= deadline else { return false }
    if now >= deadline + 5_000_000_000 { return true }
    // Modification times are the wall clock's: the deadline on it, from how long ago it was.
    let wallDeadline = Date().addingTimeInterval(-Double(now - deadline) / 1e9)
    let modified = (try? FileManager.default.attributesOfItem(atPath: stem))?[.modificationDate] as? Date
    return modified.map { $0 > wallDeadline } ?? false
  }
}

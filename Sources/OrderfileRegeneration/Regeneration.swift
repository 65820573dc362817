import Foundation
import OrderfileBuild
import OrderfileDiff
import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization

#if canImport(Glibc)
  import Glibc
#endif

/// Options of one regeneration beyond its configuration.
public struct RegenerationOptions: Sendable {
  /// Overrides the configuration's `runs`.
  public var runs: Int?
  /// Overrides where the Markdown body goes.
  public var report: String?
  /// Keep step times in the report (they make it differ from run to run).
  public var timings: Bool
  /// Compare with the orderfiles in this directory instead of the configured one (a merge
  /// request: the base branch's orderfiles).
  public var orderfileDirectory: String?
  /// Never replace the committed orderfiles: report and gate only.
  public var check: Bool
  /// The scratch directory instead of the configured `work` (the report goes there too
  /// unless `report` is given).
  public var workDirectory: String?
  /// The page probe (`libOrderfilePageProbe.so`) that counts the pages the first scenario
  /// really touches in the shipped and the relinked executable; nil measures nothing.
  public var pageProbe: String?
  /// The in-process recorder (`libOrderfileInProcess.so`), which records the launch's data
  /// when the configuration asks for it (`data: true`).
  public var inProcessLibrary: String?

  public init(
    runs: Int? = nil, report: String? = nil, timings: Bool = false, orderfileDirectory: String? = nil,
    check: Bool = false,
    workDirectory: String? = nil, pageProbe: String? = nil
  ) {
    self.workDirectory = workDirectory
    self.pageProbe = pageProbe
    self.runs = runs
    self.report = report
    self.timings = timings
    self.orderfileDirectory = orderfileDirectory
    self.check = check
  }
}

/// The daily job: build, record each scenario N times, merge against the committed
/// orderfiles, relink, verify, compare, gate, and replace the committed orderfiles when the
/// order changed.
///
/// It drives the same library types as the tool's commands (`TracerRecorder` or
/// `RuntimeRecorder`, `TraceMerger`, `LayoutVerifier`, `OrderDiff`, `LaunchEstimation`),
/// never the tool's own command line.
///
/// Pages: the shipped binary (built with the committed orderfiles) and the relinked one are
/// each estimated as they are laid out, with the first run's launch; neither inherits the
/// other's order. With `RegenerationOptions.pageProbe`, both are also run under the page
/// probe (`RegenerationReport.Module.measuredPages`): pages really touched, not simulated.
public struct Regeneration {
  public var configuration: RegenerationConfiguration
  public var options: RegenerationOptions

  public init(configuration: RegenerationConfiguration, options: RegenerationOptions = RegenerationOptions()) {
    var configuration = configuration
    if let directory = options.orderfileDirectory {
      configuration.orderfileDirectory = ConfigurationReader.absolute(
        directory, in: FileManager.default.currentDirectoryPath)
    }
    if let directory = options.workDirectory {
      let work = ConfigurationReader.absolute(directory, in: FileManager.default.currentDirectoryPath)
      if configuration.report == configuration.workDirectory + "/report.md" {
        configuration.report = work + "/report.md"
      }
      configuration.workDirectory = work
    }
    self.configuration = configuration
    self.options = options
  }

  /// The result: the report and the Markdown body, already written to `report`.
  public struct Result: Sendable {
    public var report: RegenerationReport
    public var markdown: String
  }

  static let stepNames = ["build", "record", "merge", "relink", "verify", "compare", "write"]

  public func run(progress: @escaping (RegenerationProgress) -> Void = { _ in }) throws -> Result {
    let configuration = self.configuration
    let runs = options.runs ?? configuration.runs
    let work = Work(root: configuration.workDirectory, format: configuration.format)
    // Before anything runs: a configuration that records data needs the in-process recorder.
    if configuration.recordsData { _ = try inProcessLibrary() }
    try work.prepare()
    var clock = StepClock(progress: progress, total: Self.stepNames.count)
    let started = Date()

    // 1. Build what ships, keep a copy of each binary (the relink replaces them), and the
    // instrumented build when that is what is recorded.
    let buildLog = try work.newLog("build")
    clock.start("building the release binaries (log: \(display(buildLog)))")
    try runCommand(configuration.build, step: "build", log: buildLog, newDirectory: work.new)
    var shipped: [String: String] = [:]
    for binary in configuration.binaries {
      guard FileManager.default.fileExists(atPath: binary.path) else {
        throw RegenerationError.binaryNotBuilt(module: binary.module, path: display(binary.path), step: "build")
      }
      // The relink replaces the binary the traces name; only its build-id then tells the
      // copy below (the code the traces recorded) from the relinked file.
      guard (try? BinaryLocator.buildID(ofFileAt: binary.path)) != nil else {
        throw RegenerationError.noBuildID(module: binary.module, path: display(binary.path))
      }
      let copy = work.shipped + "/" + binary.module
      try? FileManager.default.removeItem(atPath: copy)
      // The file itself: a SONAME link copied as a link would follow the relink.
      try FileManager.default.copyItem(atPath: ModuleFile.resolved(binary.path) ?? binary.path, toPath: copy)
      shipped[binary.module] = copy
    }
    var recordedBinaries: [String: String] = Dictionary(
      uniqueKeysWithValues: configuration.binaries.map { ($0.module, $0.path) })
    if case .instrumented(let build, let binaries, let compiler) = configuration.recording {
      // The flags `orderfile flags --instrument` prints, for the build command to use.
      let flags = try BuildFlags.forBuild(.instrumented(compiler))
      try runCommand(
        build, step: "instrumented build", log: work.log("instrumented-build"), newDirectory: work.new,
        extra: [
          "ORDERFILE_CFLAGS": BuildFlags.shellLine(flags.compile),
          "ORDERFILE_LDFLAGS": BuildFlags.shellLine(flags.link),
        ])
      for binary in binaries where !FileManager.default.fileExists(atPath: binary.path) {
        throw RegenerationError.binaryNotBuilt(
          module: binary.module, path: display(binary.path), step: "instrumented build")
      }
      recordedBinaries = Dictionary(uniqueKeysWithValues: binaries.map { ($0.module, $0.path) })
    }
    clock.finish()

    // 2. Record.
    clock.start("recording \(configuration.scenarios.count) scenarios \(runs) times each")
    var inputs: [WeightedTrace] = []
    for scenario in configuration.scenarios {
      for run in 1...runs {
        progress(.run(scenario: scenario.name, run: run, of: runs))
        let trace = work.traces + "/\(scenario.name)-\(run).trace"
        try record(
          scenario, run: run, to: trace, program: recordedBinaries[scenario.program] ?? scenario.program,
          log: work.log("scenarios"))
        inputs.append(WeightedTrace(path: trace, weight: scenario.weight))
      }
    }
    clock.finish()

    // 3. Merge against the committed orderfiles, checked against the shipped binaries.
    clock.start("merging \(inputs.count) runs against the committed orderfiles")
    let modules = configuration.binaries.map(\.module)
    let merger = TraceMerger(
      selection: .all, binaries: BinaryResolver(searchPaths: [work.shipped]),
      builder: OrderBuilder(placeCodeWithoutSymbol: configuration.format.placesCodeWithoutSymbol),
      previousOrder: { name in try committedOrder(name) },
      release: ReleaseBinaries(paths: modules.compactMap { shipped[$0] }))
    let merge = try merger.merge(inputs)
    // Each merged module is the configured binary it matches most firmly (`ModuleFile`): the
    // configuration may name a library by its SONAME link, a trace by its real file.
    let configured = configuration.binaries.map { ModuleFile(path: recordedBinaries[$0.module] ?? $0.path) }
    var taken = Set<String>()
    let merged: [(name: String, module: Merge.Module)] = merge.modules.compactMap { module in
      let recorded = ModuleFile(
        recordedPath: module.path, buildID: module.buildIDs.first.flatMap { BuildID(hex: $0)?.bytes } ?? [])
      guard let match = recorded.firmest(in: configured).first,
        taken.insert(configuration.binaries[match].module).inserted
      else { return nil }
      return (configuration.binaries[match].module, module)
    }
    guard !merged.isEmpty else { throw RegenerationError.nothingRecorded(modules: modules) }
    let regenerated = merged.map {
      OutputFile(
        path: $0.name + "." + configuration.format.fileExtension, text: $0.module.orderfile(configuration.format).text)
    }
    try AtomicFile.write(regenerated, intoDirectory: work.new)
    clock.finish()

    // 4. Relink with the regenerated orderfiles.
    let relinkLog = try work.newLog("relink")
    clock.start("relinking with the regenerated orderfiles (log: \(display(relinkLog)))")
    try runCommand(configuration.relink, step: "relink", log: relinkLog, newDirectory: work.new)
    clock.finish()

    // 5. Verify each relinked binary.
    clock.start("verifying the relinked binaries")
    var verifications: [String: Verification] = [:]
    for (name, _) in merged {
      guard let binary = configuration.binaries.first(where: { $0.module == name }) else { continue }
      guard FileManager.default.fileExists(atPath: binary.path) else {
        throw RegenerationError.binaryNotBuilt(module: name, path: display(binary.path), step: "relink")
      }
      verifications[name] = try verify(binary: binary.path, order: work.newOrderfile(name))
    }
    clock.finish()

    // 6. Compare with the committed orderfiles and the shipped layout; gate each module.
    clock.start("comparing with the committed orderfiles")
    let firstTrace = inputs[0].path
    var results: [RegenerationReport.Module] = []
    var failures: [RegenerationReport.GateFailure] = []
    for (name, module) in merged {
      let committedPath = work.committed(name, in: configuration.orderfileDirectory)
      let hadCommitted = FileManager.default.fileExists(atPath: committedPath)
      let committedNames = hadCommitted ? try Orderfile.read(path: committedPath).names : []
      let newNames = try Orderfile.read(path: work.newOrderfile(name)).names
      let diff = DiffReport(
        base: display(committedPath), head: "regenerated", diff: OrderDiff(base: committedNames, head: newNames))
      let committedText = hadCommitted ? try FileReading.text(atPath: committedPath) : nil
      let newText = try FileReading.text(atPath: work.newOrderfile(name))
      let changed = committedText != newText
      let kept =
        changed && hadCommitted && diff.summary.added == 0 && diff.summary.removed == 0
        && diff.summary.churn * 100 < configuration.ignoreChurnBelow.value
      let releasePath = configuration.binaries.first { $0.module == name }?.path ?? ""
      let pages = try comparePages(
        trace: firstTrace, module: module.path, shipped: shipped[name] ?? "", relinked: releasePath, work: work)
      let measured = try measuredPages(
        module: name, shipped: shipped, relinked: releasePath, simulated: pages, work: work)
      let cold = try coldLaunch(module: name, shipped: shipped, relinked: releasePath, work: work)
      let verification = verifications[name]
      let verified = RegenerationReport.Verified(
        entries: verification?.entries ?? 0, present: verification?.present ?? 0, inOrder: verification?.inOrder ?? 0,
        passed: verification?.passed ?? false)
      var decay: RegenerationReport.Decay?
      if hadCommitted, let copy = shipped[name] {
        let present = Set(try ELFSymbolizer.withSymbols(path: copy).functions.map(\.name))
        let gone = committedNames.filter { !present.contains($0) }
        decay = RegenerationReport.Decay(
          previousEntries: committedNames.count, goneEntries: gone.count,
          goneShare: committedNames.isEmpty ? 0 : Double(gone.count) / Double(committedNames.count),
          gone: Array(gone.prefix(10)))
      }
      // The page gate trusts what the binaries really touched where the probe measured it.
      failures += gateFailures(
        module: name, matchRate: module.matchRate, pages: measured ?? pages, pagesMeasured: measured != nil,
        cold: cold, verification: verification)
      results.append(
        RegenerationReport.Module(
          module: name, orderfile: display(committedPath), hadCommitted: hadCommitted, changed: changed && !kept,
          keptCommitted: kept, matchRate: module.matchRate, diff: diff, verified: verified, pages: pages,
          measuredPages: measured, coldLaunch: cold, decay: decay))
    }
    clock.finish()

    // 7. The report, then the committed orderfiles when they changed and every gate passed.
    clock.start("writing the report")
    let changed = results.contains { $0.changed }
    let outcome: RegenerationReport.Outcome =
      !failures.isEmpty ? .gateFailed : !changed ? .noChange : options.check ? .changed : .replaced
    let reportPath = options.report ?? configuration.report
    var report = RegenerationReport(
      outcome: outcome, configuration: display(configuration.file),
      orderfileDirectory: display(configuration.orderfileDirectory),
      recorded: {
        if case .instrumented = configuration.recording { return "instrumented" } else { return "release" }
      }(),
      runs: runs, scenarios: configuration.scenarios.map { .init(name: $0.name, weight: $0.weight, runs: runs) },
      modules: results, failedGates: failures, report: display(reportPath))
    if outcome == .replaced {
      try FileManager.default.createDirectory(
        atPath: configuration.orderfileDirectory, withIntermediateDirectories: true)
      try AtomicFile.write(
        try results.filter(\.changed).map {
          OutputFile(
            path: work.committed($0.module, in: configuration.orderfileDirectory),
            text: try FileReading.text(atPath: work.newOrderfile($0.module)))
        })
    }
    clock.finish()
    if options.timings {
      report.steps = zip(Self.stepNames, clock.seconds).map { .init(step: $0, seconds: $1) }
      report.wallSeconds = Date().timeIntervalSince(started)
    }
    let markdown = RegenerationMarkdownRenderer().render(report)
    try FileManager.default.createDirectory(
      atPath: PathName.directory(of: reportPath), withIntermediateDirectories: true)
    try AtomicFile.write(Array(markdown.utf8), to: reportPath)
    return Result(report: report, markdown: markdown)
  }

  /// The committed orderfile of a module, as the merge keeps its order stable against.
  func committedOrder(_ name: String) throws -> PreviousOrder? {
    let path = configuration.orderfileDirectory + "/" + name + "." + configuration.format.fileExtension
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return PreviousOrder(source: path, names: try Orderfile.read(path: path).names)
  }

  /// A relinked binary checked against its new orderfile, as `verify` checks it, to the
  /// `min-in-order` gate.
  func verify(binary: String, order: String) throws -> Verification {
    try LayoutVerifier(minInOrder: configuration.gates.minInOrder).verify(
      order: Orderfile.read(path: order), symbolizer: ELFSymbolizer.withSymbols(path: binary),
      linker: BinaryLocator.linker(ofFileAt: binary))
  }

  func gateFailures(
    module: String, matchRate: Double, pages: [RegenerationReport.Pages], pagesMeasured: Bool = false,
    cold: ColdLaunchComparison? = nil, verification: Verification?
  ) -> [RegenerationReport.GateFailure] {
    var failures: [RegenerationReport.GateFailure] = []
    if let minMatch = configuration.gates.minMatch, matchRate < minMatch.value {
      failures.append(
        .init(
          module: module, gate: .minMatch,
          message:
            "match rate \(TextFormatting.percent(matchRate)) is below \(Gate.minMatch.name) \(TextFormatting.percent(minMatch.value))"
        ))
    }
    if let limit = configuration.gates.maxPageGrowth {
      for row in pages {
        if let growth = row.pages.deltaPercent, growth > limit.value {
          failures.append(
            .init(
              module: module, gate: .maxPageGrowth,
              message:
                "\(pagesMeasured ? "measured" : "simulated") launch pages grow \(String(format: "%+.1f%%", growth)) at \(formatBytes(row.pageSize)) pages (\(row.pages.base) → \(row.pages.head)), more than \(Gate.maxPageGrowth.name) \(limit)"
            ))
          break
        }
      }
    }
    if let failure = cold?.gateFailure(spelling: \.name) {
      failures.append(.init(module: module, gate: .maxColdGrowth, message: failure))
    }
    if let verification, !verification.passed {
      failures.append(
        .init(
          module: module, gate: .minInOrder,
          message:
            "the relinked binary does not follow its orderfile: \(verification.present) of \(verification.entries) entries present, \(verification.inOrder) in order, below \(Gate.minInOrder.name) \(TextFormatting.percent(verification.minInOrder))"
        ))
    }
    return failures
  }

  /// The launch pages of the shipped and the relinked binary, each as laid out; `module` is
  /// the path the trace recorded.
  func comparePages(trace: String, module: String, shipped: String, relinked: String, work: Work) throws
    -> [RegenerationReport.Pages]
  {
    func estimate(_ binary: String) throws -> Estimate {
      try LaunchEstimation(tracePath: trace, binaryPath: binary, module: module, searchPaths: [work.shipped]).run()
    }
    let before = try estimate(shipped)
    let after = try estimate(relinked)
    return PageComparison.reportedPageSizes.compactMap { size in
      guard let base = before.pages.first(where: { $0.pageSize == size }),
        let head = after.pages.first(where: { $0.pageSize == size })
      else { return nil }
      return .init(pageSize: size, lowerBound: head.lowerBound, pages: .init(base: base.current, head: head.current))
    }
  }

  /// The pages the first scenario really touches in the shipped and in the relinked binary,
  /// counted by the page probe, with the simulated lower bound beside them. The scenario's
  /// own program is run in each version; a library of the configuration is measured in a
  /// run of the scenario's program (its shipped copy, then the relinked one, when it is a
  /// module too) with the loader pointed at the library's shipped copy, then at the relinked
  /// file (`PageProbe.measure(library:…)`). Nil when nothing of it can be measured.
  func measuredPages(
    module: String, shipped: [String: String], relinked: String, simulated: [RegenerationReport.Pages], work: Work
  ) throws -> [RegenerationReport.Pages]? {
    guard let library = options.pageProbe, let scenario = configuration.scenarios.first,
      let shippedModule = shipped[module]
    else { return nil }
    let probe = PageProbe(library: library, pageSizes: simulated.map(\.pageSize))
    let isProgram = scenario.program == module
    let relinkedProgram = configuration.binaries.first { $0.module == scenario.program }?.path ?? scenario.program
    func measure(_ binary: String, program: String) throws -> MeasuredModule? {
      // An --until function may be the program's (`main`) or the library's.
      var (addresses, unmatched) = try UntilFunction.entries(scenario.until, binary: binary)
      var untilModule = binary
      if !isProgram, !unmatched.isEmpty,
        let (others, missing) = try? UntilFunction.entries(scenario.until, binary: program),
        missing.count < unmatched.count
      {
        (addresses, unmatched, untilModule) = (others, missing, program)
      }
      let until = scenario.until.isEmpty ? nil : PageProbe.Until(module: untilModule, addresses: addresses)
      return try ProgramSurroundings(
        environment: scenario.environment, directory: configuration.projectDirectory, log: work.log("measure")
      ).with {
        if isProgram {
          return try probe.measure(
            program: binary, arguments: scenario.arguments, until: until,
            timeLimitMilliseconds: scenario.timeLimitMilliseconds
          ).module(for: binary)
        }
        return try probe.measure(
          library: binary, program: program, arguments: scenario.arguments, until: until,
          timeLimitMilliseconds: scenario.timeLimitMilliseconds
        ).module
      }
    }
    guard let before = try measure(shippedModule, program: shipped[scenario.program] ?? relinkedProgram),
      let after = try measure(relinked, program: relinkedProgram)
    else { return nil }
    return simulated.compactMap { row in
      guard let base = before.pages.first(where: { $0.pageSize == row.pageSize }),
        let head = after.pages.first(where: { $0.pageSize == row.pageSize })
      else { return nil }
      return .init(pageSize: row.pageSize, lowerBound: row.lowerBound, pages: .init(base: base.pages, head: head.pages))
    }
  }

  /// With `max-cold-growth`, a cold launch of the first scenario with the shipped copy of its
  /// program and with the relinked one (`ColdLaunchReferee`, one method for both); nil for
  /// a module that is not that program, or without the gate.
  func coldLaunch(module: String, shipped: [String: String], relinked: String, work: Work) throws
    -> ColdLaunchComparison?
  {
    guard let limit = configuration.gates.maxColdGrowth, let scenario = configuration.scenarios.first,
      scenario.program == module, let shippedCopy = shipped[module]
    else { return nil }
    let method = try ColdLaunchReferee().chosenMethod()
    let referee = ColdLaunchReferee(method: method == .perf ? .perf : .pageCache)
    func measure(_ binary: String) throws -> ColdModule {
      let launch = try ProgramSurroundings(
        environment: scenario.environment, directory: configuration.projectDirectory, log: work.log("measure")
      ).with {
        try referee.measure(
          program: binary, arguments: scenario.arguments, timeLimitMilliseconds: scenario.timeLimitMilliseconds)
      }
      guard let counted = launch.module(for: binary) else { throw LayoutError.notMeasured(binary: binary) }
      return counted
    }
    return ColdLaunchComparison(
      baseBinary: shippedCopy, base: try measure(shippedCopy), headBinary: relinked, head: try measure(relinked),
      method: method, maxColdGrowth: limit.value)
  }

  /// Runs a configured command with `/bin/sh` in the project directory; its output goes to
  /// `log`, which exists from before the command starts (the progress line names it).
  func runCommand(_ command: String, step: String, log: String, newDirectory: String, extra: [String: String] = [:])
    throws
  {
    var environment = extra
    environment["ORDERFILE_NEW_DIR"] = newDirectory
    environment["ORDERFILE_WORK"] = configuration.workDirectory
    environment["ORDERFILE_ORDER_DIR"] = configuration.orderfileDirectory
    let result = try ProcessRunner.run(
      "/bin/sh", ["-c", command], environment: environment, currentDirectory: configuration.projectDirectory,
      log: log)
    guard result.succeeded else {
      throw RegenerationError.commandFailed(step: step, status: result.status, log: display(log))
    }
  }

  /// Records one run of a scenario; the program's own output goes to `log`, so that stdout
  /// stays the report's.
  func record(_ scenario: RegenerationConfiguration.Scenario, run: Int, to trace: String, program: String, log: String)
    throws
  {
    let recorder: any Recorder
    var request = RecordingRequest(
      output: trace, program: program, arguments: scenario.arguments,
      timeLimitMilliseconds: scenario.timeLimitMilliseconds)
    switch configuration.recording {
    case .release where configuration.recordsData:
      recorder = InProcessRecorder(library: try inProcessLibrary())
      request.until = scenario.until
      request.recordsData = true
    case .release:
      recorder = TracerRecorder()
      request.until = scenario.until
    case .instrumented:
      recorder = RuntimeRecorder()
    }
    let recording = try ProgramSurroundings(
      environment: scenario.environment, directory: configuration.projectDirectory, log: log
    ).with {
      try recorder.record(request)
    }
    // A program ended at its launch's end (an app, a server) did not fail.
    guard recording.status == 0 || recording.endedAfterLaunch else {
      throw RegenerationError.scenarioFailed(
        scenario: scenario.name, run: run, status: recording.status, log: display(log))
    }
  }

  /// The in-process recorder that records the launch's data (`data: true`).
  func inProcessLibrary() throws -> String {
    guard let library = options.inProcessLibrary, FileManager.default.fileExists(atPath: library) else {
      throw RegenerationError.noInProcessRecorder(path: options.inProcessLibrary)
    }
    return library
  }

  /// A path inside the project relative to it, others as they are.
  func display(_ path: String) -> String {
    let directory =
      configuration.projectDirectory.hasSuffix("/")
      ? configuration.projectDirectory : configuration.projectDirectory + "/"
    return path.hasPrefix(directory) ? String(path.dropFirst(directory.count)) : path
  }
}

/// The work directory's layout.
struct Work {
  var root: String
  var format: OrderfileFormat
  var new: String { root + "/new" }
  var traces: String { root + "/traces" }
  var shipped: String { root + "/shipped" }
  func log(_ name: String) -> String { root + "/\(name).log" }

  /// The log of a step, created empty so that it exists once a progress line names it.
  func newLog(_ name: String) throws -> String {
    let path = log(name)
    try AtomicFile.write([], to: path)
    return path
  }
  func newOrderfile(_ module: String) -> String { new + "/" + module + "." + format.fileExtension }
  func committed(_ module: String, in directory: String) -> String {
    directory + "/" + module + "." + format.fileExtension
  }

  /// Empties what an earlier run left, so no stale trace or orderfile is taken for new.
  func prepare() throws {
    for directory in [new, traces, shipped] {
      try? FileManager.default.removeItem(atPath: directory)
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    try? FileManager.default.removeItem(atPath: log("scenarios"))
  }
}

/// Times the steps and tells the progress display.
struct StepClock {
  var progress: (RegenerationProgress) -> Void
  var total: Int
  var seconds: [Double] = []
  var started = Date()

  mutating func start(_ text: String) {
    started = Date()
    progress(.step(number: seconds.count + 1, of: total, text))
  }

  mutating func finish() {
    let elapsed = Date().timeIntervalSince(started)
    seconds.append(elapsed)
    progress(.finished(seconds: elapsed))
  }
}

/// What a recorded program runs with besides its arguments: variables added to the
/// environment, the project directory, and stdout and stderr sent to a log.
///
/// The recorders start the program with this process's environment, directory and
/// standard streams, so they are set here for the run and restored after it.
struct ProgramSurroundings {
  var environment: [String: String]
  var directory: String
  var log: String

  func with<T>(_ body: () throws -> T) throws -> T {
    let logFile = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard logFile >= 0 else { throw SupportError.writing("open", path: log) }
    let savedDirectory = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(directory) else {
      close(logFile)
      throw RegenerationError.commandFailed(step: "scenario (cd \(directory))", status: errno, log: log)
    }
    let saved = environment.keys.sorted().map { ($0, getenv($0).map { String(cString: $0) }) }
    for (name, value) in environment { setenv(name, value, 1) }
    let savedOutput = dup(1)
    let savedError = dup(2)
    dup2(logFile, 1)
    dup2(logFile, 2)
    close(logFile)
    defer {
      dup2(savedOutput, 1)
      dup2(savedError, 2)
      close(savedOutput)
      close(savedError)
      _ = FileManager.default.changeCurrentDirectoryPath(savedDirectory)
      for (name, value) in saved {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
      }
    }
    return try body()
  }
}

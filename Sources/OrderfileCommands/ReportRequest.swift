import OrderfileLayout
import OrderfileProfile
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// `orderfile report`: a launch's phases, first calls per thread and module, and exports.
public struct ReportRequest: Sendable {
  /// One launch to explain, or several of one program to summarize (each phase's median
  /// and spread; exports then do not apply).
  public var traces: [String]
  public var trace: String { traces.first ?? "" }
  /// Binaries and directories of binaries to match by build-id.
  public var searchPaths: [String]
  /// Text, Markdown or JSON.
  public var reportFormat: ReportFormat
  /// Write Chrome trace-event JSON here.
  public var chromeTrace: String?
  /// Write folded stacks here (full-mode traces).
  public var folded: String?
  /// Start each folded stack with its thread.
  public var perThread: Bool
  /// Write a self-contained HTML report here.
  public var html: String?
  /// The release binary whose page strip the HTML report includes.
  public var pagesBinary: String?
  /// Show a timing launch's times when one is beside the trace (`TimingLaunch`); false: the
  /// recording's own (`--own-times`).
  public var usesTimingLaunch: Bool
  /// Also run the program once cold and count what it read of its files (the executable,
  /// `pagesBinary` and its own libraries), by section.
  public var measureCold: ColdLaunchRequest?

  public init(
    traces: [String], searchPaths: [String] = [], reportFormat: ReportFormat = .text, chromeTrace: String? = nil,
    folded: String? = nil, perThread: Bool = false, html: String? = nil, pagesBinary: String? = nil,
    usesTimingLaunch: Bool = true, measureCold: ColdLaunchRequest? = nil
  ) {
    self.usesTimingLaunch = usesTimingLaunch
    self.traces = traces
    self.searchPaths = searchPaths
    self.reportFormat = reportFormat
    self.chromeTrace = chromeTrace
    self.folded = folded
    self.perThread = perThread
    self.html = html
    self.pagesBinary = pagesBinary
    self.measureCold = measureCold
  }

  public func run() throws -> CommandOutput {
    if traces.count > 1 { return try summarize() }
    var output = CommandOutput()
    let (trace, timing) = try Self.read(self.trace, timed: usesTimingLaunch, warningInto: &output)
    let symbols = SymbolTable(trace: trace, binaries: BinaryResolver(searchPaths: searchPaths))
    for module in symbols.unavailable { output.warning("not symbolized: \(module.module): \(module.reason)") }
    var profile = ProfileBuilder().build(trace: trace, symbols: symbols)
    profile.recorderOverhead?.timingLaunch = timing
    if let measureCold, let program = measureCold.command.first {
      profile.coldLaunch = try measureCold.measure(
        binary: pagesBinary ?? ProcessRunner.resolve(program), warningInto: &output)
    }

    // Every export is rendered before any is written, and all are written as one set.
    var files: [OutputFile] = []
    if let chromeTrace {
      files.append(
        OutputFile(path: chromeTrace, text: try ChromeTraceExporter(trace: trace, symbols: symbols).render(profile)))
    }
    if let folded {
      guard !trace.threads.isEmpty else { throw ProfileError.notFullMode(trace: self.trace) }
      files.append(
        OutputFile(path: folded, text: FoldedStacksExporter(symbols: symbols, perThread: perThread).render(trace)))
    }
    if let html {
      let pages = try pagesBinary.map {
        try LaunchEstimation(tracePath: self.trace, binaryPath: $0, searchPaths: searchPaths).run()
      }
      files.append(OutputFile(path: html, text: ProfileHTMLRenderer(pages: pages).render(profile)))
    }
    let renderer = reportFormat.renderer(text: ProfileTextRenderer(), markdown: ProfileMarkdownRenderer())
    let report = try renderer.render(profile)
    try AtomicFile.write(files)
    output.print(report)
    return output
  }

  /// Several launches: each phase's median and spread.
  func summarize() throws -> CommandOutput {
    var output = CommandOutput()
    let binaries = BinaryResolver(searchPaths: searchPaths)
    var profiles: [(trace: Trace, profile: StartupProfile)] = []
    var warned = Set<String>()
    for path in traces {
      let (trace, timing) = try Self.read(path, timed: usesTimingLaunch, warningInto: &output)
      let symbols = SymbolTable(trace: trace, binaries: binaries)
      for module in symbols.unavailable where warned.insert(module.module).inserted {
        output.warning("not symbolized: \(module.module): \(module.reason)")
      }
      var profile = ProfileBuilder().build(trace: trace, symbols: symbols)
      profile.recorderOverhead?.timingLaunch = timing
      profiles.append((trace, profile))
    }
    let series = try LaunchSeries(profiles: profiles)
    let renderer = reportFormat.renderer(text: LaunchSeriesTextRenderer(), markdown: LaunchSeriesMarkdownRenderer())
    output.print(try renderer.render(series))
    return output
  }

  /// The trace at `path`, its times moved onto its timing launch's when `record
  /// --timing-launch` made one (`TimingLaunch`) and `timed` asks for it, and that launch.
  static func read(_ path: String, timed: Bool, warningInto output: inout CommandOutput) throws -> (
    Trace, StartupProfile.TimingSource?
  ) {
    let trace = try TraceReader.read(path: path)
    guard timed, let timingPath = TimingLaunch.counterpart(of: path) else { return (trace, nil) }
    let timing: Trace
    do {
      timing = try TraceReader.read(path: timingPath)
    } catch {
      output.warning("\(timingPath): \(error); the recording's own times are shown")
      return (trace, nil)
    }
    guard TimingLaunch.belongs(timing, to: trace) else {
      output.warning(
        "\(timingPath): not the timing launch of \(path) (another program, or not run right after it); the recording's own times are shown"
      )
      return (trace, nil)
    }
    let warp = TimingWarp(recorded: trace, timing: timing)
    return (
      warp.apply(to: trace),
      .init(
        trace: timingPath, anchors: warp.calls, recorderNanoseconds: timing.header.recorderTime?.totalNanoseconds ?? 0)
    )
  }
}

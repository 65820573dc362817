import Foundation
import OrderfileBuild
import OrderfileLayout
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization

/// `estimate --measure`: run the shipped binary once under the page probe.
public struct MeasureRequest {
  /// The program and its arguments.
  public var command: [String]
  /// Functions whose first call ends the count (names as `record --until` takes them).
  public var until: [String]
  public var timeLimitMilliseconds: Int?
  /// The page probe library; by default the one beside the runtime (`RuntimeLocation`).
  public var probeLibrary: String?

  public init(command: [String], until: [String] = [], timeLimitMilliseconds: Int? = nil, probeLibrary: String? = nil) {
    self.command = command
    self.until = until
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.probeLibrary = probeLibrary
  }

  /// The probe beside the runtime the running tool finds.
  public static func defaultProbeLibrary() -> String {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      RuntimeLocation.find(executablePath: RuntimeLocation.runningTool, environment: environment)?.libraryDirectory
      ?? PathName.directory(of: RuntimeLocation.runningTool)
    return directory + "/" + PageProbe.libraryName
  }

  /// Runs the program; `--until` names are looked up in `binary`, the module the estimate is about.
  func measure(binary: String, pageSizes: [UInt64]) throws -> (MeasuredLaunch, unmatchedUntil: [String]) {
    let (addresses, unmatched) = try UntilFunction.entries(self.until, binary: binary)
    let until = self.until.isEmpty ? nil : PageProbe.Until(module: binary, addresses: addresses)
    let probe = PageProbe(library: probeLibrary ?? Self.defaultProbeLibrary(), pageSizes: pageSizes)
    let launch = try probe.measure(
      program: command[0], arguments: Array(command.dropFirst()), until: until,
      timeLimitMilliseconds: timeLimitMilliseconds)
    return (launch, unmatched)
  }
}

/// `orderfile estimate`: the pages a launch touches now and under an orderfile.
public struct EstimateRequest {
  public var estimation: LaunchEstimation
  /// Text, Markdown or JSON.
  public var reportFormat: ReportFormat
  /// Also draw the page strip into this SVG file.
  public var svg: String?
  /// Also write a self-contained HTML page here.
  public var html: String?
  /// Also measure the binary's pages with the page probe.
  public var measure: MeasureRequest?

  public init(
    estimation: LaunchEstimation, reportFormat: ReportFormat = .text, svg: String? = nil, html: String? = nil,
    measure: MeasureRequest? = nil
  ) {
    self.estimation = estimation
    self.measure = measure
    self.reportFormat = reportFormat
    self.svg = svg
    self.html = html
  }

  public func run() throws -> CommandOutput {
    var estimate = try estimation.run()
    var output = CommandOutput()
    if let measure {
      let (launch, unmatched) = try measure.measure(
        binary: estimation.binaryPath, pageSizes: estimation.estimator.pageSizes)
      for name in unmatched {
        output.warning("--until '\(name)' names no function of \(estimation.binaryPath); the pages were counted to exit")
      }
      if !measure.until.isEmpty && unmatched.count < measure.until.count && launch.end != .until {
        output.warning("the measured run never called an --until function; the pages were counted to its end")
      }
      let measurement = PageMeasurement(estimate: estimate, launch: launch)
      if measurement.module == nil {
        output.warning("the measured run never loaded \(estimation.binaryPath): nothing of it was measured")
      } else if !measurement.agrees {
        output.warning(
          "the estimate of \(estimation.binaryPath) differs from its measured pages by more than 3 pages and 3%: "
            + (measurement.causes.first ?? ""))
      }
      estimate.measurement = measurement
    }
    if let caution = estimate.reorderedBinary { output.warning(caution.message(binary: estimation.binaryPath)) }
    var files: [OutputFile] = []
    if let svg { files.append(OutputFile(path: svg, text: PageStripRenderer().render(estimate))) }
    if let html { files.append(OutputFile(path: html, text: EstimateHTMLRenderer().render(estimate))) }
    let renderer = reportFormat.renderer(text: EstimateTextRenderer(), markdown: EstimateMarkdownRenderer())
    let report = try renderer.render(estimate)
    try AtomicFile.write(files)
    output.print(report)
    return output
  }
}

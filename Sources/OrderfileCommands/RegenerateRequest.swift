import Foundation
import OrderfileRegeneration
import OrderfileSupport

/// `orderfile regenerate`: the daily job, from a configuration file.
public struct RegenerateRequest {
  /// The configuration file (YAML).
  public var configuration: String
  public var options: RegenerationOptions
  /// Text (a summary), Markdown (the merge-request body) or JSON.
  public var reportFormat: ReportFormat
  /// Told what each long step is doing; the executable shows it on stderr.
  public var progress: (RegenerationProgress) -> Void

  public init(
    configuration: String, options: RegenerationOptions = RegenerationOptions(), reportFormat: ReportFormat = .text,
    progress: @escaping (RegenerationProgress) -> Void = { _ in }
  ) {
    self.configuration = configuration
    self.options = options
    self.reportFormat = reportFormat
    self.progress = progress
  }

  public func run() throws -> CommandOutput {
    // The whole file is checked before any command runs.
    let configuration = try ConfigurationReader().read(path: configuration)
    var options = options
    if options.pageProbe == nil {
      // The probe installed beside the runtime measures pages when it is there.
      let probe = MeasureRequest.defaultProbeLibrary()
      if FileManager.default.fileExists(atPath: probe) { options.pageProbe = probe }
    }
    if options.inProcessLibrary == nil { options.inProcessLibrary = RecordRequest.defaultInProcessLibrary() }
    let result = try Regeneration(configuration: configuration, options: options).run(progress: progress)
    var output = CommandOutput()
    let renderer = reportFormat.renderer(text: RegenerationTextRenderer(), markdown: RegenerationMarkdownRenderer())
    output.print(try renderer.render(result.report))
    for failure in result.report.failedGates {
      output.note("gate \(failure.gate.rawValue) failed for module '\(failure.module)': \(failure.message)")
    }
    if result.report.outcome == .gateFailed {
      output.fail("a gate failed: the committed orderfiles were left as they are", status: .gateFailed)
    }
    return output
  }
}

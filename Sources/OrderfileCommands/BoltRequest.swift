import OrderfileBolt
import OrderfileSupport

/// `orderfile bolt`: rewrite a release binary with BOLT, in the orderfile's order, with
/// the blocks its launch never ran split out.
public struct BoltRequest {
  public var optimizer: BoltOptimizer
  /// Text or JSON.
  public var reportFormat: ReportFormat

  public init(optimizer: BoltOptimizer, reportFormat: ReportFormat = .text) {
    self.optimizer = optimizer
    self.reportFormat = reportFormat
  }

  public func run() throws -> CommandOutput {
    let report = try optimizer.run()
    var output = CommandOutput()
    output.print(try reportFormat.renderer(text: BoltTextRenderer()).render(report))
    for warning in Self.warnings(for: report) { output.warning(warning) }
    return output
  }

  /// What the user should know before shipping the rewritten binary, one line each.
  static func warnings(for report: BoltReport) -> [String] {
    var warnings: [String] = []
    if !report.absentFunctions.isEmpty {
      let shown = TextFormatting.list(report.absentFunctions.map { "'\($0)'" }, limit: 3)
      warnings.append(
        "\(report.absentFunctions.count) orderfile entries are not functions of \(report.binary) (\(shown)): inlined or removed in this build"
      )
    }
    if !report.leftInPlace.isEmpty {
      let shown = TextFormatting.list(report.leftInPlace.map { "'\($0)'" }, limit: 3)
      warnings.append(
        "llvm-bolt left \(report.leftInPlace.count) ordered functions at their old address, away from the others (\(shown)): it could not rewrite them"
      )
    }
    if report.compilerSplitFunctions > 0 {
      warnings.append(
        "the compiler already split \(report.compilerSplitFunctions) functions of \(report.binary) into cold parts, which BOLT handles poorly: build with -Xclang -fno-split-cold-code (clang that splits by default) or without -fsplit-machine-functions"
      )
    }
    if report.growth > BoltReport.notableGrowth {
      warnings.append(
        "\(report.output) is \(String(format: "%.1f", report.growth)) times the size of \(report.binary) (\(report.outputBytes) bytes against \(report.inputBytes)): BOLT keeps the old text and adds a new segment; check the size before shipping it"
      )
    }
    if report.launchStatus != 0 {
      warnings.append("the instrumented launch exited with status \(report.launchStatus); its profile was used")
    }
    return warnings
  }
}

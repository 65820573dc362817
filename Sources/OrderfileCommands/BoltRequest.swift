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
    if !report.absentFunctions.isEmpty {
      let shown = report.absentFunctions.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
      output.warning(
        "\(report.absentFunctions.count) orderfile entries are not functions of \(report.binary) (\(shown)\(report.absentFunctions.count > 3 ? ", …" : "")): inlined or removed in this build"
      )
    }
    if !report.leftInPlace.isEmpty {
      let shown = report.leftInPlace.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
      output.warning(
        "llvm-bolt left \(report.leftInPlace.count) ordered functions at their old address, away from the others (\(shown)\(report.leftInPlace.count > 3 ? ", …" : "")): it could not rewrite them"
      )
    }
    if report.compilerSplitFunctions > 0 {
      output.warning(
        "the compiler already split \(report.compilerSplitFunctions) functions of \(report.binary) into cold parts, which BOLT handles poorly: build with -Xclang -fno-split-cold-code (clang that splits by default) or without -fsplit-machine-functions"
      )
    }
    if report.growth > BoltReport.notableGrowth {
      output.warning(
        "\(report.output) is \(String(format: "%.1f", report.growth)) times the size of \(report.binary) (\(report.outputBytes) bytes against \(report.inputBytes)): BOLT keeps the old text and adds a new segment; check the size before shipping it"
      )
    }
    if report.launchStatus != 0 {
      output.warning("the instrumented launch exited with status \(report.launchStatus); its profile was used")
    }
    return output
  }
}

import OrderfileBolt
import OrderfileSupport

/// `orderfile bolt`: rewrite a release binary with BOLT, in the orderfile's order, with
/// the blocks its launch never ran split out.
public struct BoltRequest {
  /// The release binary, linked with `-Wl,--emit-relocs`.
  public var binary: String
  /// The orderfile that decides the function order.
  public var order: String
  /// Where the rewritten binary goes.
  public var output: String
  /// The llvm-bolt to run; nil finds llvm-bolt-22 or llvm-bolt on PATH.
  public var boltPath: String?
  /// The launch to profile: the program and its arguments (empty: the binary alone).
  public var command: [String]
  /// Ask BOLT to put the new code where the old text was, when it fits.
  public var oldText: Bool
  /// Carry the binary's debug info over into the output (BOLT drops it otherwise).
  public var keepDebugInfo: Bool
  /// Text or JSON.
  public var reportFormat: ReportFormat
  /// End the profiled launch this many milliseconds after its start (a program that never exits).
  public var timeLimitMilliseconds: Int?

  public init(
    binary: String, order: String, output: String, boltPath: String? = nil, command: [String] = [],
    oldText: Bool = false, keepDebugInfo: Bool = false, reportFormat: ReportFormat = .text,
    timeLimitMilliseconds: Int? = nil
  ) {
    self.keepDebugInfo = keepDebugInfo
    self.timeLimitMilliseconds = timeLimitMilliseconds
    self.binary = binary
    self.order = order
    self.output = output
    self.boltPath = boltPath
    self.command = command
    self.oldText = oldText
    self.reportFormat = reportFormat
  }

  /// The optimizer the request describes.
  var optimizer: BoltOptimizer {
    BoltOptimizer(
      binary: binary, order: order, output: output, boltPath: boltPath, command: command, oldText: oldText,
      keepDebugInfo: keepDebugInfo, timeLimitMilliseconds: timeLimitMilliseconds)
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

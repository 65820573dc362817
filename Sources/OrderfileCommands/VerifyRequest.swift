import OrderfileLayout
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// `orderfile verify`: does a relinked binary follow its orderfile?
public struct VerifyRequest: Sendable {
  public var binary: String
  public var order: String
  /// The least share of entries present, and in order, that passes.
  public var threshold: Rate
  /// Text or JSON.
  public var reportFormat: ReportFormat

  public init(binary: String, order: String, threshold: Rate = Rate(0.95), reportFormat: ReportFormat = .text) {
    self.binary = binary
    self.order = order
    self.threshold = threshold
    self.reportFormat = reportFormat
  }

  public func run() throws -> CommandOutput {
    let orderfile = try OrderfileNames.read(path: order)
    guard orderfile.entryLines > 0 else { throw LayoutError.emptyOrderfile(path: order) }
    let symbolizer = try ELFSymbolizer.withSymbols(path: binary)
    var verification = LayoutVerifier(threshold: threshold.value).verify(
      order: orderfile, symbolizer: symbolizer, linker: try BinaryLocator.linker(ofFileAt: binary))
    verification.fixedCode = try FixedCode.read(path: binary, launch: nil)
    var output = CommandOutput()
    if symbolizer.symbolSource == .dynamicSymbols {
      output.warning(
        "\(binary) has only dynamic symbols: its local functions cannot be found and count as missing; verify a build that keeps its .symtab"
      )
    }
    output.print(try reportFormat.renderer(text: VerificationTextRenderer()).render(verification))
    // The verdict and its reason are the report's last lines: no second line on stderr.
    if !verification.passed { output.end(with: .gateFailed) }
    return output
  }
}

import OrderfileBuild
import OrderfileLayout
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// `orderfile verify`: does a relinked binary follow its orderfile?
public struct VerifyRequest: Sendable {
  public var binary: String
  public var order: String
  /// The `min-in-order` gate: the least share of entries present, and in order, that passes.
  public var minInOrder: Rate
  /// Text or JSON.
  public var reportFormat: ReportFormat
  /// The root of the system the binary runs on, whose `libc.so.6` says which loader options
  /// apply (nil: this machine's, or the Debian cross sysroot of the binary's machine).
  public var sysroot: String?

  /// The gate when `--min-in-order` is not given.
  public static let defaultMinInOrder = LayoutVerifier.defaultMinInOrder

  public init(
    binary: String, order: String, minInOrder: Rate = VerifyRequest.defaultMinInOrder,
    reportFormat: ReportFormat = .text, sysroot: String? = nil
  ) {
    self.sysroot = sysroot
    self.binary = binary
    self.order = order
    self.minInOrder = minInOrder
    self.reportFormat = reportFormat
  }

  public func run() throws -> CommandOutput {
    let orderfile = try OrderfileNames.read(path: order)
    guard orderfile.entryLines > 0 else { throw LayoutError.emptyOrderfile(path: order) }
    let symbolizer = try ELFSymbolizer.withSymbols(path: binary)
    let linker = try BinaryLocator.linker(ofFileAt: binary)
    var verification = LayoutVerifier(minInOrder: minInOrder).verify(
      order: orderfile, symbolizer: symbolizer, linker: linker)
    verification.fixedCode = try FixedCode.read(path: binary, launch: nil)
    // The loader options `flags --release` adds, judged for the linker that wrote this binary
    // (its .comment; GNU ld names none) and the loader it runs on.
    let tables = try LoaderTables.read(path: binary)
    let linkerVersion = linker.flatMap { LinkerVersion(versionOutput: $0) }
    let loader = LoaderOptions(
      linker: linkerVersion, loader: TargetLoader.of(binary: binary, interpreter: tables.interpreter, sysroot: sysroot),
      anyLinker: linkerVersion == nil)
    verification.loaderTables = tables
    verification.missingLoaderOptions = loader.missing(in: tables).map {
      Verification.MissingLoaderOption(option: $0.option.rawValue, flags: $0.flags, reason: $0.reason)
    }
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

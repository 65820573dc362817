import OrderfileLayout

/// The pages the base and head binaries really touched at launch, counted by the page probe
/// (`diff --base-binary --head-binary -- ARGS`): measured, where `PageComparison` simulates.
public struct MeasuredComparison: Codable, Sendable, Equatable {
  public struct Row: Codable, Sendable, Equatable {
    public var pageSize: UInt64
    public var pages: PageComparison.Delta
  }

  public var baseBinary: String
  public var headBinary: String
  /// The arguments both ran with.
  public var arguments: [String]
  public var rows: [Row]

  /// - Parameters:
  ///   - base, head: each binary's run under the probe; the module counted is the binary itself.
  public init(baseBinary: String, base: MeasuredLaunch, headBinary: String, head: MeasuredLaunch, arguments: [String])
    throws
  {
    guard let baseModule = base.module(for: baseBinary) else { throw LayoutError.notMeasured(binary: baseBinary) }
    guard let headModule = head.module(for: headBinary) else { throw LayoutError.notMeasured(binary: headBinary) }
    self.init(baseBinary: baseBinary, base: baseModule, headBinary: headBinary, head: headModule, arguments: arguments)
  }

  /// - Parameters:
  ///   - base, head: the pages each binary's module really touched (a program, or a library
  ///     loaded by a run of a program).
  public init(
    baseBinary: String, base baseModule: MeasuredModule, headBinary: String, head headModule: MeasuredModule,
    arguments: [String]
  ) {
    self.baseBinary = baseBinary
    self.headBinary = headBinary
    self.arguments = arguments
    rows = baseModule.pages.compactMap { basePages in
      guard let headPages = headModule.pages.first(where: { $0.pageSize == basePages.pageSize }) else { return nil }
      return Row(pageSize: basePages.pageSize, pages: .init(base: basePages.pages, head: headPages.pages))
    }
  }
}

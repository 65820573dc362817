import OrderfileOrdering
import OrderfileSymbolization

/// Tells whether an order makes a module's launch worse than the binary's default layout,
/// by the same simulation `estimate` runs.
public struct LayoutRegressionCheck {
  public var estimator: Estimator

  public init(estimator: Estimator = Estimator()) {
    self.estimator = estimator
  }

  /// The page sizes at which `order`, applied to `binary`, touches more launch pages than
  /// the layout `binary` has now; nil when it is no worse at any, or better at some (then the
  /// page size of the device decides, and the report's tables show both).
  ///
  /// - Parameter binary: the binary the orderfile will be linked into, linked without one.
  /// Code without a symbol that the order leaves out runs all the same: it is counted where
  /// it stays.
  public func worseLayout(of order: ModuleOrder, in binary: any Symbolizer) -> WorseLayout? {
    worseLayout(launch: order.functions.map(\.symbol.name), in: binary, unplaced: order.withoutSymbol)
  }

  /// The same for launch functions `launch`, in the order the orderfile lists them, and
  /// launch code `unplaced` that it does not list.
  public func worseLayout(launch: [String], in binary: any Symbolizer, unplaced: [String] = []) -> WorseLayout? {
    let estimate = estimator.estimate(
      launch: launch + unplaced, functions: binary.functions, order: launch, binary: binary.path, trace: nil,
      orderPath: nil, measured: nil)
    return Self.worseLayout(estimate.pages, binary: binary.path)
  }

  /// The launch pages of `order` with its code without a symbol left where it is, and with
  /// that code placed after the other entries, at each page size.
  public func costOfCodeWithoutSymbol(_ order: ModuleOrder, in binary: any Symbolizer) -> [CodeWithoutSymbolCost] {
    costOfCodeWithoutSymbol(launch: order.functions.map(\.symbol.name), unplaced: order.withoutSymbol, in: binary)
  }

  /// The same for the entries `named` and the launch code `unplaced` an order leaves out.
  public func costOfCodeWithoutSymbol(launch named: [String], unplaced: [String], in binary: any Symbolizer)
    -> [CodeWithoutSymbolCost]
  {
    let launch = named + unplaced
    func pages(_ listed: [String]) -> [PageCounts] {
      estimator.estimate(
        launch: launch, functions: binary.functions, order: listed, binary: binary.path, trace: nil, orderPath: nil,
        measured: nil
      ).pages
    }
    return zip(pages(named), pages(launch)).map {
      CodeWithoutSymbolCost(pageSize: $0.pageSize, ordered: $0.ordered, placed: $1.ordered)
    }
  }

  /// The page sizes of `pages` at which the ordered layout loses; nil when it loses at none,
  /// or wins at some.
  public static func worseLayout(_ pages: [PageCounts], binary: String) -> WorseLayout? {
    guard !pages.contains(where: { $0.ordered < $0.current }) else { return nil }
    let worse = pages.filter { $0.ordered > $0.current }
      .map { WorseLayout.Pages(pageSize: $0.pageSize, defaultLayout: $0.current, ordered: $0.ordered) }
    return worse.isEmpty ? nil : WorseLayout(binary: binary, pages: worse)
  }
}

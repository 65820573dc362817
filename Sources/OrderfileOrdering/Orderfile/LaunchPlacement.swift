import OrderfileSymbolization

/// What one module's orderfile places, whichever command decided it: the launch functions in
/// order, the launch's data, and the function placed last. `generate` takes it from one
/// trace's order (`ModuleOrder.placement`), `merge` and `regenerate` from the runs merged;
/// each format then writes what it can name of it (`OrderfileFormat.render`), so that an
/// orderfile of one trace and of that trace merged alone are the same file.
public struct LaunchPlacement: Sendable, Equatable {
  /// The launch functions in order; code without a symbol among them only where the format
  /// places it (`OrderBuilder.placeCodeWithoutSymbol`).
  public var functions: [FunctionSymbol]
  /// The launch's read-only data in order (`LaunchData.pieces`).
  public var data: [LaunchDataPiece]
  /// The function an lld script puts behind every other (`ModuleOrder.unwoundMain`).
  public var last: FunctionSymbol?
  /// What an lld script moves besides (`ModuleOrder.scriptMoves`).
  public var moves: ScriptMoves

  public init(
    functions: [FunctionSymbol], data: [LaunchDataPiece] = [], last: FunctionSymbol? = nil,
    moves: ScriptMoves = ScriptMoves()
  ) {
    self.functions = functions
    self.data = data
    self.last = last
    self.moves = moves
  }

  /// The orderfile's text in `format`.
  public func text(_ format: OrderfileFormat) -> String {
    format.render(functions, data: data, last: last, moves: moves)
  }
}

extension ModuleOrder {
  /// What this order's orderfile places.
  public var placement: LaunchPlacement {
    LaunchPlacement(functions: functions.map(\.symbol), data: data.pieces, last: unwoundMain, moves: scriptMoves)
  }
}

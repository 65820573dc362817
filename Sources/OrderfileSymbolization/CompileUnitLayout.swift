/// Whether a binary's code still lies in link order, judged from its DWARF compile units.
///
/// DWARF lists the compile units in the linker's input order. A link without an orderfile
/// places each unit's code after the previous unit's, so walking the code by address the
/// unit numbers only go up, except where the linker starts another group of sections
/// (GNU ld puts `.text.unlikely`, `.text.exit`, `.text.startup` and `.text.hot` apart,
/// each in input order). An orderfile pulls launch functions of many units to the front in
/// first-call order, and the unit numbers go up and down there.
public struct CompileUnitLayout: Equatable, Sendable {
  /// Compile units with code.
  public var units: Int
  /// Runs of consecutive address ranges that belong to one unit.
  public var runs: Int
  /// Places, walking the code by address, where a run belongs to an earlier unit than the
  /// run before it.
  public var descents: Int

  /// More returns to earlier units than a link in input order makes: GNU ld's section
  /// groups account for at most five.
  public var looksReordered: Bool { descents >= 8 }
}

import OrderfileSymbolization

/// Predicts where a linker puts functions when it follows a symbol ordering file.
///
/// lld and gold place the ordered input sections first in the output section, in file
/// order, then everything else in its usual order. Each function is one section under
/// -ffunction-sections, so the simulation lays the ordered functions out from the start
/// of the binary's text, each at its alignment and with its size, and the rest after
/// them in their current relative order.
public struct LayoutSimulator {
  /// Alignment assumed for each function, in bytes: the largest power of two that divides
  /// its current address, capped here (x86-64 compilers align functions to 16).
  public var maximumAlignment: UInt64

  public init(maximumAlignment: UInt64 = 16) {
    self.maximumAlignment = maximumAlignment
  }

  /// The new address of every function of `functions` (by position) under `order`.
  ///
  /// - Parameters:
  ///   - functions: the binary's functions sorted by address.
  ///   - order: function names, first to place first. A name shared by several local
  ///     functions places all of them there, as the linkers do.
  public func layout(_ functions: [FunctionSymbol], order: [String]) -> [UInt64] {
    // Only the text output section is reordered; .init, .fini and .plt stay where they are
    // (the estimate counts what the launch runs of them there: FixedCode).
    let movable = functions.map { $0.size > 0 && ($0.sectionName.hasPrefix(".text") || $0.sectionName.isEmpty) }
    // The ordered block starts where the text section does, which the first function symbol
    // of .text marks even when it has no size (crtbegin's helpers carry none).
    let textStart = functions.filter { $0.sectionName == ".text" }.map(\.address).min()
    guard let base = textStart ?? functions.indices.filter({ movable[$0] }).map({ functions[$0].address }).min()
    else {
      return functions.map(\.address)
    }
    let byName = functions.positions(named: order) { movable[$0] }
    var placed = [Bool](repeating: false, count: functions.count)
    var sequence: [Int] = []
    for name in order {
      for index in byName[name] ?? [] where !placed[index] {
        placed[index] = true
        sequence.append(index)
      }
    }
    for index in functions.indices where !placed[index] && movable[index] {
      sequence.append(index)
    }
    var addresses = functions.map(\.address)
    var cursor = base
    for index in sequence {
      let alignment = self.alignment(of: functions[index])
      cursor = (cursor + alignment - 1) / alignment * alignment
      addresses[index] = cursor
      cursor += functions[index].size
    }
    return addresses
  }

  func alignment(of function: FunctionSymbol) -> UInt64 {
    guard function.address != 0 else { return maximumAlignment }
    let natural = UInt64(1) << UInt64(function.address.trailingZeroBitCount)
    return min(natural, maximumAlignment)
  }
}

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
    layout(functions, order: order, positions: functions.positions(named: order))
  }

  /// The same, with `positions` holding at least the positions of every name of `order`
  /// (`positions(named:)`, which `Estimator` shares between the launch and the order).
  func layout(_ functions: [FunctionSymbol], order: [String], positions: [String: [Int]]) -> [UInt64] {
    // Read in place, one field at a time: a quarter of a million functions copied whole
    // (each with its strings retained) cost more than the layout itself.
    var addresses = [UInt64]()
    var sizes = [UInt64]()
    var movable = [Bool]()
    addresses.reserveCapacity(functions.count)
    sizes.reserveCapacity(functions.count)
    movable.reserveCapacity(functions.count)
    // The ordered block starts where the text section does, which the first function symbol
    // of .text marks even when it has no size (crtbegin's helpers carry none).
    var textStart: UInt64?
    var firstMovable: UInt64?
    for index in functions.indices {
      let address = functions[index].address
      let size = functions[index].size
      let sectionName = functions[index].sectionName
      // Only the text output section is reordered; .init, .fini and .plt stay where they are
      // (the estimate counts what the launch runs of them there: FixedCode).
      let canMove = size > 0 && (sectionName.hasPrefix(".text") || sectionName.isEmpty)
      if sectionName == ".text" { textStart = min(textStart ?? address, address) }
      if canMove { firstMovable = min(firstMovable ?? address, address) }
      addresses.append(address)
      sizes.append(size)
      movable.append(canMove)
    }
    guard let base = textStart ?? firstMovable else { return addresses }
    var placed = [Bool](repeating: false, count: functions.count)
    var sequence: [Int] = []
    for name in order {
      for index in positions[name] ?? [] where movable[index] && !placed[index] {
        placed[index] = true
        sequence.append(index)
      }
    }
    for index in functions.indices where !placed[index] && movable[index] {
      sequence.append(index)
    }
    var newAddresses = addresses
    var cursor = base
    for index in sequence {
      let alignment = self.alignment(at: addresses[index])
      cursor = (cursor + alignment - 1) / alignment * alignment
      newAddresses[index] = cursor
      cursor += sizes[index]
    }
    return newAddresses
  }

  /// The alignment of a function at `address`.
  func alignment(at address: UInt64) -> UInt64 {
    guard address != 0 else { return maximumAlignment }
    let natural = UInt64(1) << UInt64(address.trailingZeroBitCount)
    return min(natural, maximumAlignment)
  }
}

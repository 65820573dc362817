import OrderfileOrdering
import OrderfileSymbolization

/// An orderfile turned into the list `llvm-bolt -function-order=FILE` reads.
///
/// BOLT names functions by their symbol names, the same linkage (mangled) names an lld
/// orderfile holds; it finds a local function `foo` under its own name `foo/1`. A gold
/// orderfile's section names and an ld64 file's leading underscores are undone by
/// `Orderfile`. Cold parts a compiler split out (`foo.cold`) are left out: BOLT treats
/// them as fragments of their function and decides itself which blocks are cold.
///
/// The other functions the profile saw run follow the orderfile's: BOLT's `user` order
/// otherwise interleaves them with the listed ones (it ranks both from 0), and the launch
/// functions would no longer sit together.
public struct BoltFunctionOrder: Sendable, Equatable {
  /// The functions to place first, in order, each present in the binary.
  public var names: [String]
  /// Orderfile entries the binary has no function of (inlined or removed in this build).
  public var absent: [String]
  /// Cold parts of functions named by the orderfile, left to BOLT.
  public var coldParts: [String]
  /// Functions the profile saw run that the orderfile does not name, in BOLT's names
  /// (`foo/1` for a local function), placed after the orderfile's.
  public var profiled: [String] = []

  /// Keeps the orderfile's names that name a function of `functions`, once each.
  public init(order: Orderfile, functions: [FunctionSymbol]) {
    var present = Set<String>()
    // BOLT knows functions by symbol: code without one (an lld script names it) is absent.
    for function in functions where function.hasSymbol { present.formUnion(function.allNames) }
    var names: [String] = []
    var absent: [String] = []
    var coldParts: [String] = []
    for name in order.names {
      if CloneName(name)?.isCold == true {
        coldParts.append(name)
      } else if present.contains(name) {
        names.append(name)
      } else {
        absent.append(name)
      }
    }
    self.names = names
    self.absent = absent
    self.coldParts = coldParts
  }

  /// Follows the orderfile's functions with the others a BOLT profile (`.fdata`) names,
  /// in the order it first names them.
  public mutating func follow(withFunctionsOf profile: String) {
    var seen = Set(names)
    profiled = []
    for line in profile.split(separator: "\n") {
      // A branch: "<is-symbol> <from-function> <offset> <is-symbol> <to-function> <offset> <mispredicts> <count>".
      let fields = line.split(separator: " ")
      guard fields.count == 8 else { continue }
      for field in [fields[1], fields[4]] {
        let name = String(field)
        // Calls into the PLT and unknown code are not functions BOLT can place.
        guard name != "[unknown]", !name.hasSuffix("@PLT") else { continue }
        let base = name.split(separator: "/").first.map(String.init) ?? name
        if !seen.contains(base), seen.insert(name).inserted { profiled.append(name) }
      }
    }
  }

  /// The file's text: one name a line.
  public var text: String { (names + profiled).map { $0 + "\n" }.joined() }
}

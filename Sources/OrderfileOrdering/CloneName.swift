/// How a symbol name relates to compiler-made copies of a function.
///
/// GCC splits and specializes functions into new local symbols named after
/// the original with a suffix: `foo.part.0` (partial inlining),
/// `foo.isra.0` (scalar replacement of aggregates), `foo.constprop.0`
/// (constant propagation), `foo.cold` (the cold split part) and, under LTO,
/// `foo.lto_priv.0`. Each is a real symbol in its own section under
/// `-ffunction-sections`, so lld and gold can place it by its full name.
///
/// LLVM BOLT names the cold fragments it splits off `foo.cold.0`, `foo.cold.1`: the same
/// suffix with a number, parsed here too.
public struct CloneName: Equatable, Sendable {
  /// The kinds of copies, by suffix.
  public enum Kind: String, Sendable, Codable {
    case part, isra, constprop, cold
    case ltoPrivate = "lto_priv"
    case localAlias = "localalias"
  }

  /// The original function's name (`foo` for `foo.isra.0`).
  public var base: String
  /// Every suffix found, outermost last (`foo.isra.0.cold` has isra then cold).
  public var kinds: [Kind]

  /// True for a cold split part: code the compiler expects never to run,
  /// which must stay out of the startup region.
  public var isCold: Bool { kinds.contains(.cold) }

  /// The function a cold part belongs to, by the name of its entry part: `foo` for
  /// `foo.cold` (gcc) and `foo.cold.0` (BOLT), `foo.part.0` for `foo.part.0.cold`; nil for a
  /// name that does not end in a cold suffix.
  public static func coldPartParent(of name: String) -> String? {
    // Asked of every symbol of a binary (250,000 in a compiler): parsing each name into
    // components was most of the time spent planning a recording.
    guard mentionsCold(name), CloneName(name)?.kinds.last == .cold else { return nil }
    var components = name.split(separator: ".", omittingEmptySubsequences: false)
    if let last = components.last, !last.isEmpty, last.allSatisfy(\.isNumber) { components.removeLast() }
    guard components.last == "cold" else { return nil }
    components.removeLast()
    return components.joined(separator: ".")
  }

  /// Whether `name` holds `.cold`, which every cold part's name does.
  private static func mentionsCold(_ name: String) -> Bool {
    let suffix = Array(".cold".utf8)
    return name.utf8.withContiguousStorageIfAvailable { bytes in
      guard bytes.count >= suffix.count else { return false }
      for start in 0...(bytes.count - suffix.count) where bytes[start] == UInt8(ascii: ".") {
        if bytes[start + 1] == UInt8(ascii: "c") && bytes[start + 1..<start + suffix.count].elementsEqual(suffix[1...])
        {
          return true
        }
      }
      return false
    } ?? name.contains(".cold")
  }

  /// Parses `name`; nil when it carries no known clone suffix.
  public init?(_ name: String) {
    // Most names have no dot at all; asked of every symbol of a large binary, splitting
    // each one into components would cost far more than the answer.
    let hasDot =
      name.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: ".")) }
      ?? name.utf8.contains(UInt8(ascii: "."))
    guard hasDot else { return nil }
    var components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard components.count > 1, !components[0].isEmpty else { return nil }
    var kinds: [Kind] = []
    var index = 1
    var baseEnd = components.count
    while index < components.count {
      let component = components[index]
      let kind: Kind?
      switch component {
      case "part": kind = .part
      case "isra": kind = .isra
      case "constprop": kind = .constprop
      case "cold": kind = .cold
      case "lto_priv": kind = .ltoPrivate
      case "localalias": kind = .localAlias
      default: kind = nil
      }
      if let kind {
        if kinds.isEmpty { baseEnd = index }
        kinds.append(kind)
        // A numeric component may follow any suffix.
        if index + 1 < components.count, components[index + 1].allSatisfy(\.isNumber),
          !components[index + 1].isEmpty
        {
          index += 1
        }
      } else if !kinds.isEmpty {
        // Something unknown after a clone suffix: not a clone name we understand.
        return nil
      }
      index += 1
    }
    guard !kinds.isEmpty else { return nil }
    components.removeSubrange(baseEnd...)
    self.base = components.joined(separator: ".")
    self.kinds = kinds
  }
}

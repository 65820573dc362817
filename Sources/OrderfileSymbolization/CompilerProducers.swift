/// What a binary's DWARF says about how its code was compiled, from the compile units'
/// `DW_AT_producer` strings.
///
/// gcc records its options there by default (`GNU C17 12.2.0 -mtune=generic -O2
/// -ffunction-sections`); clang only with `-grecord-command-line`; rustc names itself
/// (`clang LLVM (rustc version 1.95.0 …)`) and emits one section per function by default;
/// swiftc names itself (`Swift version 6.3.1 …`) and records no options.
public struct CompilerProducers: Sendable, Equatable {
  /// Whether every unit of the binary had one section per function.
  public enum FunctionSections: String, Sendable, Equatable, Codable {
    /// Every unit says so (its options list the flag, or rustc made it).
    case all
    /// Some unit recorded its options without the flag.
    case missing
    /// The producers do not say.
    case unknown
  }

  /// The language whose compiler made most of the code, for advice in its own flags.
  public enum Language: String, Sendable, Equatable, Codable {
    case c, rust, swift
  }

  public var producers: [String]

  public init(_ producers: [String]) {
    self.producers = producers
  }

  private static func isRust(_ producer: String) -> Bool { producer.contains("rustc version") }
  private static func isSwift(_ producer: String) -> Bool { producer.hasPrefix("Swift version") }
  private static func listsOptions(_ producer: String) -> Bool { producer.contains(" -") }

  public var functionSections: FunctionSections {
    // Units of assembly and of precompiled runtimes (crt files) say nothing of the
    // program's flags: only compilers of C-family code that list their options, and
    // rustc, count.
    let telling = producers.filter { Self.isRust($0) || (!Self.isSwift($0) && Self.listsOptions($0)) }
    guard !telling.isEmpty else { return .unknown }
    let missing = telling.filter { !Self.isRust($0) && !$0.contains("-ffunction-sections") }
    return missing.isEmpty ? .all : .missing
  }

  public var language: Language {
    if producers.contains(where: Self.isRust) { return .rust }
    if producers.contains(where: Self.isSwift) { return .swift }
    return .c
  }

  /// The flag that gives one section per function in `language`.
  public var functionSectionsFlag: String {
    switch language {
    case .c: return "-ffunction-sections"
    case .swift:
      return
        "-Xfrontend -function-sections (SwiftPM: -Xswiftc -Xfrontend -Xswiftc -function-sections, and -Xcc -ffunction-sections for C targets)"
    case .rust: return "nothing: rustc emits one section per function"
    }
  }

  /// How the orderfile reaches the linker in `language`'s build.
  public var orderingFlag: String {
    switch language {
    case .c: return "-Wl,--symbol-ordering-file=FILE"
    case .swift: return "-Xlinker --symbol-ordering-file=FILE"
    case .rust:
      return
        "-C link-arg=-Wl,--symbol-ordering-file=FILE after 'cargo rustc --release --bin NAME --' (orderfile flags --language rust --release FILE prints the line)"
    }
  }
}

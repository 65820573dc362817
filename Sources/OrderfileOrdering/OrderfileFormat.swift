/// The orderfile dialects the tool writes, one per linker family.
public enum OrderfileFormat: String, CaseIterable, Sendable, Codable {
  /// lld and mold `--symbol-ordering-file`: one symbol name a line.
  case lld
  /// gold `--section-ordering-file`: one input section name a line (`.text.<name>`).
  case gold
  /// Apple ld64 `-order_file`: one Mach-O symbol name a line (C names gain a leading underscore).
  case ld64

  /// The linker option that consumes the file, as given to the compiler driver.
  public func linkerFlag(path: String) -> String {
    switch self {
    case .lld: return "-Wl,--symbol-ordering-file=\(path)"
    case .gold: return "-Wl,--section-ordering-file=\(path)"
    case .ld64: return "-Wl,-order_file,\(path)"
    }
  }

  /// Compile flags the release build needs for the order to take effect.
  public var compileFlags: [String] {
    switch self {
    case .lld, .gold: return ["-ffunction-sections"]
    case .ld64: return []
    }
  }

  /// The linker selection flag for the compiler driver.
  public var linkerSelection: String? {
    switch self {
    case .lld: return "-fuse-ld=lld"
    case .gold: return "-fuse-ld=gold"
    case .ld64: return nil
    }
  }

  /// The usual file name suffix.
  public var fileExtension: String {
    switch self {
    case .lld: return "order"
    case .gold: return "sections"
    case .ld64: return "ld64.order"
    }
  }
}

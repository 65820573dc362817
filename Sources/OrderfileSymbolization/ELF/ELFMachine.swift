/// The machine an ELF file is built for (`e_machine` in its header), among those the tool
/// reads traces of: tells a program this machine cannot run (an arm64 build on the x86-64
/// CI host) before starting it.
public enum ELFMachine: UInt16, Sendable, CaseIterable {
  // swift-format-ignore: AlwaysUseLowerCamelCase
  // The architecture's own spelling, as in target triples.
  case x86_64 = 62  // EM_X86_64
  case aarch64 = 183  // EM_AARCH64

  /// The machine of the ELF file at `path` (through `ELFFile`, the one reader of ELF headers);
  /// nil when it is no ELF executable or library that can be read, or built for another machine.
  public static func of(fileAt path: String) -> ELFMachine? {
    (try? ELFFile(path: path))?.machine
  }

  /// The machine this tool runs on.
  public static var host: ELFMachine? {
    #if arch(x86_64)
      return .x86_64
    #elseif arch(arm64)
      return .aarch64
    #else
      return nil
    #endif
  }

  /// The name people read: "x86-64", "arm64".
  public var displayName: String { self == .aarch64 ? "arm64" : "x86-64" }
}

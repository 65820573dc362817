import Foundation
import OrderfileSupport

/// The page probe the product ships (`libOrderfilePageProbe.so`, built by
/// `Scripts/build-runtime`), run directly: a referee that shares no assumption with the
/// estimate (no symbols, no trace).
public enum TouchedPages {
  /// The 4 KiB pages of the main executable's code that one run of `binary` executes, as
  /// ELF virtual addresses (the probe's `page 0 ADDRESS` lines; format in page_probe.c).
  public static func ofMainExecutable(
    running binary: String, arguments: [String] = [], in work: TemporaryDirectory
  ) throws -> Set<UInt64> {
    Set(
      try probeLines(running: binary, arguments: arguments, in: work).compactMap { words -> UInt64? in
        words.count == 3 && words[0] == "page" && words[1] == "0" ? UInt64(words[2], radix: 16) : nil
      })
  }

  /// The paths of the modules the probe watched in one run of `binary` (its `module INDEX
  /// BASE PATH` lines): the main executable and the libraries it takes for the program's.
  public static func watchedModules(
    running binary: String, arguments: [String] = [], in work: TemporaryDirectory
  ) throws -> [String] {
    try probeLines(running: binary, arguments: arguments, in: work).compactMap { words in
      words.count == 4 && words[0] == "module" ? String(words[3]) : nil
    }
  }

  /// The probe's output for one run of `binary`, each line split at blanks.
  private static func probeLines(
    running binary: String, arguments: [String], in work: TemporaryDirectory
  ) throws -> [[Substring]] {
    let output = work.file("touched-\(PathName.base(of: binary))-\(UUID().uuidString.prefix(8))")
    try runChecked(
      binary, arguments, environment: ["LD_PRELOAD": PackagePaths.pageProbe, "ORDERFILE_PAGE_PROBE_OUTPUT": output])
    return try FileReading.text(atPath: output).split(separator: "\n").map { $0.split(separator: " ") }
  }
}

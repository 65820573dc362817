import Foundation
import OrderfileSupport

/// Finds the file a trace's module came from, trusting build-ids over paths.
public enum BinaryLocator {
  /// Finds the binary for a module.
  ///
  /// Looks, in order, at:
  /// 1. `recordedPath`, if it exists and its build-id matches (or no build-id was recorded);
  /// 2. for each entry of `searchDirectories`: the entry itself when it is a file; otherwise
  ///    `.build-id/xx/rest` and `.build-id/xx/rest.debug` below it, then the file named like
  ///    `recordedPath` in it, then every other regular file directly in it (not recursively).
  ///
  /// Without a recorded build-id, a search directory matches by file name only.
  ///
  /// - Returns: the path of the first file whose build-id matches.
  /// - Throws: `.buildIDMismatch` when `recordedPath` exists with another build-id and nothing
  ///   else matched (a rebuilt binary is never used silently); `.binaryNotFound` listing
  ///   every place looked at otherwise.
  public static func locate(
    recordedPath: String, buildID: BuildID?, searchDirectories: [String]
  ) throws -> String {
    var searched = [String]()
    // Set when the recorded path holds an ELF file of another build.
    var recordedIsOtherBuild = false
    var recordedBuildID: BuildID?
    if isRegularFile(recordedPath) {
      searched.append(recordedPath)
      if let file = try? ELFFile(path: recordedPath) {
        let found = try? file.buildID()
        if buildID == nil || found == buildID { return recordedPath }
        recordedIsOtherBuild = true
        recordedBuildID = found
      }
    }
    let baseName = PathName.base(of: recordedPath)
    for entry in searchDirectories {
      searched.append(entry)
      for candidate in candidates(in: entry, buildID: buildID, baseName: baseName) {
        if let buildID {
          if (try? self.buildID(ofFileAt: candidate)) == buildID { return candidate }
        } else if PathName.base(of: candidate) == baseName, isELF(candidate) {
          return candidate
        }
      }
    }
    if let buildID, recordedIsOtherBuild {
      throw SymbolizationError.buildIDMismatch(
        path: recordedPath, expected: buildID, found: recordedBuildID)
    }
    throw SymbolizationError.binaryNotFound(
      path: recordedPath, buildID: buildID, searched: searched)
  }

  /// The linker that signed the file, e.g. "LLD 21.0.0" or "mold 1.10.1" from `.comment`, or
  /// "GNU gold 1.16" from gold's version note; nil for GNU ld, which leaves no mark.
  public static func linker(ofFileAt path: String) throws -> String? {
    let file = try ELFFile(path: path)
    for comment in file.commentStrings() {
      if comment.hasPrefix("Linker: ") {
        return comment.dropFirst("Linker: ".count).components(separatedBy: " (").first
      }
      if comment.hasPrefix("mold ") { return comment.components(separatedBy: " (").first }
    }
    return file.goldVersion().map { "GNU " + $0 }
  }

  /// The names of the ELF file's sections (`.rela.text` tells a link with `--emit-relocs`).
  public static func sectionNames(ofFileAt path: String) throws -> [String] {
    try ELFFile(path: path).sectionNames()
  }

  /// The bytes of the ELF file's DWARF sections (`.debug_*`, `.zdebug_*`): what a rewrite that
  /// does not carry debug info over drops.
  public static func debugInfoBytes(ofFileAt path: String) throws -> UInt64 {
    var bytes: UInt64 = 0
    try ELFFile(path: path).forEachSection { header, _, name in
      if name.hasPrefix(".debug_") || name.hasPrefix(".zdebug_") { bytes += header.sh_size }
    }
    return bytes
  }

  /// Reads just the GNU build-id note of an ELF file (no symbols, no DWARF).
  ///
  /// - Returns: nil when the file has no build-id note.
  /// - Throws: `SymbolizationError` when the file is unreadable, not ELF or damaged.
  public static func buildID(ofFileAt path: String) throws -> BuildID? {
    try ELFFile(path: path).buildID()
  }

  /// Files of one search entry, most likely first.
  static func candidates(in entry: String, buildID: BuildID?, baseName: String) -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: entry, isDirectory: &isDirectory) else {
      return []
    }
    guard isDirectory.boolValue else { return [entry] }
    var result = [String]()
    if let stem = buildID?.pathInBuildIDTree(under: entry) {
      result += [stem, stem + ".debug"].filter(isRegularFile)
    }
    let named = entry + "/" + baseName
    if !baseName.isEmpty && isRegularFile(named) { result.append(named) }
    if buildID != nil {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: entry)) ?? []
      for name in names.sorted() where name != baseName {
        let path = entry + "/" + name
        if isRegularFile(path) { result.append(path) }
      }
    }
    return result
  }

  private static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }

  private static func isELF(_ path: String) -> Bool {
    (try? ELFFile(path: path)) != nil
  }

  /// Whether the binary at `path` calls a recording hook: `-finstrument-functions` or
  /// SanitizerCoverage's `trace-pc-guard`, whose calls the runtime answers.
  public static func isInstrumented(fileAt path: String) throws -> Bool {
    try ELFFile(path: path).mentionsSymbol(Self.instrumentationHooks)
  }

  static let instrumentationHooks: Set<String> = [
    "__cyg_profile_func_enter", "__cyg_profile_func_enter_bare", "__sanitizer_cov_trace_pc_guard",
  ]
}

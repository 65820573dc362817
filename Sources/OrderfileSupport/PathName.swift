import Foundation

/// Splitting a path into its directory and its last component.
///
/// Not `NSString.deletingLastPathComponent`: Foundation traps (SIGILL) on some one-letter
/// relative paths such as `a` or `a/`, and an output path is user input.
public enum PathName {
  /// The directory (`.` for a bare name, `/` at the root) and the last component of
  /// `path`, trailing slashes ignored.
  public static func split(_ path: String) -> (directory: String, base: String) {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
    var directory = trimmed[..<slash]
    while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
    return (directory.isEmpty ? "/" : String(directory), String(trimmed[trimmed.index(after: slash)...]))
  }

  /// The directory part of `path`: `.` for a bare name.
  public static func directory(of path: String) -> String { split(path).directory }

  /// The last component of `path` (a file's base name), trailing slashes ignored: the one
  /// way every module takes it.
  public static func base(of path: String) -> String { split(path).base }

  /// `path` as it is when absolute, else inside `directory` (the current one by default):
  /// what a program that changes directory, or a file read from elsewhere, still finds.
  public static func absolute(_ path: String, in directory: String = FileManager.default.currentDirectoryPath)
    -> String
  {
    path.hasPrefix("/") ? path : directory + "/" + path
  }
}

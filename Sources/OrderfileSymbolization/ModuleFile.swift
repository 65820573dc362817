import CLibdw
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One name of a module file, and what makes it that module: the file it resolves to, its
/// SONAME and its build-id.
///
/// A module's identity is its build-id and its real file, never the spelling of a path: the
/// loader opens a library through its SONAME link (`libapp.so.0`), the kernel maps the real
/// file (`libapp.so.0.0.0`), an installed copy lies in another folder, and traces have named
/// a library either way. Every command that pairs a binary the user gives with a module a
/// trace recorded, or a library with a module the user names, does it here (`match`,
/// `firmest`), so that each accepts the SONAME link, any other link, the real path and a copy.
public struct ModuleFile: Sendable, Equatable {
  /// How firmly two names are one module, weakest first.
  public enum Match: Int, Comparable, Sendable {
    /// A file name in common (the path's, the real file's or the SONAME): another build of
    /// the module, or the module itself where neither file can be read.
    case fileName
    /// The same file once every link is resolved.
    case realFile
    /// The same build-id: the same link, wherever the copy lies.
    case buildID

    public static func < (lhs: Match, rhs: Match) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// The path as given or recorded.
  public var path: String
  /// `path` with every link resolved; nil when no file is there.
  public var realPath: String?
  public var buildID: BuildID?
  /// `DT_SONAME`, the name the library is linked and loaded by; nil for an executable.
  public var soname: String?

  public init(path: String, realPath: String?, buildID: BuildID?, soname: String?) {
    self.path = path
    self.realPath = realPath
    self.buildID = buildID
    self.soname = soname
  }

  /// The file at `path` as it is now; only `path` when nothing readable is there.
  public init(path: String) {
    let file = try? ELFFile(path: path)
    self.init(
      path: path, realPath: Self.resolved(path), buildID: (try? file?.buildID()) ?? nil,
      soname: file?.dynamicString(Int64(DT_SONAME)))
  }

  /// A module a trace recorded at `recordedPath`: the build-id is the trace's (the file may
  /// have been rebuilt since), the real path and SONAME those of the file still there, if any.
  public init(recordedPath: String, buildID: [UInt8]) {
    self.init(
      path: recordedPath, realPath: Self.resolved(recordedPath), buildID: buildID.isEmpty ? nil : BuildID(buildID),
      soname: (try? ELFFile(path: recordedPath))?.dynamicString(Int64(DT_SONAME)))
  }

  /// The file names this module goes by: its path's, its real file's and its SONAME.
  public var fileNames: Set<String> {
    Set([PathName.base(of: path)] + [realPath.map { PathName.base(of: $0) }, soname].compactMap { $0 })
  }

  /// How firmly `other` is this module: the same build-id, else the same real file, else a
  /// file name in common; nil when none holds.
  public func match(_ other: ModuleFile) -> Match? {
    if let buildID, buildID == other.buildID { return .buildID }
    if let realPath, realPath == other.realPath { return .realFile }
    return fileNames.isDisjoint(with: other.fileNames) ? nil : .fileName
  }

  /// The positions in `candidates` of the modules this one is, by the firmest match any of
  /// them has (a build-id match hides file-name ones), in their order; empty when none matches.
  public func firmest(in candidates: [ModuleFile]) -> [Int] {
    let matches = candidates.map(match)
    guard let best = matches.compactMap({ $0 }).max() else { return [] }
    return matches.indices.filter { matches[$0] == best }
  }

  /// Names that the startup files linked into every program define (crt1, crti, crtbegin),
  /// and `main`: two unrelated programs share them all.
  static let startupNames: Set<String> = [
    "_start", "_init", "_fini", "main", "frame_dummy", "register_tm_clones", "deregister_tm_clones",
    "__do_global_dtors_aux", "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie",
  ]

  /// Whether two files this module's identity pairs by name (a file name or real file in
  /// common) but whose build-ids differ are builds of one module: whether at least half of the
  /// functions of the one with fewer are the other's too, those of the startup files aside
  /// (and a Rust name's hashes of build settings: `Demangler.buildIndependentName`).
  /// An instrumented and a release build, a rebuild and a relink in another order all are;
  /// another program under the same name shares only the startup files' names. True when
  /// neither defines a function of its own: nothing then tells them apart.
  public static func isAnotherBuild(functions: [String], otherFunctions: [String]) -> Bool {
    let own = Set(functions.map(Demangler.buildIndependentName)).subtracting(startupNames)
    let other = Set(otherFunctions.map(Demangler.buildIndependentName)).subtracting(startupNames)
    let smaller = min(own.count, other.count)
    guard smaller > 0 else { return own.isEmpty && other.isEmpty }
    return own.intersection(other).count * 2 >= smaller
  }

  /// What names this module, for an error: `libapp.so.0 (libapp.so.0.0.0, build-id 1a2b…)`.
  public var described: String {
    var details: [String] = []
    if let realPath, realPath != path { details.append(realPath) }
    if let soname, soname != PathName.base(of: path) { details.append("SONAME \(soname)") }
    details.append(buildID.map { "build-id \($0)" } ?? "no build-id")
    return "\(path) (\(details.joined(separator: ", ")))"
  }

  /// `path` with every link resolved, or nil when there is no file.
  public static func resolved(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }
}

import CLibdw
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Finds a module's separate debug file on this machine, for libdwfl's `find_debuginfo`.
///
/// libdwfl's standard callback also asks debuginfod servers over the network whenever
/// `DEBUGINFOD_URLS` is set, which a build tool must not do behind the user's back. This one
/// looks only at local files, in this order:
/// - `/usr/lib/debug/.build-id/xx/rest.debug` for the module's build-id;
/// - the `.gnu_debuglink` name beside the binary, in `.debug/` beside it, and under
///   `/usr/lib/debug` followed by the binary's directory.
///
/// A candidate is used only when its build-id equals the module's (when the module has one).
enum DebugInfoFinder {
  static let debugRoot = "/usr/lib/debug"

  /// Opens the debug file of `module`; returns its descriptor (which libdwfl takes over) and
  /// stores a `malloc`'d copy of its path in `foundPath`, or returns -1.
  static func open(
    module: OpaquePointer?, fileName: UnsafePointer<CChar>?, debuglink: UnsafePointer<CChar>?,
    foundPath: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
  ) -> Int32 {
    var wanted: BuildID?
    if let module {
      var bits: UnsafePointer<UInt8>?
      var vaddr: GElf_Addr = 0
      let length = dwfl_module_build_id(module, &bits, &vaddr)
      wanted = BuildID(bits, count: Int(length))
    }
    let mainFile = fileName.map { String(cString: $0) }
    let candidates = self.candidates(
      buildID: wanted, binary: mainFile, debuglink: debuglink.map { String(cString: $0) })
    for candidate in candidates {
      if let mainFile, FileIdentity.same(candidate, mainFile) { continue }
      guard let file = try? ELFFile(path: candidate) else { continue }
      if let wanted, (try? file.buildID()) != wanted { continue }
      let descriptor = Glibc.open(candidate, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { continue }
      foundPath?.pointee = strdup(candidate)
      return descriptor
    }
    errno = ENOENT
    return -1
  }

  /// Where a debug file may be, most specific first.
  static func candidates(buildID: BuildID?, binary: String?, debuglink: String?) -> [String] {
    var result = [String]()
    if let stem = buildID?.pathInBuildIDTree(under: debugRoot) {
      result.append(stem + ".debug")
    }
    if let debuglink, !debuglink.isEmpty, !debuglink.contains("/"), let binary {
      let directory = PathName.directory(of: binary)
      result.append("\(directory)/\(debuglink)")
      result.append("\(directory)/.debug/\(debuglink)")
      if directory.hasPrefix("/") { result.append("\(debugRoot)\(directory)/\(debuglink)") }
    }
    return result
  }
}

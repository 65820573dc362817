import OrderfileTraceFormat

/// Which files are the system's or a toolchain's rather than the program's: the lists and
/// the rules are `orderfile_system_paths.h`'s, which the in-process recorder and the page
/// probe compile, so the tool and they cannot disagree about a library.
extension TraceModule {
  /// The directories whose libraries belong to the system, not to the program being ordered.
  public static let systemLibraryDirectories = entries(of_system_library_directory)

  /// Folders of a toolchain's runtime libraries, wherever the toolchain is installed
  /// (`/opt/swift/usr/lib/swift/linux/libswiftCore.so`, a rustup toolchain's `rustlib`):
  /// shipped with the compiler, not built by the user.
  public static let toolchainLibraryFolders = entries(of_toolchain_library_folder)

  /// Whether `path` is in one of the system's library directories or a toolchain's
  /// runtime folders.
  public static func isSystemLibrary(path: String) -> Bool { of_is_system_library(path) }

  /// The directories of the system's programs (a shell, make, a compiler driver), which a
  /// launch may run but the user does not build; a compiler's own passes lie in
  /// `systemLibraryDirectories` (`/usr/lib/gcc/…/cc1`).
  public static let systemProgramDirectories = entries(of_system_program_directory)

  /// Whether `path` is a system program or library (`isSystemLibrary(path:)`).
  public static func isSystemFile(path: String) -> Bool {
    of_is_system_library(path) || of_is_system_program(path)
  }

  /// Whether this is a shared library installed in the system's library directories, which
  /// the user does not build (gcc records inlined members of libstdc++'s extern templates
  /// at addresses inside libstdc++.so).
  public var isSystemLibrary: Bool { !isMainExecutable && Self.isSystemLibrary(path: path) }

  /// Every entry of one of the header's lists, read until its NULL.
  private static func entries(_ entry: (Int) -> UnsafePointer<CChar>?) -> [String] {
    var list: [String] = []
    while let next = entry(list.count) { list.append(String(cString: next)) }
    return list
  }
}

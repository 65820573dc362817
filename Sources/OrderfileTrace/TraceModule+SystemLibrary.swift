extension TraceModule {
  /// The directories whose libraries belong to the system, not to the program being ordered.
  public static let systemLibraryDirectories = [
    "/lib/", "/lib32/", "/lib64/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/",
  ]

  /// Folders of a toolchain's runtime libraries, wherever the toolchain is installed
  /// (`/opt/swift/usr/lib/swift/linux/libswiftCore.so`, a rustup toolchain's `rustlib`):
  /// shipped with the compiler, not built by the user.
  public static let toolchainLibraryFolders = ["/usr/lib/swift/", "/usr/lib/swift_static/", "/lib/rustlib/"]

  /// Whether `path` is in one of the system's library directories or a toolchain's
  /// runtime folders.
  public static func isSystemLibrary(path: String) -> Bool {
    systemLibraryDirectories.contains { path.hasPrefix($0) } || toolchainLibraryFolders.contains { path.contains($0) }
  }

  /// The directories of the system's programs (a shell, make, a compiler driver), which a
  /// launch may run but the user does not build; a compiler's own passes lie in
  /// `systemLibraryDirectories` (`/usr/lib/gcc/…/cc1`).
  public static let systemProgramDirectories = ["/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/libexec/"]

  /// Whether `path` is a system program or library (`isSystemLibrary(path:)`).
  public static func isSystemFile(path: String) -> Bool {
    isSystemLibrary(path: path) || systemProgramDirectories.contains { path.hasPrefix($0) }
  }

  /// Whether this is a shared library installed in the system's library directories, which
  /// the user does not build (gcc records inlined members of libstdc++'s extern templates
  /// at addresses inside libstdc++.so).
  public var isSystemLibrary: Bool { !isMainExecutable && Self.isSystemLibrary(path: path) }
}

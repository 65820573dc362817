import Foundation

/// A system root holding only a `libc.so.6` that defines the symbol versions given, as
/// glibc's does (`GLIBC_2.2.5` … `GLIBC_2.36`, `GLIBC_ABI_DT_RELR`): what `flags` and
/// `verify` read to tell which loader options the target's glibc supports.
public enum FakeSysroot {
  /// Builds `<root>/lib/x86_64-linux-gnu/libc.so.6` (Debian's multiarch folder) under
  /// `work` with clang and a version script, one symbol per version; returns the root.
  public static func glibc(in work: TemporaryDirectory, name: String, versions: [String]) throws -> String {
    let root = work.file(name)
    let folder = root + "/lib/x86_64-linux-gnu"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var script = ""
    var source = ""
    for (index, version) in versions.enumerated() {
      script += "\(version) { global: fake_\(index); \(index == 0 ? "local: *; " : "")};\n"
      source += "int fake_\(index)(void) { return \(index); }\n"
    }
    try script.write(toFile: root + "/libc.map", atomically: true, encoding: .utf8)
    try source.write(toFile: root + "/libc.c", atomically: true, encoding: .utf8)
    try runChecked(
      Toolchain.clang,
      [
        "-shared", "-fPIC", "-nostdlib", "-fuse-ld=lld", "-Wl,-soname,libc.so.6",
        "-Wl,--version-script=" + root + "/libc.map",
        root + "/libc.c", "-o", folder + "/libc.so.6",
      ])
    return root
  }

  /// glibc 2.36's versions, the first to read `DT_RELR`.
  public static let glibc236 = ["GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.35", "GLIBC_2.36", "GLIBC_ABI_DT_RELR"]
  /// glibc 2.35's: its loader ignores `DT_RELR`.
  public static let glibc235 = ["GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.35"]
}

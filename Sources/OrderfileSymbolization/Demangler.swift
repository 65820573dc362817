import CLibdw

#if canImport(Glibc)
  import Glibc
#endif

/// Turns linkage names into readable ones, for reports.
public enum Demangler {
  /// The demangled form of a C++ (`_Z…`) or Swift (`$s…`, `_$s…`, `$S…`, `_$S…`, `_T0…`)
  /// name; any other name, or one the demangler rejects, comes back unchanged.
  public static func demangle(_ name: String) -> String {
    if name.hasPrefix("_Z") { return cxx(name) ?? name }
    if swiftPrefixes.contains(where: name.hasPrefix) { return swift(name) ?? name }
    return name
  }

  private static let swiftPrefixes = ["$s", "_$s", "$S", "_$S", "_T0"]

  /// `__cxa_demangle` from libstdc++.
  private static func cxx(_ name: String) -> String? {
    var status: Int32 = 0
    guard let result = __cxa_demangle(name, nil, nil, &status) else { return nil }
    defer { free(result) }
    return status == 0 ? String(cString: result) : nil
  }

  /// `swift_demangle` from libswiftCore.
  private static func swift(_ name: String) -> String? {
    let result = name.withCString { pointer in
      swift_demangle(pointer, strlen(pointer), nil, nil, 0)
    }
    guard let result else { return nil }
    defer { free(result) }
    return String(cString: result)
  }
}

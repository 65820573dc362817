import CLibdw
import CLibiberty

#if canImport(Glibc)
  import Glibc
#endif

/// Turns linkage names into readable ones, for reports.
public enum Demangler {
  /// The demangled form of a C++ (`_Z…`), Rust (v0 `_R…`, legacy `_ZN…17h<hash>E`) or
  /// Swift (`$s…`, `_$s…`, `$S…`, `_$S…`, `_T0…`) name; any other name, or one the
  /// demangler rejects, comes back unchanged.
  ///
  /// A legacy Rust name is a valid C++ name too (`rustapp::main::h9e01…`, with `$LT$`-style
  /// escapes left in), so `_ZN` names go to the Rust demangler first, which accepts only
  /// names that end in Rust's hash; libiberty's own automatic mode decides the same way.
  public static func demangle(_ name: String) -> String {
    if name.hasPrefix("_R") { return rust(name) ?? name }
    if name.hasPrefix("_ZN"), let rust = rust(name) { return rust }
    if name.hasPrefix("_Z") { return cxx(name) ?? name }
    if swiftPrefixes.contains(where: name.hasPrefix) { return swift(name) ?? name }
    return name
  }

  /// The linker's name with its demangled form beside it, `_ZN1a1fEv (a::f())`, for reports
  /// that must give the name an orderfile holds and the one people read; the name alone when
  /// it does not demangle.
  public static func withLinkerName(_ name: String) -> String {
    let demangled = demangle(name)
    return demangled == name ? name : "\(name) (\(demangled))"
  }

  /// A Rust legacy-mangled name without its hash: `_ZN7rustapp4main17h0123456789abcdefE`
  /// gives `_ZN7rustapp4main`; nil for any other name. The hash covers the crate's build
  /// settings: two builds of one function with other settings differ only there.
  public static func rustPathWithoutHash(_ name: String) -> Substring? {
    let suffixLength = "17h".count + 16 + 1
    guard name.hasPrefix("_ZN"), name.hasSuffix("E"), name.utf8.count > suffixLength + 3 else { return nil }
    let suffix = name.suffix(suffixLength)
    guard suffix.hasPrefix("17h"), suffix.dropFirst(3).dropLast().allSatisfy(\.isHexDigit) else { return nil }
    return name.dropLast(suffixLength)
  }

  /// A function's name as any build of it spells it: a Rust name without the hashes of its
  /// crates' build settings (legacy: the `17h…E` suffix; v0: demangled, which leaves out
  /// the crates' disambiguators), any other name as it is.
  public static func buildIndependentName(_ name: String) -> String {
    if let path = rustPathWithoutHash(name) { return String(path) }
    return name.hasPrefix("_R") ? demangle(name) : name
  }

  private static let swiftPrefixes = ["$s", "_$s", "$S", "_$S", "_T0"]

  /// `__cxa_demangle` from libstdc++.
  private static func cxx(_ name: String) -> String? {
    var status: Int32 = 0
    guard let result = __cxa_demangle(name, nil, nil, &status) else { return nil }
    defer { free(result) }
    return status == 0 ? String(cString: result) : nil
  }

  /// `cplus_demangle` from GNU libiberty, restricted to Rust: v0 and legacy names, the
  /// legacy hash left out (`DMGL_VERBOSE` would keep it).
  private static func rust(_ name: String) -> String? {
    guard let result = cplus_demangle(name, DMGL_RUST | DMGL_PARAMS | DMGL_ANSI) else { return nil }
    defer { free(result) }
    return String(cString: result)
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

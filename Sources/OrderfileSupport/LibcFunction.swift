#if canImport(Glibc)
  import Glibc
#endif

/// A function glibc exports but Swift's Glibc module does not declare (it is declared only
/// under `_GNU_SOURCE`, or only in newer headers), looked up at run time by name.
///
/// Returns nil when this C library lacks it; `T` must be the function's C type, written as
/// a `@convention(c)` function type.
func libcFunction<T>(_ name: String, as type: T.Type) -> T? {
  guard let symbol = dlsym(nil, name) else { return nil }
  return unsafeBitCast(symbol, to: type)
}

import Foundation
import OrderfileOrdering
import OrderfileSupport

/// The orderfile of one linked module of the ordered release build: `module=orderfile` on
/// `flags --release`, or an orderfile alone, whose module is in its file name.
///
/// Each module links with its own orderfile only: lld warns of every entry a link lacks
/// (an executable's link does not hold its library's functions), so a build system's
/// snippet gives each one to its target's link alone.
public struct TargetOrderfile: Sendable, Equatable, Codable {
  /// The module's file name, as `generate --output-dir` names its orderfile: `app`,
  /// `libwidgets.so` (a build-system target name such as `widgets` is taken as it is).
  public var module: String
  /// The orderfile's path.
  public var orderfile: String

  public init(module: String, orderfile: String) {
    self.module = module
    self.orderfile = orderfile
  }

  /// An orderfile alone: the module is its file name without the format's extension
  /// (`orders/libwidgets.so.order` orders `libwidgets.so`), as `generate --output-dir`
  /// writes it.
  public init(orderfile: String, format: OrderfileFormat) {
    let name = PathName.base(of: orderfile)
    let suffix = "." + format.fileExtension
    self.init(module: name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name, orderfile: orderfile)
  }

  /// `module=orderfile`, or nil when `argument` is no pair. A module name holds no `/`, so
  /// `orders/a=b.order` is a path; `./a=b.order` names a file whose name holds `=`.
  public init?(pair argument: String) {
    guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return nil }
    let module = argument[..<equals]
    let orderfile = argument[argument.index(after: equals)...]
    guard !module.contains("/"), !orderfile.isEmpty else { return nil }
    self.init(module: String(module), orderfile: String(orderfile))
  }

  /// The orderfiles `arguments` name: `module=orderfile` pairs, or one orderfile alone.
  /// Paths become absolute, so that a snippet works from any directory.
  ///
  /// - Throws: `BuildError.notAPair` for an orderfile alone among several,
  ///   `BuildError.moduleNamedTwice`, and `BuildError.noOrderfile` for a file that does not
  ///   exist: checked before anything is printed.
  public static func parse(_ arguments: [String], format: OrderfileFormat) throws -> [TargetOrderfile] {
    let orders = try arguments.map { argument -> TargetOrderfile in
      if let order = TargetOrderfile(pair: argument) { return order }
      guard arguments.count == 1 else { throw BuildError.notAPair(argument) }
      return TargetOrderfile(orderfile: argument, format: format)
    }
    var seen = Set<String>()
    for order in orders where !seen.insert(order.module).inserted {
      throw BuildError.moduleNamedTwice(module: order.module)
    }
    return try orders.map { try $0.checked() }
  }

  /// This orderfile by its absolute path, which a snippet names so that it works from any
  /// directory.
  ///
  /// - Throws: `BuildError.noOrderfile` when no file is there.
  public func checked() throws -> TargetOrderfile {
    guard FileManager.default.fileExists(atPath: orderfile) else { throw BuildError.noOrderfile(path: orderfile) }
    return TargetOrderfile(module: module, orderfile: URL(fileURLWithPath: orderfile).standardizedFileURL.path)
  }

  /// The library's name when the module is a shared library (`libwidgets.so`,
  /// `libwidgets.so.0.0.0` → `widgets`): the target name CMake and Meson give it
  /// (`add_library(widgets SHARED …)`, `shared_library('widgets', …)`).
  public var libraryName: String? {
    guard module.hasPrefix("lib"), let so = module.range(of: ".so"),
      so.upperBound == module.endIndex || module[so.upperBound] == "."
    else { return nil }
    let name = module[module.index(module.startIndex, offsetBy: 3)..<so.lowerBound]
    return name.isEmpty ? nil : String(name)
  }

  /// The target that links the module in CMake and Meson: the library's name, else the
  /// module's.
  public var targetName: String { libraryName ?? module }
}

import Foundation
import OrderfileSupport

/// Where a command puts its orderfiles.
public enum OrderfileDestination: Sendable, Equatable {
  /// One module's orderfile, on stdout.
  case standardOutput
  /// One module's orderfile, at this path.
  case file(String)
  /// One orderfile per module, in this directory, named after the module.
  case directory(String)
}

/// One module's orderfile, ready to be written.
public struct ModuleOrderfile: Sendable, Equatable {
  /// The module's path as the trace recorded it.
  public var modulePath: String
  /// The module's index in its trace, which tells apart modules that share a file name.
  public var moduleIndex: Int
  /// The orderfile's text.
  public var text: String

  public init(modulePath: String, moduleIndex: Int, text: String) {
    self.modulePath = modulePath
    self.moduleIndex = moduleIndex
    self.text = text
  }
}

/// Writes the orderfiles of `generate` and `merge`: the one place that names them and
/// puts them where the user asked.
public struct OrderfileWriter {
  public var format: OrderfileFormat
  public var destination: OrderfileDestination

  public init(format: OrderfileFormat, destination: OrderfileDestination) {
    self.format = format
    self.destination = destination
  }

  /// What `write` did.
  public struct Written: Sendable, Equatable {
    /// Where each module's orderfile went, in the order given; nil for stdout.
    public var paths: [String?]
    /// The orderfile to print, when the destination is stdout.
    public var standardOutput: String?
  }

  /// Writes `orderfiles` as one set: whole or not at all, and with a directory destination
  /// old and new orderfiles never mixed (see `AtomicFile.write(_:intoDirectory:)`).
  ///
  /// - Throws: `OrderingError.severalModules` when one file or stdout was asked for but
  ///   several modules were selected; `SupportError` when a file cannot be written.
  public func write(_ orderfiles: [ModuleOrderfile]) throws -> Written {
    let written = try paths(for: orderfiles)
    switch destination {
    case .directory(let directory):
      let files = zip(orderfiles, written.paths).map { orderfile, path in
        OutputFile(path: PathName.base(of: path ?? ""), text: orderfile.text)
      }
      try AtomicFile.write(files, intoDirectory: directory)
    case .file(let path):
      try AtomicFile.write(try single(orderfiles).text, to: path)
    case .standardOutput:
      break
    }
    return written
  }

  /// What `write` would do, without writing: where each orderfile goes. A report that
  /// names them is made from this before any file is written.
  public func paths(for orderfiles: [ModuleOrderfile]) throws -> Written {
    switch destination {
    case .directory(let directory):
      let names = Self.fileNames(orderfiles.map { ($0.modulePath, $0.moduleIndex) })
      return Written(paths: names.map { directory + "/" + $0 + "." + format.fileExtension }, standardOutput: nil)
    case .file(let path):
      _ = try single(orderfiles)
      return Written(paths: [path], standardOutput: nil)
    case .standardOutput:
      return Written(paths: [nil], standardOutput: try single(orderfiles).text)
    }
  }

  private func single(_ orderfiles: [ModuleOrderfile]) throws -> ModuleOrderfile {
    guard orderfiles.count == 1, let orderfile = orderfiles.first else {
      throw OrderingError.severalModules(names: orderfiles.map { PathName.base(of: $0.modulePath) })
    }
    return orderfile
  }

  /// The file name (without extension) of each module's orderfile in a directory: the
  /// module's file name, or `<name>-<index>` when an earlier module has the same name (two
  /// libraries of one name from different directories) or the name is empty.
  public static func fileNames(_ modules: [(path: String, index: Int)]) -> [String] {
    var used = Set<String>()
    return modules.map { module in
      let name = PathName.base(of: module.path)
      if !name.isEmpty, used.insert(name).inserted { return name }
      let unique = name + "-\(module.index)"
      used.insert(unique)
      return unique
    }
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// The shared libraries a program links, as its loader resolves them: what the in-process
/// recorder plans, what `--until` is checked against before a run, what a cold launch
/// counts, and whether an instrumented build's runtime is among them.
public enum LinkedLibraries {
  /// The shared libraries the loader resolves for the program at `path`, as `ldd` lists
  /// them; nil when that cannot be told.
  ///
  /// For a program that names its loader this runs what `ldd` itself runs once it has
  /// found one, the loader with `LD_TRACE_LOADED_OBJECTS` set and ldd's other variables
  /// emptied, without ldd's shell and the four loader runs it makes to pick a loader: on a
  /// 2-core machine that is about 13 of ldd's 15 ms of CPU, paid before every recording.
  public static func of(_ path: String) -> [String]? {
    let listed: ProcessResult?
    if case .loader(let loader) = ProgramInterpreter(path) {
      // As ldd: a name without a slash would be searched for as a library.
      listed = try? ProcessRunner.run(
        loader, [path.contains("/") ? path : "./" + path],
        environment: [
          "LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "", "LD_BIND_NOW": "", "LD_LIBRARY_VERSION": "", "LD_VERBOSE": "",
        ])
    } else {
      listed = try? ProcessRunner.run(ProcessRunner.resolve("ldd"), [path])
    }
    guard let listed, listed.succeeded else {
      return nil
    }
    return ldd(listing: listed.standardOutput)
  }

  /// The resolved paths of an `ldd` listing: "\tlibx.so => /path/libx.so (0x…)"; the
  /// loader's and the vdso's lines have no "=> /".
  static func ldd(listing: String) -> [String] {
    listing.split(separator: "\n").compactMap { line -> String? in
      guard let arrow = line.range(of: "=> /") else { return nil }
      return line[line.index(before: arrow.upperBound)...].split(separator: " ").first.map(String.init)
    }
  }
}

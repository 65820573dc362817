import OrderfileSupport
import OrderfileSymbolization

/// The tables for apps that every renderer shows, cell by cell, so that text, Markdown and
/// HTML say the same: the time before `main` by module and `main` to the launch's end by
/// module.
extension StartupProfile.PreMain {
  /// What the time before `main` by module is made of: what the trace measured, what is
  /// inferred and what the binaries say. One line each, as every renderer prints them.
  public static let libraryNotes = [
    "measured: process start → main, the loader's time in all (process start → the first recorded code) and each "
      + "module's first calls before main (main thread) with their times",
    "inferred: where each module's constructors start and end (from its first calls and its binary's initializer "
      + "tables), the load order (the binaries' DT_NEEDED, breadth first)",
    "read from the binaries: the relocations the loader applies to each module before its constructors run; the "
      + "trace holds no loader time per module",
  ]

  /// The table of `libraries`: a header row, then one row per module in load order.
  public var libraryRows: [[String]] {
    var rows = [
      ["load", "module", "relocations at load", "constructors start", "constructors", "first calls", "first → last"]
    ]
    for library in libraries {
      rows.append([
        library.loadOrder.map(String.init) ?? "-", PathName.base(of: library.module),
        library.relocations.map(Self.describe) ?? "-",
        library.constructorsStartNanoseconds.map(milliseconds) ?? "-",
        library.constructorsStartNanoseconds == nil ? "-" : milliseconds(library.constructorsNanoseconds),
        library.calls.map { String($0.firstCalls) } ?? "0",
        library.calls.map { "\(milliseconds($0.firstNanoseconds)) → \(milliseconds($0.lastNanoseconds))" } ?? "-",
      ])
    }
    return rows
  }

  /// "1204 (1180 relative + 24 symbolic; 96 PLT at first call)", or bound at load
  /// "1300 (1180 relative + 24 symbolic + 96 PLT)": the first number is what the loader
  /// applies before the module's constructors run.
  static func describe(_ relocations: ModuleLoading.Relocations) -> String {
    let parts = "\(relocations.relative) relative + \(relocations.symbolic) symbolic"
    return relocations.bindNow
      ? "\(relocations.atLoad) (\(parts) + \(relocations.procedureLinkage) PLT)"
      : "\(relocations.atLoad) (\(parts); \(relocations.procedureLinkage) PLT at first call)"
  }
}

extension StartupProfile {
  /// The table of `mainToLaunchEnd`: a header row, then one row per module by first call;
  /// nil without `main`.
  public var mainToLaunchEndRows: [[String]]? {
    mainToLaunchEnd.map { modules in
      [["module", "first calls", "first", "last", "span", "new pages"]]
        + modules.map { calls in
          [
            PathName.base(of: calls.module), String(calls.firstCalls), milliseconds(calls.firstNanoseconds),
            milliseconds(calls.lastNanoseconds), milliseconds(calls.spanNanoseconds), String(calls.newPages),
          ]
        }
    }
  }

  /// The heading of that table.
  public var mainToLaunchEndTitle: String {
    let main = boundaries.first { $0.kind == .main }?.timeNanoseconds ?? 0
    return "main → launch end by module: \(milliseconds(launchEndNanoseconds - min(main, launchEndNanoseconds))), "
      + "first calls on any thread (measured)"
  }
}

import Foundation
import OrderfileSymbolization
import OrderfileTrace

#if canImport(Glibc)
  import Glibc
#endif

/// The entries the breakpoint recorder arms in one module file.
///
/// The tracer reads the arrays after the planning callback returns, so they live in memory
/// this object owns, for as long as the recording runs.
final class ModulePlan {
  let entries: UnsafeMutableBufferPointer<UInt64>
  let stops: UnsafeMutableBufferPointer<UInt64>
  /// The dynamic loader's `_dl_debug_state`, called whenever libraries are mapped; 0 otherwise.
  let loaderHook: UInt64

  init(entries: [UInt64] = [], stops: [UInt64] = [], loaderHook: UInt64 = 0) {
    self.entries = .allocate(capacity: max(entries.count, 1))
    self.stops = .allocate(capacity: max(stops.count, 1))
    _ = self.entries.initialize(from: entries)
    _ = self.stops.initialize(from: stops)
    self.entryCount = entries.count
    self.stopCount = stops.count
    self.loaderHook = loaderHook
  }

  let entryCount: Int
  let stopCount: Int

  deinit {
    entries.deallocate()
    stops.deallocate()
  }

  /// Nothing to arm.
  static var empty: ModulePlan { ModulePlan() }
}

/// Decides, once per module file, which function entries the breakpoint recorder arms.
///
/// Every function of the program's own files is armed: the executable and the shared
/// libraries outside the system's library directories. System libraries (libc, libstdc++)
/// are not the user's to relink, so they are left alone unless asked for. Symbols come from
/// `.symtab`, else a separate debug file found by build-id or `.gnu_debuglink`, else
/// `.dynsym`; a module with none is reported once, with the fix.
final class ModulePlanner {
  /// Names (linkage or demangled) whose first call closes the launch window.
  let stopNames: [String]
  let includeSystemLibraries: Bool
  private let warn: (String) -> Void
  private var plans: [String: ModulePlan] = [:]
  /// The `--until` names found in some module.
  private(set) var matchedStopNames: Set<String> = []
  /// System libraries left unarmed, for the closing note.
  private(set) var skippedSystemLibraries: Set<String> = []
  /// Addresses inside cold parts where their function jumps in, by module path: armed
  /// beside the entries (see `ColdPartEntries`).
  private var coldPartEntries: [String: [UInt64]] = [:]

  /// The program the user named, with its links resolved: it is warned about even when it
  /// is a system program.
  let program: String?

  init(stopNames: [String], includeSystemLibraries: Bool, program: String? = nil, warn: @escaping (String) -> Void) {
    self.stopNames = stopNames
    self.includeSystemLibraries = includeSystemLibraries
    self.program = program.map(Self.resolved)
    self.warn = warn
  }

  /// Finds where the executable at `path` jumps into its cold parts past their first byte.
  /// Call before the tracer starts: it runs the disassembler, a child process the tracer,
  /// which waits for any child, must not see.
  func prepare(executable path: String) {
    // The tracer names modules by the path the kernel maps, with every link resolved.
    let mapped = realpath(path, nil).map { pointer in
      defer { free(pointer) }
      return String(cString: pointer)
    } ?? path
    guard let symbolizer = try? ELFSymbolizer(path: path) else { return }
    // Read once: planning the executable reuses it.
    prepared = (mapped, symbolizer)
    guard !ColdPartEntries.coldParts(of: symbolizer.functions).isEmpty else { return }
    guard let disassembler = ColdPartEntries.disassembler() else {
      warn(
        "\(path) has cold parts (foo.cold), which a function may jump into past their first byte; without llvm-objdump on PATH only those entered at their start are recorded")
      return
    }
    coldPartEntries[mapped] = ColdPartEntries.entries(
      binary: path, functions: symbolizer.functions, disassembler: disassembler)
  }

  /// The executable's symbols as `prepare` read them, by the path the tracer will name.
  private var prepared: (path: String, symbolizer: ELFSymbolizer)?

  func plan(path: String, isMainExecutable: Bool, isInterpreter: Bool) -> ModulePlan {
    if let plan = plans[path] { return plan }
    let plan = makePlan(path: path, isMainExecutable: isMainExecutable, isInterpreter: isInterpreter)
    plans[path] = plan
    return plan
  }

  private func makePlan(path: String, isMainExecutable: Bool, isInterpreter: Bool) -> ModulePlan {
    if isInterpreter { return loaderPlan(path: path) }
    if !isMainExecutable && !includeSystemLibraries && TraceModule.isSystemLibrary(path: path) {
      skippedSystemLibraries.insert(path)
      return .empty
    }
    let symbolizer: ELFSymbolizer
    do {
      if let prepared, prepared.path == path {
        symbolizer = prepared.symbolizer
      } else {
        symbolizer = try ELFSymbolizer(path: path)
      }
    } catch {
      warn("\(path): not recorded: \(error.localizedDescription)")
      return .empty
    }
    switch symbolizer.symbolSource {
    case .none where Self.isSystemProgram(path: path) && Self.resolved(path) != program:
      // A system program the recorded one runs (the shell of every system()): stripped by
      // its distribution, not the user's to relink; a warning each time would be noise.
      return .empty
    case .none:
      warn(
        "\(path) has no symbol table, so none of its functions can be recorded: keep its symbols (strip with --strip-debug at most), or install its debug file (found by build-id under /usr/lib/debug/.build-id/)"
      )
      return .empty
    case .dynamicSymbols:
      warn(
        "\(path) has only dynamic symbols: its \(symbolizer.functions.count) exported functions are recorded, its local ones are not; keep its .symtab or install its debug file"
      )
    case .symbolTable, .debugFile:
      break
    }
    let functions = symbolizer.functions
    if !isMainExecutable && functions.contains(where: { $0.allNames.contains("__cyg_profile_func_enter") }) {
      // The instrumented runtime, loaded by an instrumented build: part of the tool, not of the program.
      return .empty
    }
    if isMainExecutable, (try? BinaryLocator.isInstrumented(fileAt: path)) == true {
      warn(
        "\(path) is an instrumented build, recorded here without a rebuild all the same; 'record --instrumented' records it with its runtime"
      )
    }
    let stops = stopNames.isEmpty ? [] : functions.filter { function in
      let matched = stopNames.filter { Self.name(of: function, matches: $0) }
      matchedStopNames.formUnion(matched)
      return !matched.isEmpty
    }.map(\.address)
    return ModulePlan(entries: functions.map(\.address) + (coldPartEntries[path] ?? []), stops: stops)
  }

  /// `path` with every link resolved (`/bin/sh` is `/usr/bin/dash` on Debian), or as it is.
  static func resolved(_ path: String) -> String {
    guard let real = realpath(path, nil) else { return path }
    defer { free(real) }
    return String(cString: real)
  }

  /// Programs and libraries the distribution installs.
  static func isSystemProgram(path: String) -> Bool {
    TraceModule.isSystemLibrary(path: path) || ["/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/"].contains { path.hasPrefix($0) }
  }

  /// The loader's hook: glibc's and musl's loaders call `_dl_debug_state` after mapping
  /// libraries and before running their constructors, which is when to arm them.
  private func loaderPlan(path: String) -> ModulePlan {
    let hook = (try? ELFSymbolizer(path: path))?.functions.first { $0.allNames.contains("_dl_debug_state") }
    guard let hook else {
      warn("\(path): the dynamic loader has no _dl_debug_state symbol, so shared libraries are not recorded")
      return .empty
    }
    return ModulePlan(loaderHook: hook.address)
  }

  /// Whether `wanted` names this function: a linkage name, or a demangled one with or
  /// without its parameter list and outer qualifiers (`App::firstFrameDrawn` matches
  /// `App::firstFrameDrawn()` and `ui::App::firstFrameDrawn()`; `App.launch` matches the
  /// Swift `Demo.App.launch() -> ()`; `handlers::editor_apply` matches the Rust
  /// `rustapp::handlers::editor_apply`).
  static func name(of function: FunctionSymbol, matches wanted: String) -> Bool {
    // Demangling every symbol is slow; only names that contain the last word can match.
    let lastWord = wanted.split(whereSeparator: { ":.".contains($0) }).last.map(String.init) ?? wanted
    for name in function.allNames where name.contains(lastWord) {
      if name == wanted { return true }
      let readable = Demangler.demangle(name)
      if readable == wanted || readable.hasPrefix(wanted + "(") { return true }
      if readable.contains("::" + wanted + "(") || readable.contains("." + wanted + "(") { return true }
      // Demangled Rust names have no parameter list: rustapp::handlers::editor_apply.
      if readable.hasSuffix("::" + wanted) { return true }
    }
    return false
  }
}

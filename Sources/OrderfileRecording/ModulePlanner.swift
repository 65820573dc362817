import Foundation
import OrderfileSupport
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
  /// The C library's `__libc_sigaction`, which every `sigaction` and `signal` call goes
  /// through; 0 otherwise. The tracer watches what the program asks there for SIGTRAP.
  let signalHook: UInt64

  init(entries: [UInt64] = [], stops: [UInt64] = [], loaderHook: UInt64 = 0, signalHook: UInt64 = 0) {
    self.entries = .allocate(capacity: max(entries.count, 1))
    self.stops = .allocate(capacity: max(stops.count, 1))
    _ = self.entries.initialize(from: entries)
    _ = self.stops.initialize(from: stops)
    self.entryCount = entries.count
    self.stopCount = stops.count
    self.loaderHook = loaderHook
    self.signalHook = signalHook
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

/// Modules named on the command line to record or to leave alone, each by a file name it goes
/// by (`libfoo.so`, its SONAME `libfoo.so.1`, its real file `libfoo.so.1.2.3`), by any path
/// that leads to its file (a link, `/usr/lib/…` or `/lib/…` on a merged /usr), or by a folder
/// it lies in (`/opt/vendor/`), as `ModuleFile` tells one module whatever path names it.
public struct ModuleSelection: Sendable, Equatable {
  /// Armed even where they would not be (system and toolchain libraries).
  public var include: [String]
  /// Never armed (the main executable excepted: without it there is no launch).
  public var exclude: [String]

  public init(include: [String] = [], exclude: [String] = []) {
    self.include = include
    self.exclude = exclude
  }

  /// Whether one of `patterns` names the module the program knows as `path`, read from the
  /// file at `file` (the host's file of an emulated program's library; `path` otherwise).
  static func names(_ path: String, file: String? = nil, _ patterns: [String]) -> Bool {
    guard !patterns.isEmpty else { return false }
    let module = ModuleFile(path: file ?? path)
    let paths = Set([path, module.path, module.realPath].compactMap { $0 })
    return patterns.contains { pattern in
      guard pattern.contains("/") else { return module.fileNames.contains(pattern) }
      // Both spellings of the pattern: as given, and with its links resolved as the module's are.
      let spellings = Set([pattern, ModuleFile.resolved(pattern)].compactMap { $0 })
      return spellings.contains { spelling in
        let folder = spelling.hasSuffix("/") ? spelling : spelling + "/"
        return paths.contains { $0 == spelling || $0.hasPrefix(folder) }
      }
    }
  }

  func includes(_ path: String, file: String? = nil) -> Bool { Self.names(path, file: file, include) }
  func excludes(_ path: String, file: String? = nil) -> Bool { Self.names(path, file: file, exclude) }
}

/// Decides, once per module file, which function entries the breakpoint recorder arms.
///
/// Every function of the program's own files is armed: the executable and the shared
/// libraries outside the system's library directories. System libraries (libc, libstdc++)
/// are not the user's to relink, so they are left alone unless asked for. Symbols come from
/// `.symtab`, else a separate debug file found by build-id or `.gnu_debuglink`, else
/// `.dynsym`; a module with none is reported once, with the fix. What a module file holds
/// is read once per recording (`PlannedModule`), from the plan cache when it has it.
final class ModulePlanner {
  /// Names (linkage or demangled) whose first call closes the launch window.
  let stopNames: [String]
  /// `stopNames`, each read once rather than once per function.
  private let stops: [StopName]
  let cache: PlanCache
  /// What each module file holds, by the path it was asked for: read at most once.
  private var surveys: [String: PlannedModule] = [:]
  /// Module files read from the plan cache, and read from the files themselves.
  private(set) var modulesFromCache = 0
  private(set) var modulesRead = 0
  let includeSystemLibraries: Bool
  private let warn: (String) -> Void
  private var plans: [String: ModulePlan] = [:]
  /// The `--until` names found in some module.
  private(set) var matchedStopNames: Set<String> = []
  /// System libraries left unarmed, for the closing note.
  private(set) var skippedSystemLibraries: Set<String> = []
  /// Reads the executable at `path`, with where it jumps into its cold parts past their
  /// first byte (see `ColdPartEntries`). Call before the tracer starts: it runs the
  /// disassembler, a child process the tracer, which waits for any child, must not see.
  func prepare(executable path: String) {
    // The tracer names modules by the path the kernel maps, with every link resolved.
    guard case .success(let module) = survey(Self.resolved(path), coldParts: true),
      module.coldParts == .unresolved
    else { return }
    warn(
      "\(path) has cold parts (foo.cold), which a function may jump into past their first byte; without llvm-objdump on PATH only those entered at their start are recorded"
    )
  }

  /// What the module file at `path` holds: from the memory of this recording, else the plan
  /// cache, else read from the file (and kept in the cache). `coldParts` asks for the
  /// entries into its cold parts too.
  func survey(_ path: String, coldParts: Bool = false) -> Result<PlannedModule, Error> {
    if let module = surveys[path],
      !(coldParts && module.coldParts == .unresolved && ColdPartEntries.disassembler() != nil)
    {
      return .success(module)
    }
    // Before the file is read: a file that changes meanwhile is planned afresh next time.
    let key = PlanCache.key(path: path)
    if let key, let module = cache.load(path: path, key: key),
      !(coldParts && module.coldParts == .unresolved && ColdPartEntries.disassembler() != nil)
    {
      modulesFromCache += 1
      surveys[path] = module
      return .success(module)
    }
    do {
      let module = try PlannedModule.survey(path: path, coldParts: coldParts)
      modulesRead += 1
      surveys[path] = module
      if let key { cache.store(module, path: path, key: key) }
      return .success(module)
    } catch {
      return .failure(error)
    }
  }

  /// The program the user started, with its links resolved (the tracer names modules by
  /// the path the kernel maps): its own executable is always theirs, even a system program.
  let program: String?
  let selection: ModuleSelection
  /// Modules left unarmed because `--exclude-module` named them.
  private(set) var excludedModules: Set<String> = []
  /// The path an emulated program's loader gives a library, by the host file it is
  /// (`/lib/libc.so.6` is `/usr/aarch64-linux-gnu/lib/libc.so.6` under `qemu -L`): what
  /// makes it a system library and what `--include-module`/`--exclude-module` match.
  var guestPaths: [String: String] = [:]

  init(
    stopNames: [String], includeSystemLibraries: Bool, program: String? = nil, selection: ModuleSelection = .init(),
    cache: PlanCache = .disabled, warn: @escaping (String) -> Void
  ) {
    self.stopNames = stopNames
    stops = stopNames.map(StopName.init)
    self.cache = cache
    self.includeSystemLibraries = includeSystemLibraries
    self.program = program.map(Self.resolved)
    self.selection = selection
    self.warn = warn
  }

  /// Whether the executable at `path` is a system program other than the one the user
  /// started.
  func isOtherSystemProgram(_ path: String) -> Bool {
    Self.resolved(path) != program && TraceModule.systemProgramDirectories.contains { path.hasPrefix($0) }
  }

  func plan(path: String, isMainExecutable: Bool, isInterpreter: Bool) -> ModulePlan {
    if let plan = plans[path] { return plan }
    let plan = makePlan(path: path, isMainExecutable: isMainExecutable, isInterpreter: isInterpreter)
    plans[path] = plan
    return plan
  }

  /// The function of glibc and musl that every `sigaction` and `signal` call goes through.
  static let sigactionName = "__libc_sigaction"

  /// Whether the library at `path` is a C library, whose sigaction is watched even when
  /// its functions are not recorded (glibc's `libc.so.6`, musl's `libc.musl-*.so.1`).
  static func isCLibrary(_ path: String) -> Bool {
    let base = PathName.base(of: path)
    return base.hasPrefix("libc.so") || base.hasPrefix("libc.musl")
  }

  private func makePlan(path: String, isMainExecutable: Bool, isInterpreter: Bool) -> ModulePlan {
    if isInterpreter { return loaderPlan(path: path) }
    let named = guestPaths[path] ?? path
    if !isMainExecutable && selection.excludes(named, file: path) {
      excludedModules.insert(named)
      return .empty
    }
    if !isMainExecutable && !includeSystemLibraries && !selection.includes(named, file: path)
      && TraceModule.isSystemLibrary(path: named)
    {
      skippedSystemLibraries.insert(named)
      guard Self.isCLibrary(path) else { return .empty }
      return ModulePlan(signalHook: DynamicSymbol.address(of: Self.sigactionName, inFileAt: path) ?? 0)
    }
    // Another program the launch runs (a shell, `true`, `sleep`) is not the user's to
    // relink: what it lacks is no warning, though it is recorded where it can be.
    let warn: (String) -> Void = isMainExecutable && isOtherSystemProgram(path) ? { _ in } : self.warn
    // A system library without its debug file is the rule, not news: dozens of them under
    // --system-libraries get one summary line (`systemLibraryWarnings`), not a line each.
    let isSystemLibrary = !isMainExecutable && TraceModule.isSystemLibrary(path: named)
    let module: PlannedModule
    switch survey(path) {
    case .success(let read): module = read
    case .failure(let error):
      warn("\(path): not recorded: \(error.localizedDescription)")
      return .empty
    }
    switch module.symbolSource {
    case .none where isSystemLibrary:
      systemLibrariesWithout[.none, default: []].append(named)
      return .empty
    case .dynamicSymbols where isSystemLibrary:
      systemLibrariesWithout[.dynamicSymbols, default: []].append(named)
    case .none:
      warn(
        "\(path) has no symbol table, so none of its functions can be recorded: keep its symbols (strip with --strip-debug at most), or install its debug file (found by build-id under /usr/lib/debug/.build-id/)"
      )
      return .empty
    case .dynamicSymbols:
      warn(
        "\(path) has only dynamic symbols: its \(module.functionCount) exported functions are recorded, its local ones are not; keep its .symtab or install its debug file"
      )
    case .symbolTable, .debugFile:
      break
    }
    if !isMainExecutable && module.isOrderfileRuntime {
      // The instrumented runtime, loaded by an instrumented build: part of the tool, not of the program.
      return .empty
    }
    if isMainExecutable, module.isInstrumented {
      warn(
        "\(path) is an instrumented build, recorded here without a rebuild all the same; 'record --instrumented' records it with its runtime"
      )
    }
    var stopEntries: [UInt64] = []
    // By the name as given: a legacy Rust hash is not part of `StopName.wanted`.
    for (name, stop) in zip(stopNames, stops) {
      let found = module.names.addresses(matching: stop)
      if !found.isEmpty { matchedStopNames.insert(name) }
      stopEntries = PlannedModule.merged(stopEntries, found)
    }
    return ModulePlan(entries: module.entries, stops: stopEntries, signalHook: module.signalHook)
  }

  /// Up to five names of the functions read so far nearest to the `--until` name `wanted`,
  /// for the error that says it named none.
  func nearestNames(to wanted: String) -> [String] {
    StopName(wanted).nearest(amongNames: surveys.values.flatMap(\.names.all))
  }

  /// System libraries planned without a full symbol table, by what they have instead
  /// (`.dynamicSymbols` or `.none`), in the order planned.
  private var systemLibrariesWithout: [SymbolSource: [String]] = [:]

  /// One line for all the system libraries planned without a full symbol table, one for all
  /// those with none at all: counts and the first few names.
  func systemLibraryWarnings() -> [String] {
    func names(_ paths: [String]) -> String { TextFormatting.list(paths.map { PathName.base(of: $0) }, limit: 3) }
    let debugFiles =
      "install their debug files (found by build-id under /usr/lib/debug/.build-id/; Debian's -dbgsym packages)"
    var lines: [String] = []
    if let dynamic = systemLibrariesWithout[.dynamicSymbols], !dynamic.isEmpty {
      lines.append(
        "\(TextFormatting.count(dynamic.count, "system library", plural: "system libraries")) with only dynamic symbols (\(names(dynamic))): their exported functions are recorded, their local ones are not; \(debugFiles)"
      )
    }
    if let none = systemLibrariesWithout[.none], !none.isEmpty {
      lines.append(
        "\(TextFormatting.count(none.count, "system library", plural: "system libraries")) with no symbol table (\(names(none))): none of their functions can be recorded; \(debugFiles)"
      )
    }
    return lines
  }

  /// `path` with every link resolved (`/bin/sh` is `/usr/bin/dash` on Debian), or as it is.
  static func resolved(_ path: String) -> String {
    ModuleFile.resolved(path) ?? path
  }

  /// The loader's hook: glibc's and musl's loaders call `_dl_debug_state` after mapping
  /// libraries and before running their constructors, which is when to arm them.
  private func loaderPlan(path: String) -> ModulePlan {
    let names: FunctionNames
    switch survey(path) {
    case .success(let module): names = module.names
    case .failure(let error):
      // Not "no _dl_debug_state": the loader may well have one, the tool could not read it.
      warn("the dynamic loader cannot be read, so shared libraries are not recorded: \(error.localizedDescription)")
      return .empty
    }
    // musl's loader is its C library too.
    let sigaction = names.firstAddress(named: Self.sigactionName) ?? 0
    guard let hook = names.firstAddress(named: "_dl_debug_state") else {
      warn("\(path): the dynamic loader has no _dl_debug_state symbol, so shared libraries are not recorded")
      return ModulePlan(signalHook: sigaction)
    }
    return ModulePlan(loaderHook: hook, signalHook: sigaction)
  }

  /// Whether `wanted` names this function: a linkage name, or a demangled one with or
  /// without its parameter list and outer qualifiers (`App::firstFrameDrawn` matches
  /// `App::firstFrameDrawn()` and `ui::App::firstFrameDrawn()`; `App.launch` matches the
  /// Swift `Demo.App.launch() -> ()`; `handlers::editor_apply` matches the Rust
  /// `rustapp::handlers::editor_apply`), or exactly as `report` and `symbolize` print it,
  /// parameters included (`swift::performTypeChecking(swift::SourceFile&)`,
  /// `App.serverIsUp(Swift.Int) -> ()`).
  static func name(of function: FunctionSymbol, matches wanted: String) -> Bool {
    name(of: function, matches: StopName(wanted))
  }

  /// Whether `pattern`, a `--until` name read once for all functions, names this function.
  static func name(of function: FunctionSymbol, matches pattern: StopName) -> Bool {
    function.allNames.contains(where: pattern.names)
  }
}

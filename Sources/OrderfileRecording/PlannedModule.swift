import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// What recording needs of one module file whatever the run: the entries to arm, the names
/// `--until` is matched against, the C library's sigaction; read once from the file's
/// symbols, its `.eh_frame`, its link map and, for the executable, the disassembler, and
/// kept in the plan cache (`PlanCache`) for the next recording of the same file.
struct PlannedModule: Equatable {
  /// Whether the entries into the cold parts of functions are among `entries`.
  enum ColdParts: UInt8 {
    /// The file has no cold parts.
    case none = 0
    /// It has, and the places where their functions jump into them were found.
    case resolved = 1
    /// It has, and they were not looked for (a library) or could not be (no llvm-objdump).
    case unresolved = 2
  }

  var symbolSource: SymbolSource
  /// Where the separate debug file came from, for `.debugFile`: a new one is a new plan.
  var debugFile: FileStamp?
  /// Function entries and the entries into cold parts, ascending, without repeats.
  var entries: [UInt64]
  var names: FunctionNames
  var functionCount: Int
  /// `__libc_sigaction`'s entry; 0 when the file has none.
  var signalHook: UInt64
  /// The instrumented runtime (it defines the hooks): part of the tool, never armed.
  var isOrderfileRuntime: Bool
  /// An instrumented build (it calls the hooks).
  var isInstrumented: Bool
  var coldParts: ColdParts

  /// Reads the module file at `path`. With `coldParts`, finds where functions jump into their
  /// cold parts past their first byte (llvm-objdump, a child process: never while the tracer
  /// runs).
  static func survey(path: String, coldParts wanted: Bool) throws -> PlannedModule {
    let symbolizer = try ELFSymbolizer(path: path)
    let functions = symbolizer.functions
    let parts = ColdPartEntries.coldParts(of: functions)
    var coldParts = ColdParts.none
    var coldEntries: [UInt64] = []
    if !parts.isEmpty {
      coldParts = .unresolved
      if wanted, let disassembler = ColdPartEntries.disassembler() {
        coldEntries = ColdPartEntries.entries(binary: path, functions: functions, disassembler: disassembler)
        coldParts = .resolved
      }
    }
    let names = FunctionNames(functions)
    let debugFile: FileStamp? =
      if case .debugFile(let debugPath) = symbolizer.symbolSource { FileStamp(path: debugPath) } else { nil }
    return PlannedModule(
      symbolSource: symbolizer.symbolSource, debugFile: debugFile,
      entries: Self.merged(functions.map(\.address), coldEntries), names: names, functionCount: functions.count,
      signalHook: names.firstAddress(named: ModulePlanner.sigactionName) ?? 0,
      isOrderfileRuntime: names.firstAddress(named: "__cyg_profile_func_enter") != nil,
      isInstrumented: (try? BinaryLocator.isInstrumented(fileAt: path)) == true, coldParts: coldParts)
  }

  /// Two ascending lists as one, ascending, without repeats.
  static func merged(_ first: [UInt64], _ second: [UInt64]) -> [UInt64] {
    let first = first.isSorted ? first : first.sorted()
    let second = second.isSorted ? second : second.sorted()
    var result: [UInt64] = []
    result.reserveCapacity(first.count + second.count)
    var (i, j) = (0, 0)
    while i < first.count || j < second.count {
      let next: UInt64
      if j == second.count || (i < first.count && first[i] <= second[j]) {
        next = first[i]
        i += 1
      } else {
        next = second[j]
        j += 1
      }
      if result.last != next { result.append(next) }
    }
    return result
  }
}

extension Array where Element == UInt64 {
  fileprivate var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 <= $1 } }
}

/// Every name of a module's functions in one buffer, each with its function's address:
/// what `--until` is matched against, without a string per name (a compiler has 250,000
/// functions and 26 MB of names).
struct FunctionNames: Equatable {
  struct Row: Equatable {
    var offset: UInt32
    var length: UInt32
    var address: UInt64
  }

  /// The names, one after another.
  var bytes: [UInt8]
  /// One per name, in the order of `bytes`.
  var rows: [Row]

  init(bytes: [UInt8], rows: [Row]) {
    self.bytes = bytes
    self.rows = rows
  }

  init(_ functions: [FunctionSymbol]) {
    var bytes: [UInt8] = []
    var rows: [Row] = []
    rows.reserveCapacity(functions.count)
    func add(_ name: String, _ address: UInt64) {
      rows.append(Row(offset: UInt32(bytes.count), length: UInt32(name.utf8.count), address: address))
      bytes.append(contentsOf: name.utf8)
    }
    for function in functions {
      add(function.name, function.address)
      for alias in function.aliases { add(alias, function.address) }
    }
    self.bytes = bytes
    self.rows = rows
  }

  /// Whether the rows lie inside the bytes, in order: what a cache file read back must hold.
  var isConsistent: Bool {
    var end: UInt64 = 0
    for row in rows {
      guard UInt64(row.offset) >= end else { return false }
      end = UInt64(row.offset) + UInt64(row.length)
    }
    return end <= UInt64(bytes.count)
  }

  func name(_ row: Row) -> String {
    String(decoding: bytes[Int(row.offset)..<Int(row.offset) + Int(row.length)], as: UTF8.self)
  }

  /// Every name, for an error's nearest names.
  var all: [String] { rows.map(name) }

  /// The address of the first function with the linkage name `wanted`.
  func firstAddress(named wanted: String) -> UInt64? {
    let target = Array(wanted.utf8)
    return rows.first { row in
      Int(row.length) == target.count && bytes[Int(row.offset)..<Int(row.offset) + target.count].elementsEqual(target)
    }?.address
  }

  /// The addresses of the functions `stop` names, ascending, without repeats.
  func addresses(matching stop: StopName) -> [UInt64] {
    var found = Set<UInt64>()
    func check(_ index: Int) {
      let row = rows[index]
      let name = name(row)
      if stop.matches(linkageName: name, demangled: Demangler.demangle(name)) { found.insert(row.address) }
    }
    let word = Array(stop.lastWord.utf8)
    guard !word.isEmpty else {
      for index in rows.indices { check(index) }
      return found.sorted()
    }
    // Only names that hold the last word can match, and demangling is slow: find the word
    // in the buffer, then look at the names it lands in.
    var lastChecked = -1
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var start = 0
      while start + word.count <= buffer.count,
        let hit = memchr(base + start, Int32(word[0]), buffer.count - start - word.count + 1)
      {
        let position = base.distance(to: UnsafeRawPointer(hit))
        start = position + 1
        guard memcmp(hit, word, word.count) == 0 else { continue }
        let index = rows.partitioningIndex { Int($0.offset) > position } - 1
        guard index >= 0, index != lastChecked,
          position + word.count <= Int(rows[index].offset) + Int(rows[index].length)
        else { continue }
        lastChecked = index
        check(index)
      }
    }
    return found.sorted()
  }
}

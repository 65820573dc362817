import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace

/// How `--until` names a function, for every command that takes it (`record`, `estimate --measure`).
public enum UntilFunction {
  /// Whether `wanted` names `function`: its linkage name, or its demangled name with or
  /// without parameters and outer qualifiers (see `ModulePlanner.name(of:matches:)`).
  public static func matches(_ function: FunctionSymbol, _ wanted: String) -> Bool {
    ModulePlanner.name(of: function, matches: wanted)
  }

  /// The entries of the functions of the binary at `path` that `names` call for (where the
  /// page probe ends its count), and the names that matched none of them.
  public static func entries(_ names: [String], binary path: String) throws -> (
    addresses: [UInt64], unmatched: [String]
  ) {
    guard !names.isEmpty else { return ([], []) }
    let functions = FunctionNames(try ELFSymbolizer.withSymbols(path: path).functions)
    var addresses: [UInt64] = []
    var unmatched: [String] = []
    for name in names {
      let found = functions.addresses(matching: StopName(name))
      if found.isEmpty { unmatched.append(name) }
      addresses += found
    }
    return (addresses, unmatched)
  }

  /// Up to `limit` demangled names of the functions of the binary at `path` nearest to
  /// `wanted`, for a message about a name that matched none (see `StopName.nearest`).
  public static func nearest(to wanted: String, binary path: String, limit: Int = 5) -> [String] {
    guard let functions = try? ELFSymbolizer.withSymbols(path: path).functions else { return [] }
    return StopName(wanted).nearest(in: functions, limit: limit)
  }
}

/// A `--until` name, split for matching: the name before any parameter list, and its last
/// identifier (the one a mangled name holds verbatim).
///
/// Rust names come in the spellings of two manglings, and `report`, `generate --list` and
/// `symbolize` print whichever the binary has: legacy `a::b::{{closure}}` and
/// `core::ptr::drop_in_place<fd::cli::Opts>`, v0 `a::b::{closure#0}` and
/// `core::ptr::drop_in_place::<fd::cli::Opts>`, and a demangler that keeps legacy hashes
/// prints `a::b::h0123456789abcdef`. Each of them names the function in either mangling
/// (`RustName`); a hash names only the function with that hash.
struct StopName {
  /// The name as given, less a legacy Rust hash.
  let wanted: String
  /// The legacy Rust hash given (`h0123456789abcdef`), which the linkage name must hold.
  let hash: String?
  /// `wanted` without its parameter list and what follows it (a Swift result type).
  let base: String
  let lastWord: String
  var hasParameters: Bool { base != wanted }

  init(_ given: String) {
    (wanted, hash) = RustName.splitHash(given)
    base = Self.beforeParameters(wanted)
    lastWord = Self.lastIdentifier(base) ?? base
  }

  /// Whether this names the function with the linkage name `name`. Demangling every symbol
  /// is slow; only names that hold the last word can match (`FunctionNames` finds them in
  /// its buffer of all names instead).
  func names(_ name: String) -> Bool {
    name.contains(lastWord) && matches(linkageName: name, demangled: Demangler.demangle(name))
  }

  func matches(linkageName name: String, demangled readable: String) -> Bool {
    if let hash, !name.contains("17" + hash + "E") { return false }
    if name == wanted || readable == wanted { return true }
    if hasParameters {
      // As printed, with its outer qualifiers left off.
      return readable.hasSuffix("::" + wanted) || readable.hasSuffix("." + wanted)
    }
    if readable.hasPrefix(wanted + "(") { return true }
    if readable.contains("::" + wanted + "(") || readable.contains("." + wanted + "(") { return true }
    // Demangled Rust names have no parameter list: rustapp::handlers::editor_apply.
    if readable.hasSuffix("::" + wanted) { return true }
    return RustName.isRust(linkageName: name) && RustName.names(readable, wanted)
  }

  /// Up to `limit` demangled names of `functions` nearest to this one, for an error (see
  /// `nearest(amongNames:limit:)`).
  func nearest(in functions: [FunctionSymbol], limit: Int = 5) -> [String] {
    nearest(amongNames: functions.flatMap(\.allNames), limit: limit)
  }

  /// Up to `limit` demangled names of `names` (linkage names) nearest to this one, for an
  /// error: those that contain its last word (ignoring case); when none does (a typo), those
  /// whose last identifier is a few edits from it; nearest first.
  func nearest(amongNames names: [String], limit: Int = 5) -> [String] {
    let word = lastWord.lowercased()
    guard word.count >= 3 else { return [] }
    var found = Set<String>()
    for name in names where name.lowercased().contains(word) {
      found.insert(Demangler.demangle(name))
    }
    if !found.isEmpty {
      // Nearest first: the end of the name as long as the one given, a few edits from it
      // (`Demanglr.demangle`: `…Demangler.demangle(…)` before `ada_demangle`), then shortest.
      let given = base.lowercased()
      let ranked = found.map { name -> (distance: Int, name: String) in
        let end = String(Self.beforeParameters(name).lowercased().suffix(given.count))
        return (TextFormatting.editDistance(end, given), name)
      }
      return ranked.sorted { ($0.distance, $0.name.count, $0.name) < ($1.distance, $1.name.count, $1.name) }
        .prefix(limit).map(\.name)
    }
    let most = max(2, word.count / 4)
    var distances: [String: Int] = [:]
    for name in names where abs(name.count - word.count) <= most || name.hasPrefix("_") {
      let readable = Demangler.demangle(name)
      guard let identifier = Self.lastIdentifier(Self.beforeParameters(readable)),
        abs(identifier.count - word.count) <= most
      else { continue }
      let distance = TextFormatting.editDistance(identifier.lowercased(), word)
      if distance <= most { distances[readable] = min(distances[readable] ?? distance, distance) }
    }
    return distances.sorted { ($0.value, $0.key.count, $0.key) < ($1.value, $1.key.count, $1.key) }.prefix(limit)
      .map(\.key)
  }

  /// `name` without its parameter list: up to its first `(` outside generic arguments (a
  /// Rust `lang_start::<()>` has one inside them); a C++ operator's up to its first `(`.
  static func beforeParameters(_ name: String) -> String {
    if name.contains("operator") { return name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name }
    var depth = 0
    var previous: Character = " "
    for index in name.indices {
      switch name[index] {
      case "<": depth += 1
      case ">" where previous != "-" && depth > 0: depth -= 1
      case "(" where depth == 0: return String(name[..<index])
      default: break
      }
      previous = name[index]
    }
    return name
  }

  /// The last identifier of `name` outside generic arguments and braces (`{closure#0}`):
  /// `drop_in_place` of `core::ptr::drop_in_place<fd::cli::Opts>`, `lang_start` of
  /// `std::rt::lang_start::{{closure}}`; nil when there is none.
  static func lastIdentifier(_ name: String) -> String? {
    var angle = 0
    var brace = 0
    var previous: Character = " "
    var current = ""
    var last: String?
    for character in name {
      switch character {
      case "<": angle += 1
      case ">" where previous != "-" && angle > 0: angle -= 1
      case "{": brace += 1
      case "}" where brace > 0: brace -= 1
      default: break
      }
      if angle == 0 && brace == 0 && (character.isLetter || character.isNumber || character == "_" || character == "$")
      {
        current.append(character)
      } else if !current.isEmpty {
        last = current
        current = ""
      }
      previous = character
    }
    return current.isEmpty ? last : current
  }
}

/// Rust's demangled names in one spelling for both manglings, so that a name printed for
/// one matches the function in the other.
enum RustName {
  /// A linkage name of Rust's: v0 (`_R…`) or legacy (`_ZN…17h<16 hex digits>E`, with a
  /// `.llvm.<n>` suffix or none).
  static func isRust(linkageName name: String) -> Bool {
    if name.hasPrefix("_R") { return true }
    guard name.hasPrefix("_ZN"), let hash = name.range(of: "17h", options: .backwards) else { return false }
    let digits = name[hash.upperBound...].prefix(17)
    return digits.count == 17 && digits.last == "E" && digits.dropLast().allSatisfy(\.isHexDigit)
  }

  /// `name` less a legacy hash path segment (`::h0123456789abcdef`), and the hash.
  static func splitHash(_ name: String) -> (name: String, hash: String?) {
    guard let separator = name.range(of: "::h", options: .backwards) else { return (name, nil) }
    let digits = name[separator.upperBound...]
    guard digits.count == 16, digits.allSatisfy(\.isHexDigit) else { return (name, nil) }
    return (String(name[..<separator.lowerBound]), "h" + digits)
  }

  /// Whether the demangled `readable` is the function `wanted` names, in either mangling's
  /// spelling, with or without its outer qualifiers; generic arguments left out of `wanted`
  /// match any (`std::rt::lang_start::{{closure}}` names v0's
  /// `std::rt::lang_start::<()>::{closure#0}`), and closure numbers, where both give them,
  /// must agree.
  static func names(_ readable: String, _ wanted: String) -> Bool {
    let want = canonical(wanted, keepingGenerics: true)
    let have = canonical(readable, keepingGenerics: want.contains("<"))
    guard have == want || have.hasSuffix("::" + want) else { return false }
    let wantedNumbers = closureNumbers(wanted)
    let numbers = closureNumbers(readable)
    return wantedNumbers.isEmpty || numbers.isEmpty || numbers.suffix(wantedNumbers.count) == wantedNumbers[...]
  }

  /// One spelling: a closure is `{closure}` (legacy `{{closure}}`, v0 `{closure#N}`), generic
  /// arguments follow a name without v0's `::`, and without `keepingGenerics` those after a
  /// name are left out (a qualified path's `<T as Trait>` stays).
  static func canonical(_ name: String, keepingGenerics: Bool) -> String {
    var text = name.replacingOccurrences(of: "{{closure}}", with: "{closure}")
    while let start = text.range(of: "{closure#"), let end = text[start.upperBound...].firstIndex(of: "}") {
      text.replaceSubrange(start.lowerBound...end, with: "{closure}")
    }
    text = text.replacingOccurrences(of: "::<", with: "<")
    guard !keepingGenerics else { return text }
    var result = ""
    var depth = 0
    var previous: Character = " "
    for character in text {
      defer { previous = character }
      if depth > 0 {
        if character == "<" {
          depth += 1
        } else if character == ">" && previous != "-" {
          depth -= 1
        }
        continue
      }
      if character == "<", let last = result.last, last.isLetter || last.isNumber || last == "_" || last == "}" {
        depth = 1
        continue
      }
      result.append(character)
    }
    return result
  }

  /// The numbers of v0's closures in `name`, outermost first (`{closure#0}::{closure#1}`: 0, 1).
  static func closureNumbers(_ name: String) -> [Int] {
    var numbers: [Int] = []
    var rest = name[...]
    while let start = rest.range(of: "{closure#") {
      let digits = rest[start.upperBound...].prefix { $0.isNumber }
      if let number = Int(digits) { numbers.append(number) }
      rest = rest[start.upperBound...]
    }
    return numbers
  }
}

extension UntilFunction {
  /// Fails before the program runs when a `--until` name matches no function of its
  /// executable or of the libraries the loader resolves for it (those it would record):
  /// a window that never ends would silently become the whole run. A library the program
  /// loads itself (`dlopen`) is not seen here, nor a program that a script or a system
  /// program (`sh -c`, `env`) starts: those are checked after the run. The modules are
  /// planned here, by `planner`, which the run then reuses: each is read once.
  static func checkBeforeRun(
    _ names: [String], in path: String, libraries: () -> [String], program: String, planner: ModulePlanner
  ) throws {
    guard !names.isEmpty, !TraceModule.systemProgramDirectories.contains(where: path.hasPrefix) else { return }
    // By the paths the tracer and the plan name them, links resolved.
    _ = planner.plan(path: ModulePlanner.resolved(path), isMainExecutable: true, isInterpreter: false)
    // The libraries only when the executable lacks a name: the run plans them anyway.
    if names.contains(where: { !planner.matchedStopNames.contains($0) }) {
      for library in libraries() {
        _ = planner.plan(path: ModulePlanner.resolved(library), isMainExecutable: false, isInterpreter: false)
      }
    }
    if let name = names.first(where: { !planner.matchedStopNames.contains($0) }) {
      throw BreakpointRecordingError.untilMatchesNothing(
        name: name, program: program, nearest: planner.nearestNames(to: name))
    }
  }
}

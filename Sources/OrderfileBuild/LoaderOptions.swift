import Foundation
import OrderfileOrdering
import OrderfileSupport
import OrderfileSymbolization

/// A link option that cuts what the dynamic loader reads from a module at launch.
///
/// Only options measured to cut cold major faults are here (Docs/Reference.md has the
/// measurements); `-z now`, `-fno-plt`, `--gc-sections`, `--icf=all` and `-O2` were measured
/// too and cut none.
public enum LoaderOption: String, CaseIterable, Codable, Sendable {
  /// Relative relocations packed as RELR bitmaps (`DT_RELR`): the loader reads a few words
  /// instead of a 24-byte RELA entry per pointer, and relocates `.data` in address order.
  case relr
  /// The GNU hash table alone: lld writes the System V table too unless told, and a loader
  /// that reads `DT_GNU_HASH` never touches it, yet it sits between the tables it reads.
  case gnuHash = "gnu-hash"

  /// What the option does, for a reader of `flags` and `verify`.
  public var summary: String {
    switch self {
    case .relr: return "pack relative relocations (RELR)"
    case .gnuHash: return "only the GNU symbol hash table"
    }
  }
}

/// A linker, as its `--version` (or the `.comment` a binary keeps) names it.
public struct LinkerVersion: Sendable, Equatable, Codable, CustomStringConvertible {
  public enum Kind: String, Sendable, Codable {
    case lld = "LLD"
    case gnuLD = "GNU ld"
    case gold = "GNU gold"
  }

  public var kind: Kind
  /// Major, minor, patch as far as given.
  public var version: [Int]

  public init(kind: Kind, version: [Int]) {
    self.kind = kind
    self.version = version
  }

  /// Reads the first line of `ld.lld --version` (`LLD 21.0.0 (…)`, `Debian LLD 14.0.6`),
  /// `ld.bfd --version` (`GNU ld (GNU Binutils for Debian) 2.40`), `ld.gold --version`
  /// (`GNU gold (GNU Binutils for Debian 2.40) 1.16`), or a binary's `.comment` linker
  /// (`LLD 21.0.0`); nil for anything else.
  public init?(versionOutput: String) {
    let line = versionOutput.split(separator: "\n").first.map(String.init) ?? ""
    let words = line.split(separator: " ").map(String.init)
    func number(_ word: String?) -> [Int]? {
      guard let word else { return nil }
      let parts = word.split(separator: ".").map { Int($0.prefix { $0.isNumber }) }
      guard let first = parts.first, first != nil else { return nil }
      return parts.prefix { $0 != nil }.compactMap { $0 }
    }
    if let index = words.firstIndex(of: "LLD"), let version = number(words.dropFirst(index + 1).first) {
      self.init(kind: .lld, version: version)
    } else if line.hasPrefix("GNU gold"), let version = number(words.last) {
      self.init(kind: .gold, version: version)
    } else if line.hasPrefix("GNU ld"), let version = number(words.last) {
      self.init(kind: .gnuLD, version: version)
    } else {
      return nil
    }
  }

  /// The linker `program` (a name on PATH, or a path) says it is; nil when it cannot be run
  /// or names no linker this reads.
  public static func of(program: String) -> LinkerVersion? {
    let path = ProcessRunner.resolve(program)
    guard path.hasPrefix("/"), let result = try? ProcessRunner.run(path, ["--version"]), result.status == 0 else {
      return nil
    }
    return LinkerVersion(versionOutput: result.standardOutput)
  }

  public var description: String { kind.rawValue + " " + version.map(String.init).joined(separator: ".") }

  /// Whether it has `-z pack-relative-relocs`: lld from 15, GNU ld from 2.38, gold never.
  var packsRelativeRelocations: Bool {
    switch kind {
    case .lld: return !version.lexicographicallyPrecedes([15])
    case .gnuLD: return !version.lexicographicallyPrecedes([2, 38])
    case .gold: return false
    }
  }
}

/// The dynamic loader of the machine a program runs on, as read from its system's files.
public enum TargetLoader: Sendable, Equatable, Codable {
  /// glibc, read from the `libc.so.6` at `path`.
  case glibc(path: String, version: [Int], definesRELRVersion: Bool)
  /// Android's bionic linker, whose features follow the API level.
  case android(apiLevel: Int?)
  /// Nothing tells: why, in words.
  case unknown(String)

  /// Where `libc.so.6` lies under a system root, for Debian's multiarch folders, a cross
  /// sysroot (`/usr/aarch64-linux-gnu/lib`) and other distributions' `lib64`.
  static func libcCandidates(sysroot: String, triple: String) -> [String] {
    let root = sysroot.hasSuffix("/") ? String(sysroot.dropLast()) : sysroot
    return ["/lib/\(triple)", "/usr/lib/\(triple)", "/lib64", "/usr/lib64", "/lib", "/usr/lib"].map {
      root + $0 + "/libc.so.6"
    }
  }

  /// The glibc under `sysroot` for `triple`: its version is the newest `GLIBC_2.*` version
  /// its `libc.so.6` defines, and `GLIBC_ABI_DT_RELR` says its loader reads `DT_RELR`.
  public static func glibc(sysroot: String, triple: String) -> TargetLoader {
    let candidates = libcCandidates(sysroot: sysroot, triple: triple)
    guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
      return .unknown("no libc.so.6 under \(sysroot) (looked in \(candidates.joined(separator: ", ")))")
    }
    guard let names = try? VersionDefinitions.names(ofFileAt: path) else {
      return .unknown("\(path) is no readable ELF library")
    }
    let versions = names.compactMap { name -> [Int]? in
      guard name.hasPrefix("GLIBC_") else { return nil }
      let parts = name.dropFirst("GLIBC_".count).split(separator: ".").map { Int($0) }
      return parts.contains(nil) || parts.isEmpty ? nil : parts.compactMap { $0 }
    }
    guard let newest = versions.max(by: { $0.lexicographicallyPrecedes($1) }) else {
      return .unknown("\(path) defines no GLIBC_* version: not glibc's libc")
    }
    return .glibc(path: path, version: newest, definesRELRVersion: names.contains("GLIBC_ABI_DT_RELR"))
  }

  /// The loader a build for `target` runs on (this machine's without one), read under
  /// `sysroot` when given, else under the target's Debian cross sysroot or `/`.
  public static func of(target: CrossTarget?, sysroot: String? = nil) -> TargetLoader {
    let target = target ?? CrossTarget.hostArchitecture.map { CrossTarget(architecture: $0) }
    guard let target else { return .unknown("this machine's architecture is none the tool builds for") }
    if target.system == .android { return .android(apiLevel: target.apiLevel) }
    let host = CrossTarget.hostArchitecture == target.architecture
    return glibc(sysroot: sysroot ?? (host ? "/" : target.sysroot ?? "/"), triple: target.triple)
  }

  /// The loader of the linked module at `path`: bionic when its interpreter is Android's
  /// (whose API level a binary does not name), else the glibc for its machine, read under
  /// `sysroot` when given (see `of(target:sysroot:)`).
  public static func of(binary path: String, interpreter: String?, sysroot: String? = nil) -> TargetLoader {
    if let interpreter, interpreter.hasPrefix("/system/") { return .android(apiLevel: nil) }
    guard let machine = ELFMachine.of(fileAt: path), let architecture = CrossTarget.Architecture(machine: machine)
    else {
      return .unknown("\(path) is built for a machine the tool does not build for")
    }
    return of(target: CrossTarget(architecture: architecture), sysroot: sysroot)
  }

  public var description: String {
    switch self {
    case .glibc(let path, let version, _):
      return "glibc \(version.map(String.init).joined(separator: ".")) (\(path))"
    case .android(let level): return "Android" + (level.map { " API \($0)" } ?? " (no API level given)")
    case .unknown(let reason): return "an unknown loader: \(reason)"
    }
  }
}

/// Whether one loader option applies to a build, and why.
public struct LoaderOptionAdvice: Sendable, Equatable, Codable {
  public var option: LoaderOption
  /// The compiler driver's flags that ask for it (`-Wl,-z,pack-relative-relocs`); empty
  /// when the linker or the target's loader does not support it.
  public var flags: [String]
  /// What supports it, or what does not.
  public var reason: String

  public var recommended: Bool { !flags.isEmpty }

  public init(option: LoaderOption, flags: [String], reason: String) {
    self.option = option
    self.flags = flags
    self.reason = reason
  }
}

/// The loader options of one build: each option recommended only where both the linker and
/// the target's loader support it.
public struct LoaderOptions: Sendable, Equatable, Codable {
  public var linker: LinkerVersion?
  public var loader: TargetLoader
  public var advice: [LoaderOptionAdvice]

  /// The flags of the recommended options, in `LoaderOption` order.
  public var flags: [String] { advice.flatMap(\.flags) }

  /// Advice for a link by `linker` of a program `loader` loads. Without a linker, an option
  /// the loader reads is recommended only when `anyLinker` says the linker may be any
  /// (a binary whose `.comment` names none, as GNU ld writes none), its needs in the reason.
  public init(linker: LinkerVersion?, loader: TargetLoader, anyLinker: Bool = false) {
    self.linker = linker
    self.loader = loader
    advice = LoaderOption.allCases.map { Self.advise($0, linker: linker, loader: loader, anyLinker: anyLinker) }
  }

  /// The options of a release build linked in `format` for `target` (this machine without
  /// one), its loader read under `sysroot` (see `TargetLoader.of`). The linker is the one
  /// `format` selects, as found on PATH; ld64 links Mach-O, which has none of these tables.
  public static func forRelease(format: OrderfileFormat, target: CrossTarget?, sysroot: String?) -> LoaderOptions? {
    let program: String
    switch format {
    case .lld, .lldScript: program = "ld.lld"
    case .gold: program = "ld.gold"
    case .ld64: return nil
    }
    return LoaderOptions(
      linker: LinkerVersion.of(program: program), loader: TargetLoader.of(target: target, sysroot: sysroot))
  }

  static func advise(_ option: LoaderOption, linker: LinkerVersion?, loader: TargetLoader, anyLinker: Bool)
    -> LoaderOptionAdvice
  {
    func no(_ reason: String) -> LoaderOptionAdvice { LoaderOptionAdvice(option: option, flags: [], reason: reason) }
    func yes(_ flags: [String], _ reason: String) -> LoaderOptionAdvice {
      LoaderOptionAdvice(option: option, flags: flags, reason: reason)
    }
    let linkerName = linker.map(\.description) ?? "the linker (not found)"
    switch option {
    case .relr:
      switch loader {
      case .unknown(let why):
        return no("the target's loader is not known to read DT_RELR: \(why)")
      case .glibc(let path, let version, let definesRELR):
        let glibc = "glibc \(version.map(String.init).joined(separator: "."))"
        guard definesRELR else {
          return no("\(path) is \(glibc), whose loader does not read DT_RELR (glibc 2.36 and later do)")
        }
        // `-z pack-relative-relocs` also makes the module need GLIBC_ABI_DT_RELR, so an
        // older glibc refuses it instead of running it unrelocated.
        if linker == nil && anyLinker {
          return yes(
            ["-Wl,-z,pack-relative-relocs"], "\(glibc) reads DT_RELR; the linker needs it too (lld 15, GNU ld 2.38)")
        }
        guard let linker, linker.packsRelativeRelocations else {
          return no("\(linkerName) has no -z pack-relative-relocs (lld 15 and GNU ld 2.38 have it; gold never did)")
        }
        return yes(["-Wl,-z,pack-relative-relocs"], "\(linkerName) packs them and \(glibc) reads DT_RELR")
      case .android(let level):
        guard let level else { return no("Android without an API level: bionic reads RELR from API 28") }
        guard linker?.kind == .lld || (linker == nil && anyLinker) else {
          return no("\(linkerName) cannot pack Android's relocations: use lld")
        }
        if level >= 30 { return yes(["-Wl,--pack-dyn-relocs=relr"], "bionic reads DT_RELR from API 30") }
        if level >= 28 {
          return yes(
            ["-Wl,--pack-dyn-relocs=relr", "-Wl,--use-android-relr-tags"],
            "bionic reads RELR under Android's own tags (DT_ANDROID_RELR) at API 28 and 29")
        }
        return no("API \(level): bionic reads RELR from API 28")
      }
    case .gnuHash:
      guard linker != nil || anyLinker else { return no("\(linkerName): its hash styles are not known") }
      switch loader {
      case .unknown(let why): return no("the target's loader is not known to read DT_GNU_HASH: \(why)")
      case .glibc(_, let version, _):
        guard !version.lexicographicallyPrecedes([2, 5]) else { return no("glibc before 2.5 reads no DT_GNU_HASH") }
        return yes(["-Wl,--hash-style=gnu"], "glibc reads DT_GNU_HASH since 2.5, so DT_HASH is dead weight")
      case .android(let level):
        guard let level, level >= 23 else { return no("bionic reads DT_GNU_HASH from API 23") }
        return yes(["-Wl,--hash-style=gnu"], "bionic reads DT_GNU_HASH from API 23, so DT_HASH is dead weight")
      }
    }
  }

  /// The recommended options that the linked module's `tables` lack, with what each costs.
  public func missing(in tables: LoaderTables) -> [LoaderOptionAdvice] {
    advice.filter { advice in
      guard advice.recommended else { return false }
      switch advice.option {
      // A module without relative relocations has nothing to pack.
      case .relr: return !tables.packedRelative && tables.relativeInRELA > 0
      case .gnuHash: return tables.sysvHash
      }
    }
  }
}

extension LoaderOptions {
  /// What `flags` prints under the link flags: each option, added or not, and why.
  public var notes: String {
    var lines = [
      "# Loader options (cut what the loader reads at launch; linker \(linker?.description ?? "not found"), loader \(loader.description)):"
    ]
    for advice in advice {
      let what = advice.recommended ? BuildFlags.shellLine(advice.flags) : "not added"
      lines.append("#   \(advice.option.rawValue): \(what): \(advice.reason)")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

import Foundation
import OrderfileSymbolization
import OrderfileTrace

/// A recorded function that the release binary does not have.
public struct AbsentFunction: Codable, Sendable, Equatable {
  /// Why the release binary lacks it, as far as its symbols tell.
  public enum Reason: String, Codable, Sendable {
    /// No function of that name or of a clone of it: the release build inlined every call
    /// (an instrumented gcc build keeps inline functions out of line), or dropped it.
    case inlined
    /// The release build has a compiler-made copy under another name (`foo.constprop.0`
    /// for `foo`, or the other way round).
    case renamed
  }

  public var name: String
  public var reason: Reason
  /// The release binary's name for it, when renamed.
  public var releaseName: String?

  public init(name: String, reason: Reason, releaseName: String? = nil) {
    self.name = name
    self.reason = reason
    self.releaseName = releaseName
  }
}

/// How one module's order compares with the release binary it will be linked into.
///
/// The instrumented build is not the build that ships: gcc's `-finstrument-functions`
/// instruments functions before inlining, so it records functions the optimized release
/// build has none of. An orderfile entry the linker cannot find orders nothing, and a match
/// rate measured against the instrumented binary hides that.
public struct ReleaseComparison: Sendable, Equatable {
  /// The release binary the entries were looked up in.
  public var binaryPath: String
  /// Recorded functions the release binary lacks, in first-call order.
  public var absent: [AbsentFunction]
  /// Whether the absent functions stayed in the orderfile.
  public var keptAbsent: Bool
  /// Compiler-made copies the release binary has of launch functions (`foo.part.0`,
  /// `foo.isra.0`, `foo.constprop.0` for a recorded `foo`), placed right after the function
  /// they were made from, or where it stood when the release binary has only the copy. The
  /// trace cannot name them (the recording build made other copies, or none), but they run
  /// when their function does. Entries, yet not matches of recorded functions.
  public var placedCopies: [String] = []
  /// The release binary's cold parts of launch functions (`foo.cold`), placed after every other
  /// entry in the order their functions first ran, when the trace came from an instrumented
  /// build: its hooks run at function entries only, so it cannot tell whether a cold part ran.
  /// At the end of the order a cold part that did not run costs no page the launch touches;
  /// one that ran but stayed where the compiler put it costs a page of its own. Entries, yet
  /// not matches of recorded functions.
  public var placedColdParts: [String] = []
  /// Recorded Rust functions the release binary has under the same path with another hash
  /// (`_ZN…17h<hash>E`): the hash covers the crate's build settings, so a build with other
  /// settings (the instrumented build's `--target`) names the same function differently.
  /// Their entries carry the release binary's name.
  public var rehashed: [Rehash] = []

  /// A recorded name and the release binary's name of the same function.
  public struct Rehash: Codable, Sendable, Equatable {
    public var recorded: String
    public var release: String

    public init(recorded: String, release: String) {
      self.recorded = recorded
      self.release = release
    }
  }

  /// Splits `order`'s functions into those the release binary has and those it lacks; the
  /// lacking ones leave the order unless `keepAbsent`. With `placeColdParts` (a trace of an
  /// instrumented build), the release binary's cold parts of the entries go last.
  public static func apply(
    to order: ModuleOrder, release: any Symbolizer, keepAbsent: Bool, placeColdParts: Bool = false
  ) -> ModuleOrder {
    var names = Set<String>()
    var cloneBases: [String: String] = [:]
    /// The release binary's placeable, non-cold copies of each function, in address order.
    var copies: [String: [FunctionSymbol]] = [:]
    /// The release binary's Rust functions by path without the hash.
    var rustPaths: [Substring: [FunctionSymbol]] = [:]
    /// The release binary's placeable cold parts by the name of the function they belong to.
    var coldParts: [String: [FunctionSymbol]] = [:]
    for function in release.functions {
      if placeColdParts, let parent = CloneName.coldPartParent(of: function.name), OrderBuilder.isPlaceable(function) {
        coldParts[parent, default: []].append(function)
      }
      if let path = Demangler.rustPathWithoutHash(function.name) { rustPaths[path, default: []].append(function) }
      for name in function.allNames {
        names.insert(name)
        if let clone = CloneName(name), !clone.isCold, cloneBases[clone.base] == nil { cloneBases[clone.base] = name }
        if cloneBases[name] == nil { cloneBases[name] = name }
      }
      if let clone = CloneName(function.name), !clone.isCold, OrderBuilder.isPlaceable(function) {
        copies[clone.base, default: []].append(function)
      }
    }
    var placed = Set(order.functions.flatMap(\.symbol.allNames))
    var kept: [OrderedFunction] = []
    var absent: [AbsentFunction] = []
    var placedCopies: [String] = []
    var rehashed: [Rehash] = []
    func placeCopies(of function: OrderedFunction) {
      let bases = Set(function.symbol.allNames.map { CloneName($0)?.base ?? $0 })
      for base in bases.sorted() {
        for copy in copies[base] ?? [] where placed.insert(copy.name).inserted {
          kept.append(
            OrderedFunction(
              symbol: copy, firstCallNanoseconds: function.firstCallNanoseconds, threadID: function.threadID,
              recordIndex: -1))
          placedCopies.append(copy.name)
        }
      }
    }
    for function in order.functions {
      if function.symbol.allNames.contains(where: names.contains) {
        kept.append(function)
        placeCopies(of: function)
        continue
      }
      if let path = Demangler.rustPathWithoutHash(function.symbol.name), let same = rustPaths[path], same.count == 1,
        placed.insert(same[0].name).inserted
      {
        var renamed = function
        renamed.symbol = same[0]
        kept.append(renamed)
        rehashed.append(Rehash(recorded: function.symbol.name, release: same[0].name))
        continue
      }
      let base = CloneName(function.symbol.name)?.base ?? function.symbol.name
      if let now = cloneBases[base] {
        absent.append(AbsentFunction(name: function.symbol.name, reason: .renamed, releaseName: now))
      } else {
        absent.append(AbsentFunction(name: function.symbol.name, reason: .inlined))
      }
      if keepAbsent { kept.append(function) }
      placeCopies(of: function)
    }
    var placedColdParts: [String] = []
    for function in kept where placeColdParts {
      for name in function.symbol.allNames {
        for part in coldParts[name] ?? [] where placed.insert(part.name).inserted {
          placedColdParts.append(part.name)
          kept.append(
            OrderedFunction(
              symbol: part, firstCallNanoseconds: function.firstCallNanoseconds, threadID: function.threadID,
              recordIndex: -1))
        }
      }
    }
    var result = order
    result.functions = kept
    result.release = ReleaseComparison(
      binaryPath: release.path, absent: absent, keptAbsent: keepAbsent, placedCopies: placedCopies,
      placedColdParts: placedColdParts, rehashed: rehashed)
    return result
  }
}

/// The release binaries given for a trace's modules, each matched to its module by
/// `ModuleFile` (build-id, then real file, then file name: the SONAME link, the real file and an
/// installed copy all match), and opened once however many traces ask.
public final class ReleaseBinaries {
  public let paths: [String]
  /// Keep entries the release binary lacks in the orderfile.
  public let keepAbsent: Bool
  private let resolver: BinaryResolver
  /// Each path's file, read once.
  private let files: [ModuleFile]

  /// - Parameter open: opens a binary; tests pass a fake.
  public init(
    paths: [String], keepAbsent: Bool = false,
    open: @escaping (String) throws -> any Symbolizer = { try ELFSymbolizer.withSymbols(path: $0) }
  ) {
    self.paths = paths
    self.keepAbsent = keepAbsent
    self.resolver = BinaryResolver(open: open)
    self.files = paths.map(ModuleFile.init(path:))
  }

  /// The release binary given for `module`, if any: the one it matches most firmly, the
  /// first given among equals.
  public func path(for module: TraceModule) -> String? {
    module.file.firmest(in: files).first.map { paths[$0] }
  }

  /// `order` checked against its module's release binary; unchanged when none was given.
  /// `placeColdParts`: the trace came from an instrumented build, which cannot see cold parts run.
  public func compare(_ order: ModuleOrder, placeColdParts: Bool = false) throws -> ModuleOrder {
    guard let release = try symbolizer(for: order.module) else { return order }
    return ReleaseComparison.apply(
      to: order, release: release, keepAbsent: keepAbsent, placeColdParts: placeColdParts)
  }

  /// The opened release binary given for `module`, if any.
  public func symbolizer(for module: TraceModule) throws -> (any Symbolizer)? {
    try path(for: module).map { try resolver.symbolizer(at: $0) }
  }

  /// Refuses a release binary that is no recorded module: a typo would otherwise leave the
  /// match rate measured against the instrumented binary.
  /// A release binary that a module's name pairs it with but whose build-id differs must be a
  /// build of that module (`ModuleFile.isAnotherBuild`), when the recorded binary can be read.
  public func checkMatched(modules: [TraceModule], traces: [String], binaries: BinaryResolver = BinaryResolver())
    throws
  {
    let recorded = modules.map(\.file)
    for (path, file) in zip(paths, files) {
      let matched = file.firmest(in: recorded)
      guard !matched.isEmpty else {
        throw OrderingError.releaseBinaryMatchesNoModule(
          path: file.described, traces: traces, modules: Array(Set(modules.map(\.path))).sorted())
      }
      for index in matched {
        let module = modules[index]
        guard let buildID = file.buildID, !module.buildID.isEmpty, buildID.bytes != module.buildID,
          let release = try? resolver.symbolizer(at: path),
          let recordedBinary = try? binaries.symbolizer(recordedPath: module.path, buildID: module.buildID),
          !ModuleFile.isAnotherBuild(
            functions: recordedBinary.functions.map(\.name), otherFunctions: release.functions.map(\.name))
        else { continue }
        throw OrderingError.anotherProgram(
          binary: file.described, module: module.file.described, trace: traces.joined(separator: ", "))
      }
    }
  }
}

import Foundation
import OrderfileSupport
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@testable import OrderfileRecording

#if canImport(Glibc)
  import Glibc
#endif

/// Tests/Fixtures/unnamed/unnamed.c linked by lld with a map, `hidden`'s symbol stripped from
/// the object so that only the map names it, and every link under one explicit build-id: a
/// relink in another order is another binary under the same build-id, which only the rest
/// of the cache's key tells apart.
private struct MappedProgram {
  let work: TemporaryDirectory
  let object: String
  let binary: String
  /// The map beside the binary, where the planner looks for it.
  var map: String { binary + ".map" }
  /// The name only the map gives `hidden`.
  static let mapName = "unnamed.o(.text.hidden)"

  init() throws {
    work = try TemporaryDirectory("orderfile-plancache")
    object = try unnamedFixtureObject(in: work)
    binary = work.file("app")
    try link(to: binary, map: binary + ".map")
  }

  /// Links the object to `output`; with `order`, those functions first.
  func link(to output: String, map: String, order: [String] = []) throws {
    var flags = ["-fuse-ld=lld", "-Wl,--build-id=0xfeedfacefeedface", "-Wl,-Map=" + map]
    if !order.isEmpty {
      let file = work.file("order")
      try (order.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
      flags.append("-Wl,--symbol-ordering-file=" + file)
    }
    try runChecked(Toolchain.clang, [object] + flags + ["-o", output], environment: Toolchain.environment)
  }

  /// Another link of the same object, `main` first: other addresses, the same build-id.
  func relinked() throws -> (binary: String, map: String) {
    let other = (work.file("relinked"), work.file("relinked.map"))
    try link(to: other.0, map: other.1, order: ["main", "before"])
    return other
  }
}

/// One planning of the program's executable, as a recording does it.
private struct Planned {
  let entries: [UInt64]
  let stops: [UInt64]
  let fromCache: Int
  let read: Int

  init(_ binary: String, cache: PlanCache, until: [String] = [MappedProgram.mapName]) {
    let planner = ModulePlanner(
      stopNames: until, includeSystemLibraries: false, program: binary, cache: cache, warn: { _ in })
    planner.prepare(executable: binary)
    let plan = planner.plan(path: ModulePlanner.resolved(binary), isMainExecutable: true, isInterpreter: false)
    entries = Array(plan.entries.prefix(plan.entryCount))
    stops = Array(plan.stops.prefix(plan.stopCount))
    fromCache = planner.modulesFromCache
    read = planner.modulesRead
  }
}

/// The function entries of the binary at `path` as it is now, read afresh.
private func entriesNow(_ path: String) throws -> [UInt64] {
  try ELFSymbolizer(path: path).functions.map(\.address).sorted()
}

/// The plan files in the cache at `directory`.
private func planFiles(_ directory: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/plans")) ?? []).sorted()
}

@Suite("The plan cache: plans kept between recordings, never stale")
struct PlanCacheTests {
  @Test("a second planning of the same files is read from the cache, and is the same plan")
  func secondPlanFromCache() throws {
    let program = try MappedProgram()
    let cache = PlanCache(directory: program.work.file("cache"))
    let first = Planned(program.binary, cache: cache)
    #expect(first.read == 1 && first.fromCache == 0)
    #expect(planFiles(cache.directory!).count == 1)
    let second = Planned(program.binary, cache: cache)
    #expect(second.read == 0 && second.fromCache == 1)
    #expect(second.entries == first.entries && second.stops == first.stops)
    #expect(first.entries == (try entriesNow(program.binary)))
    // The map's name for the function without a symbol matched --until, from the cache too.
    #expect(second.stops.count == 1)
  }

  @Test("without a cache nothing is kept and every planning reads the files")
  func disabled() throws {
    let program = try MappedProgram()
    #expect(Planned(program.binary, cache: .disabled).read == 1)
    #expect(Planned(program.binary, cache: .disabled).read == 1)
  }

  @Test(
    "another binary at the same path under the same build-id is planned afresh: replaced, or rewritten in place",
    arguments: [false, true])
  func changedBinary(inPlace: Bool) throws {
    let program = try MappedProgram()
    let cache = PlanCache(directory: program.work.file("cache"))
    let before = Planned(program.binary, cache: cache, until: ["main"])
    let relinked = try program.relinked()
    #expect(try BinaryLocator.buildID(ofFileAt: relinked.binary) == BinaryLocator.buildID(ofFileAt: program.binary))
    if inPlace {
      // The same inode, as `cp` over an existing file leaves it.
      let bytes = try FileReading.bytes(atPath: relinked.binary, limit: 1 << 30)
      let handle = try #require(FileHandle(forWritingAtPath: program.binary))
      try handle.truncate(atOffset: 0)
      try handle.write(contentsOf: Data(bytes))
      try handle.close()
    } else {
      #expect(rename(relinked.binary, program.binary) == 0)
    }
    #expect(rename(relinked.map, program.map) == 0)
    let after = Planned(program.binary, cache: cache, until: ["main"])
    #expect(after.read == 1 && after.fromCache == 0)
    #expect(after.entries == (try entriesNow(program.binary)))
    #expect(after.entries != before.entries)
    #expect(after.stops != before.stops)
    // And the new plan is the one kept.
    #expect(Planned(program.binary, cache: cache, until: ["main"]).fromCache == 1)
  }

  @Test("a changed map alone is planned afresh: the names it gives are the new map's")
  func changedMap() throws {
    let program = try MappedProgram()
    let cache = PlanCache(directory: program.work.file("cache"))
    #expect(Planned(program.binary, cache: cache).stops.count == 1)
    // Without the map, nothing names the function `hidden` so.
    try FileManager.default.removeItem(atPath: program.map)
    let unmapped = Planned(program.binary, cache: cache)
    #expect(unmapped.read == 1 && unmapped.stops.isEmpty)
    // A map of another link beside it: read, found stale, not used.
    let relinked = try program.relinked()
    try FileManager.default.copyItem(atPath: relinked.map, toPath: program.map)
    let stale = Planned(program.binary, cache: cache)
    #expect(stale.read == 1 && stale.stops.isEmpty)
    // The right map again, with new times: read again, and it names `hidden` again.
    try program.link(to: program.work.file("again"), map: program.work.file("again.map"))
    try FileManager.default.removeItem(atPath: program.map)
    try FileManager.default.copyItem(atPath: program.work.file("again.map"), toPath: program.map)
    let mapped = Planned(program.binary, cache: cache)
    #expect(mapped.read == 1 && mapped.stops.count == 1)
  }

  @Test(
    "a damaged plan file is ignored and planned afresh: garbage, cut short, one byte changed",
    arguments: ["garbage", "cut", "flipped"])
  func damagedFile(damage: String) throws {
    let program = try MappedProgram()
    let cache = PlanCache(directory: program.work.file("cache"))
    let first = Planned(program.binary, cache: cache)
    let file = try #require(cache.file(for: program.binary))
    var bytes = try FileReading.bytes(atPath: file)
    switch damage {
    case "garbage": bytes = Array(repeating: 0x5a, count: 4096)
    case "cut": bytes.removeLast(bytes.count / 3)
    default: bytes[bytes.count / 2] ^= 0x10
    }
    try AtomicFile.write(bytes, to: file)
    let again = Planned(program.binary, cache: cache)
    #expect(again.read == 1 && again.fromCache == 0)
    #expect(again.entries == first.entries && again.stops == first.stops)
    #expect(Planned(program.binary, cache: cache).fromCache == 1)
  }

  @Test("the plans used last are kept, older ones removed when one more is written")
  func leastRecentlyUsedRemoved() throws {
    let program = try MappedProgram()
    var cache = PlanCache(directory: program.work.file("cache"))
    cache.fileLimit = 2
    let copies = ["a", "b", "c"].map(program.work.file)
    for copy in copies { try FileManager.default.copyItem(atPath: program.binary, toPath: copy) }
    func plan(_ copy: String) -> Planned {
      // Apart on the file system's clock, which ticks in milliseconds.
      Thread.sleep(forTimeInterval: 0.02)
      return Planned(copy, cache: cache)
    }
    _ = plan(copies[0])
    _ = plan(copies[1])
    #expect(plan(copies[0]).fromCache == 1)
    _ = plan(copies[2])
    #expect(planFiles(cache.directory!).map { $0.prefix(2) } == ["a-", "c-"], "\(planFiles(cache.directory!))")
    #expect(plan(copies[0]).fromCache == 1 && plan(copies[1]).fromCache == 0)
  }

  @Test("two recordings planning at once both succeed and leave one whole plan; the summary says when it was cached")
  func concurrentRecordings() throws {
    let program = try MappedProgram()
    let directory = program.work.file("cache")
    let environment = ["ORDERFILE_CACHE_DIR": directory]
    func arguments(_ trace: String, _ extra: [String] = []) -> [String] {
      ["record", "--no-rebuild", "-o", program.work.file(trace)] + extra + ["--", program.binary]
    }
    // Both start together: whichever plans second may find the first one's plan already.
    let runs = try (0..<2).map { run in
      try BackgroundProcess(
        PackagePaths.orderfileExecutable, arguments("t\(run)"), environment: environment,
        outputIn: program.work.path, name: "record\(run)")
    }
    for run in runs {
      #expect(run.wait(upTo: .seconds(60)) { run.exitStatus != nil })
      #expect(run.exitStatus?.status == 0, "\(run.output)")
      #expect(run.output.contains("planned in"), "\(run.output)")
    }
    #expect(runs.contains { !$0.output.contains("plan cache") }, "\(runs.map(\.output))")
    // One plan, and no temporary left beside it; the next recording reads it whole.
    #expect(planFiles(directory).count == 1, "\(planFiles(directory))")
    let cached = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, arguments("t2"), environment: environment)
    #expect(cached.standardError.contains("(from the plan cache)"), "\(cached.standardError)")
    let uncached = try ProcessRunner.run(
      PackagePaths.orderfileExecutable, arguments("t3", ["--no-plan-cache"]), environment: environment)
    #expect(uncached.status == 0 && !uncached.standardError.contains("plan cache"), "\(uncached.standardError)")
  }
}

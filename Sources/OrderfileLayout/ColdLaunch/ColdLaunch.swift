import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// How a cold launch was counted.
public enum ColdLaunchMethod: String, Codable, Sendable, CaseIterable {
  /// Pages read: each file's cached pages dropped before the launch
  /// (`posix_fadvise(POSIX_FADV_DONTNEED)`), its cached pages read with `mincore` after it.
  /// Counts every page brought in, read-ahead included; needs no root.
  case pageCache = "page-cache"
  /// Major faults, one by one with their file offsets (`perf trace --no-syscalls -F maj`),
  /// besides the pages read; needs perf and the right to trace (root, or
  /// `kernel.perf_event_paranoid` low enough).
  case perf

  /// What `ColdCount.faults` counts under this method, for reports.
  public var countName: String { self == .perf ? "major faults (perf trace)" : "pages read (page cache)" }
}

/// One cold launch of a program: what it read of each of its own files, by section.
public struct ColdLaunch: Codable, Sendable, Equatable {
  public var command: [String]
  public var method: ColdLaunchMethod
  /// `exit` or `time-limit`.
  public var end: MeasurementEnd
  /// The program's exit status, or 128 + the signal that ended it.
  public var exitStatus: Int32
  /// Set when the tool ended a program still running at the time limit.
  public var endedByTool: Bool
  /// The page of the counts: the system's page, the page cache's unit.
  public var pageSize: UInt64
  /// The files made cold and counted, the executable first.
  public var modules: [ColdModule]
  /// With perf: major faults that name no file (taken inside the kernel, such as the ELF
  /// loader clearing the end of a data segment), counted in no module.
  public var majorFaultsWithoutFile: Int?

  public init(
    command: [String], method: ColdLaunchMethod, end: MeasurementEnd, exitStatus: Int32, endedByTool: Bool,
    pageSize: UInt64, modules: [ColdModule], majorFaultsWithoutFile: Int?
  ) {
    self.command = command
    self.method = method
    self.end = end
    self.exitStatus = exitStatus
    self.endedByTool = endedByTool
    self.pageSize = pageSize
    self.modules = modules
    self.majorFaultsWithoutFile = majorFaultsWithoutFile
  }

  /// The module that is the file at `path` (same device and inode), else one of that file name.
  public func module(for path: String) -> ColdModule? { modules.named(path) }
}

/// A count of one part of a file: pages read, and with perf its major faults.
public struct ColdCount: Codable, Sendable, Equatable {
  public var pagesRead: Int
  /// Nil unless the method was perf.
  public var majorFaults: Int?

  public init(pagesRead: Int, majorFaults: Int?) {
    self.pagesRead = pagesRead
    self.majorFaults = majorFaults
  }

  /// The count gates and comparisons use: the major faults where perf counted them (what the
  /// launch waited for), else the pages read.
  public var faults: Int { majorFaults ?? pagesRead }
}

/// What a cold launch read of one file.
public struct ColdModule: Codable, Sendable, Equatable, FileNamed {
  /// Per kind of section.
  public struct KindCount: Codable, Sendable, Equatable {
    public var kind: SectionKind
    public var count: ColdCount
  }

  /// Per section (the pages no section holds under `FileSectionMap.outsideName`).
  public struct SectionCount: Codable, Sendable, Equatable {
    public var name: String
    public var kind: SectionKind
    public var count: ColdCount
  }

  public var path: String
  /// The device it was read from, with its read-ahead; nil when it lies on none.
  public var device: StorageDevice?
  public var filePages: Int
  /// Pages still cached after the eviction (another running process maps them): the launch
  /// found them warm, and they are in no count. Zero for a cold file.
  public var residentBefore: Int
  public var total: ColdCount
  /// Every kind with a count above zero, in `SectionKind` order.
  public var kinds: [KindCount]
  /// Every section with a count above zero, most read first.
  public var sections: [SectionCount]

  /// The count of one kind (zero when none of it was read).
  public func count(of kind: SectionKind) -> ColdCount {
    kinds.first { $0.kind == kind }?.count ?? ColdCount(pagesRead: 0, majorFaults: total.majorFaults.map { _ in 0 })
  }

  /// Counts `pagesRead` (pages of `pageSize`) and `majorFaultOffsets` (file offsets, nil
  /// without perf) of one file by the sections of `map`: a page for the section holding
  /// most of it, a fault for the section holding its byte.
  public init(
    path: String, device: StorageDevice?, filePages: Int, residentBefore: Int, map: FileSectionMap,
    pagesRead: Set<UInt64>, pageSize: UInt64, majorFaultOffsets: [UInt64]?
  ) {
    self.path = path
    self.device = device
    self.filePages = filePages
    self.residentBefore = residentBefore
    var pages: [String: Int] = [:]
    var faults: [String: Int] = [:]
    var kindOf: [String: SectionKind] = [FileSectionMap.outsideName: .outsideSections]
    for page in pagesRead {
      let section = map.section(ofPage: page, pageSize: pageSize)
      let name = section?.name ?? FileSectionMap.outsideName
      if let section { kindOf[name] = SectionKind.of(section) }
      pages[name, default: 0] += 1
    }
    for offset in majorFaultOffsets ?? [] {
      let section = map.section(atOffset: offset)
      let name = section?.name ?? FileSectionMap.outsideName
      if let section { kindOf[name] = SectionKind.of(section) }
      faults[name, default: 0] += 1
    }
    let perf = majorFaultOffsets != nil
    sections = Set(pages.keys).union(faults.keys).map { name in
      SectionCount(
        name: name, kind: kindOf[name] ?? .outsideSections,
        count: ColdCount(pagesRead: pages[name] ?? 0, majorFaults: perf ? faults[name] ?? 0 : nil))
    }.sorted { ($1.count.faults, $1.count.pagesRead, $0.name) < ($0.count.faults, $0.count.pagesRead, $1.name) }
    total = ColdCount(pagesRead: pagesRead.count, majorFaults: majorFaultOffsets?.count)
    let sections = self.sections
    kinds = SectionKind.allCases.compactMap { kind in
      let members = sections.filter { $0.kind == kind }
      guard !members.isEmpty else { return nil }
      return KindCount(
        kind: kind,
        count: ColdCount(
          pagesRead: members.reduce(0) { $0 + $1.count.pagesRead },
          majorFaults: perf ? members.reduce(0) { $0 + ($1.count.majorFaults ?? 0) } : nil))
    }
  }
}

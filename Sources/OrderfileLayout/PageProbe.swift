import Foundation
import OrderfileSupport
import OrderfileSymbolization

#if canImport(Glibc)
  import Glibc
#endif

/// Pages of one module that a run really executed, counted by the page probe.
public struct MeasuredModule: Codable, Sendable, Equatable, FileNamed {
  /// The module as the loader named it (the main executable by its real path).
  public var path: String
  public var pages: [MeasuredPages]
}

/// Distinct pages touched at one page size.
public struct MeasuredPages: Codable, Sendable, Equatable {
  public var pageSize: UInt64
  public var pages: Int
}

/// Why the probe stopped counting.
public enum MeasurementEnd: String, Codable, Sendable, Equatable {
  /// The program ran to its end (or was ended after the window).
  case exit
  /// The first call of an `--until` function.
  case until
  /// `--time-limit` milliseconds after the start.
  case timeLimit = "time-limit"
}

/// One run of the shipped binary under the page probe (`libOrderfilePageProbe.so`).
public struct MeasuredLaunch: Codable, Sendable, Equatable {
  public var command: [String]
  public var end: MeasurementEnd
  /// The program's exit status, or 128 + the signal that ended it.
  public var exitStatus: Int32
  /// Set when the tool ended a program still running after the window closed.
  public var endedByTool: Bool
  /// The page the probe watched, as its output says: the system's page (4 KiB on x86-64; 4, 16
  /// or 64 KiB on arm64). Counts exist only at this size and its multiples.
  public var probePageSize: UInt64
  /// Every module of the program's own files the probe watched, the main executable first.
  public var modules: [MeasuredModule]

  /// The module that is the file at `path` (same device and inode), else one of that file name.
  public func module(for path: String) -> MeasuredModule? { modules.named(path) }
}

/// Runs a program once with the page probe preloaded and reads what it counted.
///
/// The probe (Sources/OrderfilePageProbe/page_probe.c) makes the code of the program's
/// own files unexecutable before the program's initializers run and records each page of
/// the system's size on its first fault (its output names that size); larger page sizes
/// are derived from the same addresses, as the estimate derives them from function
/// addresses. Smaller ones cannot be: on a 16 KiB system there are no 4 KiB counts.
public struct PageProbe {
  /// `libOrderfilePageProbe.so`.
  public var library: String
  public var pageSizes: [UInt64]
  /// Runs the program under another one (an emulator, for a program of another machine, whose
  /// `library` is then built for that machine): given the program's path, its arguments and
  /// the probe's variables, the command to start and its variables. Nil: the program itself.
  public var launcher: Launcher?

  public typealias Launcher =
    @Sendable (_ program: String, _ arguments: [String], _ environment: [String: String])
    -> (command: [String], environment: [String: String])

  public init(library: String, pageSizes: [UInt64] = [4096, 16384, 65536], launcher: Launcher? = nil) {
    self.library = library
    self.pageSizes = pageSizes
    self.launcher = launcher
  }

  /// The probe beside the runtime: `Scripts/build-runtime` and `Scripts/install` put both in one directory.
  public static let libraryName = "libOrderfilePageProbe.so"

  /// Function entries whose first call ends the count: ELF virtual addresses in `module`.
  public struct Until: Sendable, Equatable {
    public var module: String
    public var addresses: [UInt64]

    public init(module: String, addresses: [UInt64]) {
      self.module = module
      self.addresses = addresses
    }
  }

  /// Runs `program` once; the program's stdout goes to `standardOutput` (our stderr by
  /// default, so the report on stdout stays clean).
  ///
  /// - Parameters:
  ///   - until: ends the count at the first call of one of these entries.
  ///   - timeLimitMilliseconds: pages first touched later than this after the start are not counted.
  ///   After the count ends, a program still running is ended, with the processes it
  ///   started (`AfterLaunch.end`: SIGTERM, then SIGKILL after the grace period).
  public func measure(
    program: String, arguments: [String], until: Until? = nil, timeLimitMilliseconds: Int? = nil,
    standardOutput: Int32 = 2, environment extra: [String: String] = [:]
  ) throws -> MeasuredLaunch {
    guard FileManager.default.fileExists(atPath: library) else { throw LayoutError.noPageProbe(path: library) }
    let work = try ScratchDirectory.temporary(prefix: "orderfile-measure")
    defer { work.remove() }
    let output = work.file("pages.txt")
    var environment = extra
    environment["ORDERFILE_PAGE_PROBE_OUTPUT"] = output
    let inherited = ProcessInfo.processInfo.environment["LD_PRELOAD"].map { " " + $0 } ?? ""
    environment["LD_PRELOAD"] = library + inherited
    if let until, !until.addresses.isEmpty {
      // The probe compares it with the loader's names: the real, absolute path.
      let realPath = try Self.resolved(until.module)
      environment["ORDERFILE_PAGE_PROBE_UNTIL"] =
        realPath + "@" + until.addresses.map { String($0, radix: 16) }.joined(separator: ",")
    }
    var command = [program] + arguments
    if let launcher { (command, environment) = launcher(ProcessRunner.resolve(program), arguments, environment) }
    let start = MonotonicClock.nanoseconds()
    let deadline = timeLimitMilliseconds.map { start + UInt64($0) * 1_000_000 }
    let child = try ChildProcess.spawn(
      ProcessRunner.resolve(command[0]), arguments: command, environment: ChildProcess.environment(adding: environment),
      program: program, standardOutput: standardOutput,
      lastVariable: deadline.map { value in { "ORDERFILE_PAGE_PROBE_DEADLINE=\(value)" } })
    let (status, endedByTool) = Self.wait(for: child, deadline: deadline, output: output)
    guard let text = try? String(contentsOfFile: output, encoding: .utf8) else {
      throw LayoutError.probeWroteNothing(program: program, status: status)
    }
    var launch = try Self.parse(text, pageSizes: pageSizes, program: program)
    launch.command = [program] + arguments
    launch.exitStatus = status
    launch.endedByTool = endedByTool
    return launch
  }

  /// Runs `program` once with the loader pointed at the copy of a shared library at
  /// `library` (its SONAME a link to it in a directory of its own, first on
  /// `LD_LIBRARY_PATH`), and returns the launch with that very file's pages: an app's
  /// code in its own library is measured in the copy that ships, or in the relinked one.
  /// The module is nil when the loader took another copy (a `DT_RPATH`, which comes before
  /// `LD_LIBRARY_PATH`, or a different SONAME): a file of the same name is never taken for it.
  public func measure(
    library: String, program: String, arguments: [String], until: Until? = nil, timeLimitMilliseconds: Int? = nil
  ) throws -> (launch: MeasuredLaunch, module: MeasuredModule?) {
    let soname = (try? ELFSymbolizer(path: library).moduleLoading().soname) ?? nil
    let directory = try ScratchDirectory.temporary(prefix: "orderfile-library")
    defer { directory.remove() }
    let link = directory.file(soname ?? PathName.base(of: library))
    let target = try Self.resolved(library)
    guard symlink(target, link) == 0 else { throw SupportError.writing("symlink", path: link) }
    let inherited = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? ""
    let launch = try measure(
      program: program, arguments: arguments, until: until, timeLimitMilliseconds: timeLimitMilliseconds,
      environment: ["LD_LIBRARY_PATH": directory.path + inherited])
    let identity = FileIdentity(path: library)
    return (launch, launch.modules.first { identity != nil && FileIdentity(path: $0.path) == identity })
  }

  /// `path` with every link resolved, as the loader names the file it maps.
  private static func resolved(_ path: String) throws -> String {
    guard let real = ModuleFile.resolved(path) else {
      throw LayoutError.unresolvable(path: path, reason: String(cString: strerror(errno)))
    }
    return real
  }

  /// Waits for the child; once the count is over (the deadline passed, or the probe wrote
  /// its end line), a program still running is ended with the processes it started, since
  /// their pages no longer count.
  static func wait(for child: ChildProcess, deadline: UInt64?, output: String) -> (Int32, Bool) {
    let exit = ProgramEnding.wait(for: child.pid, afterLaunch: .end) {
      (deadline.map { MonotonicClock.nanoseconds() > $0 } ?? false) || Self.countEnded(output)
    }
    return (exit.status, exit.endedAfterLaunch)
  }

  private static func countEnded(_ output: String) -> Bool {
    guard let text = try? String(contentsOfFile: output, encoding: .utf8) else { return false }
    return text.contains("\nend ")
  }

  /// Reads the probe's output (format in page_probe.c). Counts are given for the sizes of
  /// `pageSizes` that are multiples of the probe's page, and only those.
  public static func parse(_ text: String, pageSizes: [UInt64], program: String) throws -> MeasuredLaunch {
    // A probe older than its `pagesize` line watched the system's page, which is this one's
    // unless an emulator stands between.
    var probePage = UInt64(max(sysconf(Int32(_SC_PAGESIZE)), 4096))
    var paths: [Int: String] = [:]
    var order: [Int] = []
    var pages: [Int: Set<UInt64>] = [:]
    var end = MeasurementEnd.exit
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
      switch words.first {
      case "pagesize":
        guard words.count == 2, let size = UInt64(words[1], radix: 16), size > 0, size & (size - 1) == 0 else {
          throw LayoutError.badProbeOutput(program: program, line: String(line))
        }
        probePage = size
      case "module":
        guard words.count == 4, let index = Int(words[1], radix: 16) else {
          throw LayoutError.badProbeOutput(program: program, line: String(line))
        }
        paths[index] = String(words[3])
        order.append(index)
      case "page":
        guard words.count == 3, let index = Int(words[1], radix: 16), let address = UInt64(words[2], radix: 16),
          paths[index] != nil
        else { throw LayoutError.badProbeOutput(program: program, line: String(line)) }
        pages[index, default: []].insert(address)
      case "end":
        end = words.count > 1 && words[1] == "until" ? .until : .timeLimit
      case "overflow":
        continue
      default:
        throw LayoutError.badProbeOutput(program: program, line: String(line))
      }
    }
    let measurable = pageSizes.filter { $0 >= probePage && $0 % probePage == 0 }
    let modules = order.map { index in
      let touched = pages[index] ?? []
      return MeasuredModule(
        path: paths[index] ?? "",
        pages: measurable.map { size in MeasuredPages(pageSize: size, pages: Set(touched.map { $0 / size }).count) })
    }
    return MeasuredLaunch(
      command: [program], end: end, exitStatus: 0, endedByTool: false, probePageSize: probePage, modules: modules)
  }
}

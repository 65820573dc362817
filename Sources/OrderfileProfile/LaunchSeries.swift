import OrderfileTrace

/// Several launches of one program side by side: each phase's median and spread.
///
/// One launch is too noisy to compare two builds by; the median of ten is the number for a
/// dashboard or a merge request, and the spread says how far to trust it. Phases are matched
/// by name (marks included), the time before main by part, so a phase that only some
/// launches have is summarized over those.
///
/// JSON field names are part of the tool's interface (Docs/Reference.md).
public struct LaunchSeries: Codable, Sendable, Equatable {
  /// One phase or part across the launches that have it. Nanoseconds.
  public struct Statistic: Codable, Sendable, Equatable {
    /// Which table it belongs to.
    public enum Group: String, Codable, Sendable {
      case phase
      case beforeMain
    }

    public var group: Group
    public var name: String
    /// Launches that have it.
    public var launches: Int
    public var medianNanoseconds: UInt64
    /// The middle half of the launches lies between these (linear interpolation).
    public var percentile25Nanoseconds: UInt64
    public var percentile75Nanoseconds: UInt64
    public var minimumNanoseconds: UInt64
    public var maximumNanoseconds: UInt64
    /// The runtime's start-up: not the program's own time.
    public var isOverhead: Bool
  }

  /// The program's executable, as recorded.
  public var program: String
  public var traces: [String]
  /// How many launches took their start from each source (`spawn`, `procStat`, `traceStart`).
  public var processStartSources: [String: Int]
  public var statistics: [Statistic]

  /// Summarizes profiles of launches of one program, in the order given.
  ///
  /// - Throws: `ProfileError.differentPrograms` when their executables differ.
  public init(profiles: [(trace: Trace, profile: StartupProfile)]) throws {
    let programs = profiles.map { $0.trace.modules.first(where: \.isMainExecutable)?.path ?? "" }
    if let first = programs.first, let other = programs.firstIndex(where: { $0 != first }) {
      throw ProfileError.differentPrograms(
        first: profiles[0].trace.path, firstProgram: first, other: profiles[other].trace.path,
        otherProgram: programs[other])
    }
    program = programs.first ?? ""
    traces = profiles.map(\.trace.path)
    processStartSources = Dictionary(profiles.map { ($0.profile.processStartSource.name, 1) }, uniquingKeysWith: +)

    var order: [(group: Statistic.Group, name: String, overhead: Bool)] = []
    var samples: [String: [UInt64]] = [:]
    func add(_ group: Statistic.Group, _ name: String, _ value: UInt64, overhead: Bool = false) {
      let key = group.rawValue + "\u{0}" + name
      if samples[key] == nil { order.append((group, name, overhead)) }
      samples[key, default: []].append(value)
    }
    for (_, profile) in profiles {
      // A name that repeats within one launch (a mark set twice) is told apart by its number.
      var seen: [String: Int] = [:]
      for phase in profile.phases {
        seen[phase.name, default: 0] += 1
        let name = seen[phase.name] == 1 ? phase.name : "\(phase.name) (\(seen[phase.name]!))"
        add(.phase, name, phase.durationNanoseconds)
      }
      if let preMain = profile.preMain {
        add(.beforeMain, "process start → main", preMain.mainNanoseconds)
        // Only a runtime has a start-up of its own to leave out; a trace recorded without a
        // rebuild would repeat the line above.
        if preMain.runtimeStartupNanoseconds != nil {
          add(.beforeMain, "process start → main, without the runtime", preMain.programNanoseconds)
        }
        for part in preMain.parts { add(.beforeMain, part.name, part.durationNanoseconds, overhead: part.isOverhead) }
      }
      // Taken out of every time above, so not a part of them: shown beside, as overhead.
      if let overhead = profile.recorderOverhead {
        add(.beforeMain, "recorder arming (overhead, taken out)", overhead.armingNanoseconds, overhead: true)
        add(.phase, "recorder traps (overhead, taken out)", overhead.trapsNanoseconds, overhead: true)
        if overhead.childrenNanoseconds > 0 {
          add(
            .phase, "children's recorder time waited for (overhead, taken out)", overhead.childrenNanoseconds,
            overhead: true)
        }
      }
    }
    statistics = order.map { entry in
      let values = samples[entry.group.rawValue + "\u{0}" + entry.name, default: []].sorted()
      return Statistic(
        group: entry.group, name: entry.name, launches: values.count,
        medianNanoseconds: Self.quantile(values, 0.5), percentile25Nanoseconds: Self.quantile(values, 0.25),
        percentile75Nanoseconds: Self.quantile(values, 0.75), minimumNanoseconds: values.first ?? 0,
        maximumNanoseconds: values.last ?? 0, isOverhead: entry.overhead)
    }
  }

  /// The quantile `q` of sorted values, interpolated linearly between neighbours (the
  /// median of an even count is the mean of the middle two).
  static func quantile(_ sorted: [UInt64], _ q: Double) -> UInt64 {
    guard let first = sorted.first else { return 0 }
    guard sorted.count > 1 else { return first }
    let position = q * Double(sorted.count - 1)
    let below = Int(position.rounded(.down))
    let above = min(below + 1, sorted.count - 1)
    let fraction = position - Double(below)
    return UInt64((Double(sorted[below]) + (Double(sorted[above]) - Double(sorted[below])) * fraction).rounded())
  }
}

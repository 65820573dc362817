import Foundation
import OrderfileMerge
import OrderfileOrdering
import OrderfileSupport
import OrderfileTrace

/// `orderfile merge`: the traces of several launches as one orderfile per module.
public struct MergeRequest: Sendable {
  public var traces: [WeightedTrace]
  public var orderfiles: OrderfileOptions
  /// The orderfile this merge replaces, or with a directory destination the directory of them.
  public var previous: String?
  /// Merge runs of different builds of a module, matching functions by name.
  public var allowMixedBuilds: Bool
  /// List every entry in the report.
  public var list: Bool
  /// Text or JSON.
  public var reportFormat: ReportFormat

  public init(
    traces: [WeightedTrace], orderfiles: OrderfileOptions, previous: String? = nil, allowMixedBuilds: Bool = false,
    list: Bool = false, reportFormat: ReportFormat = .text
  ) {
    self.traces = traces
    self.orderfiles = orderfiles
    self.previous = previous
    self.allowMixedBuilds = allowMixedBuilds
    self.list = list
    self.reportFormat = reportFormat
  }

  public func run() throws -> CommandOutput {
    guard !orderfiles.formatGiven else { return try merged(readTrace: { try TraceReader.read(path: $0) }) }
    // The traces decide the format, and the format how the merge places code without a
    // symbol: each trace is read here, once, and the merge takes it from here.
    var read: [String: Trace] = [:]
    for input in traces where read[input.path] == nil { read[input.path] = try TraceReader.read(path: input.path) }
    let cache = read
    var request = self
    let note: String?
    (request.orderfiles, note) = orderfiles.choosingFormat(for: traces.compactMap { cache[$0.path] })
    var output = try request.merged(readTrace: { try cache[$0] ?? TraceReader.read(path: $0) })
    if let note { output.note(note) }
    return output
  }

  /// The merge in `orderfiles.format`, reading each trace with `readTrace`.
  private func merged(readTrace: @escaping (String) throws -> Trace) throws -> CommandOutput {
    let merger = TraceMerger(
      selection: orderfiles.selection, binaries: orderfiles.binaries,
      builder: OrderBuilder(
        includePostWindow: orderfiles.includePostWindow,
        placeCodeWithoutSymbol: orderfiles.format.placesCodeWithoutSymbol), allowMixedBuilds: allowMixedBuilds,
      readTrace: readTrace, previousOrder: try previousOrders(), release: orderfiles.release)
    let merge = try merger.merge(traces)
    var output = try orderfiles.finish(
      merge.modules.map { $0.orderfile(orderfiles.format) }, reportFormat: reportFormat,
      text: MergeTextRenderer(listFunctions: list),
      report: { written in
        var outputs: [String: String] = [:]
        for (module, path) in zip(merge.modules, written) { outputs[module.name] = path }
        return MergeReport(
          merge, format: orderfiles.format, outputs: outputs, includeFunctions: list,
          releaseBinaries: orderfiles.releaseBinaries)
      }, matchRate: merge.matchRate, matchRateNote: " (the lowest of any run)")
    if !merge.withoutLaunchRecords.isEmpty {
      output.note(
        "skipped \(TextFormatting.count(merge.withoutLaunchRecords.count, "trace")) without launch records (a process that ran none of the program's functions in its window, such as a system program the launch started): \(merge.withoutLaunchRecords.joined(separator: ", "))"
      )
    }
    return output
  }

  /// The previous order of each module, by its orderfile name: the file itself, or
  /// `<dir>/<name>.<ext>` when `previous` is a directory (a module without one there has none).
  func previousOrders() throws -> (String) throws -> PreviousOrder? {
    guard let previous else { return { _ in nil } }
    func read(_ path: String) throws -> PreviousOrder {
      PreviousOrder(source: path, names: try Orderfile.read(path: path).names)
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: previous, isDirectory: &isDirectory), isDirectory.boolValue {
      let format = orderfiles.format
      return { name in
        let path = previous + "/" + name + "." + format.fileExtension
        return FileManager.default.fileExists(atPath: path) ? try read(path) : nil
      }
    }
    if case .directory = orderfiles.destination { throw MergeError.previousNotDirectory(path: previous) }
    let order = try read(previous)
    return { _ in order }
  }
}

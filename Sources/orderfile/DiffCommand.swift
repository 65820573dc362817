import ArgumentParser
import Foundation
import OrderfileSupport
import OrderfileLayout
import OrderfileDiff

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare two orderfiles for a merge request: what changed, and what it costs in launch pages.",
    discussion: """
      Prints Markdown for a merge request (GitHub and GitLab render its
      tables): entries added, removed and moved, the rank correlation of the
      two orders, and the largest changes, [NEW] and [DEL] entries and signed
      moves, largest first, the rest folded into [N others]. A moved entry is
      one out of the order both files share, and its move is the number of
      shared entries it jumped over (negative: earlier in the launch); an
      entry only pushed down by an insertion is not moved.

      With --trace and --binary, also the launch pages under each orderfile at
      4 KiB and 16 KiB, with signed deltas: the numbers 'orderfile estimate
      --order' prints for each. --fail-if-pages-regress exits 1 when the head
      needs more than that many percent more pages than the base.

      Examples:
        orderfile diff app.order new/app.order > report.md
        orderfile diff app.order new/app.order --trace launch.trace \\
          --binary build/release/app --fail-if-pages-regress 2
        orderfile diff app.order new/app.order --csv > changes.csv
      """
  )

  @Argument(
    help: ArgumentHelp("The orderfile before, e.g. the committed one (an empty file is fine).", valueName: "base"))
  var base: String

  @Argument(help: ArgumentHelp("The orderfile after.", valueName: "head"))
  var head: String

  @Option(
    help: ArgumentHelp(
      "A launch trace, to estimate the pages under each orderfile (with --binary).", valueName: "trace"))
  var trace: String?

  @Option(
    help: ArgumentHelp(
      "The binary whose layout to estimate, linked without an orderfile (the release or the instrumented build; with --trace).", valueName: "path"))
  var binary: String?

  @Option(
    help: ArgumentHelp(
      "The trace module that corresponds to --binary (default: matched by build-id or file name).", valueName: "name"))
  var module: String?

  @Option(
    name: .customLong("instrumented"),
    help: ArgumentHelp(
      "Where to find the instrumented binary the trace recorded, if it moved (repeatable).", valueName: "path"))
  var instrumented: [String] = []

  @Option(
    help: ArgumentHelp(
      "Exit 1 when the head needs more than this many percent more launch pages than the base, at 4 KiB or 16 KiB: 2 or 2%.",
      valueName: "pct"))
  var failIfPagesRegress: String?

  @Option(
    help: ArgumentHelp("Changes listed in the Markdown before the rest are folded into one row.", valueName: "rows"))
  var limit: Int = 20

  @Option(help: ArgumentHelp("How to name the base in the report (default: its path).", valueName: "name"))
  var baseLabel: String?

  @Option(help: ArgumentHelp("How to name the head in the report (default: its path).", valueName: "name"))
  var headLabel: String?

  @Flag(help: "Print the changes as CSV: one row per changed entry, none folded.")
  var csv = false

  @OptionGroup var output: OutputOptions

  func validate() throws {
    if (trace == nil) != (binary == nil) {
      throw ValidationError("--trace and --binary go together: give both or neither")
    }
    if let failIfPagesRegress {
      guard Self.parsePercent(failIfPagesRegress) != nil else {
        throw ValidationError(
          "--fail-if-pages-regress: '\(failIfPagesRegress)' is not a percentage of 0 or more, e.g. 2 or 2%")
      }
      if trace == nil { throw ValidationError("--fail-if-pages-regress needs --trace and --binary to estimate pages") }
    }
    if limit < 1 { throw ValidationError("--limit must be at least 1") }
    if csv && output.json { throw ValidationError("give --json or --csv, not both") }
  }

  static func parsePercent(_ text: String) -> Double? {
    let number = text.hasSuffix("%") ? String(text.dropLast()) : text
    guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
    return value
  }

  func run() throws {
    try reportingErrors {
      let comparison = OrderfileComparison(
        basePath: base, headPath: head, baseLabel: baseLabel, headLabel: headLabel,
        estimate: trace.flatMap { trace in
          binary.map {
            OrderfileComparison.EstimateInputs(
              tracePath: trace, binaryPath: $0, module: module, searchPaths: instrumented)
          }
        },
        gateThresholdPercent: failIfPagesRegress.flatMap(Self.parsePercent))
      let report = try comparison.run()
      if let caution = report.pages?.reorderedBinary, let binary {
        Diagnostics.warning(caution.message(binary: binary))
      }
      let text: String
      if output.json {
        text = try JSONRenderer().render(report)
      } else if csv {
        text = DiffCSVRenderer().render(report)
      } else {
        text = DiffMarkdownRenderer(limit: limit).render(report)
      }
      FileHandle.standardOutput.write(Data(text.utf8))

      if let gate = report.gate, !gate.passed {
        let growth = gate.worstPercent.map { String(format: "%+.1f%%", $0) } ?? "from 0"
        let size = gate.worstPageSize.map { " at \(formatBytes($0)) pages" } ?? ""
        Diagnostics.write(
          "orderfile: error: launch pages grow \(growth)\(size), more than --fail-if-pages-regress allows (\(String(format: "%g", gate.thresholdPercent))%)"
        )
        throw ExitCode(ExitStatus.gateFailed.rawValue)
      }
    }
  }
}

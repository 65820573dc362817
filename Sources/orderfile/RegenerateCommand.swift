import ArgumentParser
import OrderfileCommands

struct RegenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "regenerate",
    abstract: "The daily job: rebuild, record, merge, relink, verify and diff the orderfiles of a project.",
    discussion: """
      Reads a configuration file (YAML, default orderfile.yml) and checks all
      of it before running anything. Then:

      1. runs its build command: the release binaries as they ship, linked
         with the committed orderfiles;
      2. records each launch scenario 'runs' times: the release binaries
         themselves, without a rebuild (or an instrumented build, when the
         file has an 'instrumented' section), with their read-only data when
         the file says 'data: true' (as record --data);
      3. merges the runs as 'merge' does (the data too), keeping the order of
         the committed orderfiles where the runs agree with it (merge
         --previous), and checks the entries against the shipped binaries
         (merge --release-binary);
      4. runs the relink command with the new orderfiles in $ORDERFILE_NEW_DIR;
      5. verifies each relinked binary against its new orderfile (the gate
         min-in-order, 95% unless the file sets it);
      6. compares: per module, entries added, removed and moved, the launch
         pages of the shipped and the relinked binary, and how many entries of
         the committed orderfile the code no longer has;
      7. gates each module on what the file's gates set (min-match,
         max-page-growth, max-cold-growth: the names and values of the
         options of generate and diff), and writes the merge-request body
         (Markdown).

      When nothing changed it says "no change" and exits 0. For a merge
      request, --orderfiles names the base branch's orderfiles and --check
      leaves them as they are. When the order
      changed and every gate passed, it replaces the committed orderfiles for
      the CI job to commit. When a gate fails it exits 1, names the module,
      and replaces nothing. A configured command that fails exits 2.

      Configured commands run with /bin/sh in the file's directory and see
      ORDERFILE_NEW_DIR, ORDERFILE_ORDER_DIR (the committed orderfiles),
      ORDERFILE_WORK and, for an instrumented build, ORDERFILE_CFLAGS and
      ORDERFILE_LDFLAGS. Progress goes to stderr; the programs' and the
      commands' output to logs in the work directory.

      Example configuration (every key: Docs/Reference.md):
        orderfiles: orderfiles
        build: cmake -S . -B build -DORDER_DIR=orderfiles && cmake --build build
        relink: cmake -S . -B build -DORDER_DIR="$ORDERFILE_NEW_DIR" && cmake --build build
        binaries:
          app: build/app
        scenarios:
          - name: cold
            weight: 3
            command: [app, --quit-after-launch]
        runs: 5
        gates:
          min-match: 90%
          max-page-growth: 2%

      Examples:
        orderfile regenerate
        orderfile regenerate --config ci/orderfile.yml --report out/body.md
        orderfile regenerate --json > regeneration.json
      """
  )

  @Option(help: ArgumentHelp("The configuration file.", valueName: "file"))
  var config = "orderfile.yml"

  @Option(help: ArgumentHelp("Runs of each scenario, instead of the file's 'runs'.", valueName: "count"))
  var runs: Int?

  @Option(
    help: ArgumentHelp("Where to write the merge-request body, instead of the file's 'report'.", valueName: "file"))
  var report: String?

  @Option(
    help: ArgumentHelp(
      "Compare with the orderfiles in this directory instead of the file's 'orderfiles' (a merge request: the base branch's).",
      valueName: "dir"))
  var orderfiles: String?

  @Option(help: ArgumentHelp("The scratch directory (traces, logs), instead of the file's 'work'.", valueName: "dir"))
  var work: String?

  @Flag(help: "Never replace the orderfiles: report and gate only (a merge request's check).")
  var check = false

  @Flag(help: "Add each step's wall time to the report (then two runs' reports differ).")
  var timings = false

  @Flag(name: .shortAndLong, help: "Show no progress on stderr.")
  var quiet = false

  @OptionGroup var output: OutputFormatOptions<MarkdownOrJSONFlag>

  func validate() throws {
    if let runs, runs < 1 { throw ValidationError("--runs must be at least 1") }
  }

  func run() throws {
    let display = quiet ? nil : ProgressDisplay()
    try Terminal.run {
      try RegenerateRequest(
        configuration: config,
        options: RegenerationOptions(
          runs: runs, report: report, timings: timings, orderfileDirectory: orderfiles, check: check,
          workDirectory: work),
        reportFormat: output.format, progress: { display?.show($0) }
      ).run()
    }
  }
}

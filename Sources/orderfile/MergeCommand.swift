import ArgumentParser
import OrderfileCommands

struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge the traces of several launches into one orderfile.",
    discussion: """
      Each function is placed by the weighted median of its normalized
      first-call rank over the runs (0 = start of the launch, 1 = its end), so
      one run with an unusual thread schedule cannot reorder the file.
      Functions every run recorded come first; functions only some runs
      recorded follow, those seen in the most weight first. Ties are broken by
      the mean rank, then by name: the output does not depend on the order of
      the traces.

      A trace may carry a weight, TRACE:WEIGHT (default 1): a run of weight 2
      counts as two identical runs. Weight launch scenarios by how often users
      meet them, e.g. cold launches 3, launches from a notification 1.

      --previous names the orderfile the merge replaces (or, with --output-dir,
      the directory of them). Two functions then keep their previous order
      unless runs with over 90% of the weight reverse it and every run called
      the two on one thread: an order that differs only by thread timing (a
      worker that starts early in some launches, late in others; a pool that
      runs two jobs on one worker in some launches, on two in others) is kept,
      so unchanged code gives the same orderfile from one day's merge to the
      next. A function the runs
      move goes just after the functions that must precede it.

      Modules are matched across runs by file name (or by build-id or real
      file where runs named one library by its SONAME link and by its real
      file) and must come from one build (the same build-id) unless
      --allow-mixed-builds is given. With --output-dir, orderfiles are named
      as 'generate' names them.

      The file places what 'generate' places from one trace: the launch's
      data of runs recorded with 'record --data', ranked as functions are;
      in an lld script also code without a symbol and an async main last.

      Examples:
        orderfile merge run1.trace run2.trace run3.trace -o app.order
        orderfile merge cold-*.trace:3 notification-*.trace:1 --output-dir orders
        orderfile merge runs/*.trace -o new.order --previous app.order
        orderfile merge runs/*.trace -o app.order --list --json
      """
  )

  // A transform, not ExpressibleByArgument: a bad weight is reported with its reason.
  @Argument(
    help: ArgumentHelp("Traces to merge, each optionally weighted as TRACE:WEIGHT.", valueName: "trace[:weight]"),
    transform: WeightedTrace.init(argument:))
  var traces: [WeightedTrace]

  @OptionGroup var orderfiles: OrderfileOptionGroup

  @Option(
    help: ArgumentHelp(
      "The orderfile this merge replaces (a directory of them with --output-dir): keep functions whose runs agree with it in place.",
      valueName: "path"))
  var previous: String?

  @Flag(help: "Merge runs of different builds of a module, matching functions by name.")
  var allowMixedBuilds = false

  @Flag(help: "List every entry with its median and mean rank, runs and presence.")
  var list = false

  @OptionGroup var output: OutputFormatOptions<JSONFlag>

  func run() throws {
    try Terminal.run {
      try MergeRequest(
        traces: traces, orderfiles: orderfiles.options, previous: previous, allowMixedBuilds: allowMixedBuilds,
        list: list, reportFormat: output.format
      ).run()
    }
  }
}

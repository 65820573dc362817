"""norebuild: recording the release binary itself (`orderfile record --no-rebuild`) against
recording the instrumented build: what each sees, how their orders agree, the launch pages of
the binary relinked with each order, and what recording costs."""

import json
import os
import shutil
import statistics
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import ROOT, verdict
from ..model import json_name
from ..process import clear_dir, find_tool, interleave, run_checked, run_measured
from ..realprograms import PROGRAMS
from ..estimate import PAGE_SIZES, launch_pages
from ..section import Section
from ..stats import Summary

COST_GOAL = 3.0  # recording a launch costs at most 3x the uninstrumented launch
LAYOUTS = ["default", "instrumented order", "release order"]
SAMPLE = 5  # names shown of each "seen by one mode only" list
EXAMPLE = os.path.join(ROOT, "Examples", "launchpad")


@dataclass
class Agreement:
    """Both recordings of one program's launch, and the binary relinked with each order."""
    program: str
    command: str
    instrumented_functions: int   # orderfile entries from the instrumented build's trace
    release_functions: int        # orderfile entries from the release binary's trace
    shared: int
    kendall_tau: float
    only_instrumented: int
    only_instrumented_sample: list[str]
    only_release: int
    only_release_sample: list[str]
    pages: dict[str, dict[str, int]]  # layout -> page size (str) -> launch pages of the relinked binary
    lower_bound: dict[str, int]       # page size (str) -> pages
    lld_warnings: dict[str, int]      # layout -> warning lines of the relink
    verified: dict[str, bool]         # layout -> orderfile verify PASS
    passed: bool = json_name("pass")  # release order: as few pages as the instrumented one, no warnings


@dataclass
class Cost:
    program: str
    command: str
    rounds: int
    wall: dict[str, Summary]           # variant -> wall time of the whole command
    vs_uninstrumented: dict[str, float]
    passed: bool = json_name("pass")   # the recorder costs at most COST_GOAL x the launch
    # The launch itself under the tracer, process start (the fork) to exit, from each trace
    # (`orderfile report --json`): the recorder's command less its own start-up and writing.
    traced_launch: Summary | None = None
    traced_vs_uninstrumented: float | None = None


@dataclass
class CxxBuild:
    """A C++ library and its program (tinyxml2: libtinyxml2.so, xmltest) built for release with
    one compiler, recorded without a rebuild, relinked with an orderfile per module."""
    compiler: str
    modules: list[str]
    entries: dict[str, int]       # module -> orderfile entries
    lld_warnings: int
    verified: dict[str, bool]     # module -> verify PASS
    passed: bool = json_name("pass")


@dataclass
class NoRebuildResult:
    goal: str
    agreements: list[Agreement]
    costs: list[Cost]
    passed: bool = json_name("pass")
    cxx: list[CxxBuild] = field(default_factory=list)  # reports saved before it was measured have none


def kendall_tau(first, second):
    """Kendall's tau-a of the shared names' positions in two orders (1: same order)."""
    rank = {name: i for i, name in enumerate(second)}
    shared = [rank[name] for name in first if name in rank]
    n = len(shared)
    if n < 2:
        return 1.0
    concordant = discordant = 0
    for i in range(n):
        a = shared[i]
        for b in shared[i + 1:]:
            if b > a:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / (n * (n - 1) / 2)


def _entries(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _warnings(stderr):
    return sum(1 for line in stderr.splitlines() if "warning:" in line)


def _verify(tool, binary, order):
    _, _, out, _ = run_measured([tool, "verify", "--binary", binary, "--order", order], "orderfile verify",
                                check=False)
    return "\nPASS" in "\n" + out


class _Subject:
    """What the section needs of one program: its builds, how to record and relink it."""
    name: str
    command: str
    default: str       # the release binary, default layout
    instrumented: str  # the instrumented build of the same sources
    args: list[str]
    until: list[str] = []
    instrumented_env: dict = {}

    def relink(self, name, order):
        """The release binary linked with `order` (or none); returns (path, lld's stderr)."""
        raise NotImplementedError


class _RealProgram(_Subject):
    def __init__(self, ctx, program):
        self.ctx, self.program = ctx, program
        b = ctx.build(program)
        self.build = b
        self.name, self.command, self.args = program.name, program.launch_text, program.launch_args
        self.default, self.instrumented = b.exes.default, b.exes.instr
        self.instrumented_env = {"LD_LIBRARY_PATH": ctx.hooks.rtime}
        self.instrumented_order = ctx.launch(program).order

    def relink(self, name, order):
        exe = os.path.join(self.build.dir, f"{self.name}-norebuild-{name}")
        ordering = [f"-Wl,--symbol-ordering-file={order}"] if order else []
        _, _, _, err = run_measured(self.build.link + ordering + self.build.objects + ["-o", exe] + self.build.libs,
                                    f"relinking {self.name} ({name})")
        return exe, err


class _Example(_Subject):
    """The bundled example, built with its own Makefile (the executable is measured)."""
    name, command, args = "launchpad", "launchpad", []
    until = ["launch_ready"]

    def __init__(self, ctx):
        self.ctx = ctx
        self.dir = os.path.join(ctx.scratch, "norebuild-example")
        self.default = self._make("release", "default")[0]
        self.instrumented = self._make("instrumented", "instrumented", [f"ORDERFILE_RUNTIME_DIR={ctx.runtime.dir}"])[0]
        self.instrumented_env = {}
        trace = os.path.join(self.dir, "instrumented.trace")
        run_checked([ctx.orderfile, "record", "--instrumented", "-q", "-o", trace, "--", self.instrumented],
                    "recording the example's instrumented build", env=ctx.env())
        self.instrumented_order = os.path.join(self.dir, "instrumented.order")
        run_checked([ctx.orderfile, "generate", trace, "--module", "launchpad", "-o", self.instrumented_order],
                    "orderfile generate (the example, instrumented)", env=ctx.env())

    def _make(self, target, name, extra=()):
        build = os.path.join(self.dir, name)
        _, _, _, err = run_measured(["make", "-s", "-C", EXAMPLE, target, "CC=" + self.ctx.cc, "BUILD_DIR=" + build]
                                    + list(extra), f"building the example ({name})", env=self.ctx.env())
        return os.path.join(build, "launchpad"), err

    def relink(self, name, order):
        return self._make("release", "relinked-" + name.replace(" ", "-"), [f"ORDER_FILE={order}"] if order else [])


def _agreement(ctx, subject, traces):
    tool = ctx.orderfile
    trace = os.path.join(traces, f"{subject.name}.trace")
    run_checked([tool, "record", "--no-rebuild", "-q", "-o", trace]
                + [f"--until={name}" for name in subject.until] + ["--", subject.default] + subject.args,
                f"recording {subject.name} without a rebuild", env=ctx.env())
    release_order = os.path.join(traces, f"{subject.name}.order")
    module = os.path.basename(subject.default)
    run_checked([tool, "generate", trace, "--module", module, "-o", release_order],
                f"orderfile generate ({subject.name}, release binary)", env=ctx.env())
    instrumented, release = _entries(subject.instrumented_order), _entries(release_order)
    in_release = set(release)
    in_instrumented = set(instrumented)
    only_instrumented = [n for n in instrumented if n not in in_release]
    only_release = [n for n in release if n not in in_instrumented]
    pages, warnings, verified, bound = {}, {}, {}, {}
    for layout, order in [("default", None), ("instrumented order", subject.instrumented_order),
                          ("release order", release_order)]:
        exe, err = subject.relink(layout, order)
        warnings[layout] = _warnings(err)
        pages[layout], bound = launch_pages(tool, trace, exe)
        if order:
            verified[layout] = _verify(tool, exe, order)
    passed = (all(pages["release order"][s] <= pages["instrumented order"][s] for s in pages["default"])
              and warnings["release order"] == 0 and verified["release order"])
    return Agreement(
        program=subject.name, command=subject.command, instrumented_functions=len(instrumented),
        release_functions=len(release), shared=len(in_release & in_instrumented),
        kendall_tau=kendall_tau(instrumented, release),
        only_instrumented=len(only_instrumented), only_instrumented_sample=only_instrumented[:SAMPLE],
        only_release=len(only_release), only_release_sample=only_release[:SAMPLE],
        pages=pages, lower_bound=bound, lld_warnings=warnings, verified=verified, passed=passed)


def _cost(ctx, subject, traces, rounds):
    tool = ctx.orderfile
    scratch = os.path.join(traces, "cost")
    os.makedirs(scratch, exist_ok=True)
    variants = {
        "uninstrumented": ([subject.default] + subject.args, {}),
        "recorder": ([tool, "record", "--no-rebuild", "-q", "-o", os.path.join(scratch, "r.trace"), "--",
                      subject.default] + subject.args, {}),
        "runtime": ([subject.instrumented] + subject.args,
                    dict(subject.instrumented_env, ORDERFILE_OUTPUT=os.path.join(scratch, "i-%p.trace"))),
    }

    launches = []

    def measure(name):
        cmd, extra = variants[name]
        wall = run_measured(cmd, f"{subject.name} ({name})", env=ctx.env(extra))[0]
        if name == "recorder":
            report = json.loads(run_checked([tool, "report", os.path.join(scratch, "r.trace"), "--json"],
                                            "orderfile report", env=ctx.env()))
            launches.append(max(p["endNanoseconds"] for p in report["phases"]) / 1e9)
        return wall

    for name in variants:
        measure(name)  # warm-up
    launches.clear()
    timed = interleave(list(variants), rounds, measure, f"norebuild: cost of {subject.name}",
                       lambda: clear_dir(scratch))
    walls = {name: [r[name] for r in timed] for name in variants}
    medians = {name: statistics.median(w) for name, w in walls.items()}
    ratios = {name: medians[name] / medians["uninstrumented"] for name in variants}
    traced = Summary.of(launches)
    return Cost(program=subject.name, command=subject.command, rounds=rounds,
                wall={name: Summary.of(w) for name, w in walls.items()}, vs_uninstrumented=ratios,
                passed=ratios["recorder"] <= COST_GOAL, traced_launch=traced,
                traced_vs_uninstrumented=traced.median / medians["uninstrumented"])


CXX_MODULES = ["xmltest", "libtinyxml2.so"]


def _cxx(ctx, compiler, traces):
    """tinyxml2 from its Debian source with `compiler` (g++ or clang++), both modules ordered."""
    tool = ctx.orderfile
    tree = ctx.sources["tinyxml2"].tree
    cxx = find_tool(compiler, ctx.environ)
    lld_dir = os.path.dirname(ctx.lld)
    env = ctx.env({"PATH": lld_dir + os.pathsep + ctx.environ.get("PATH", "")})
    d = os.path.join(traces, "tinyxml2-" + compiler)
    os.makedirs(d, exist_ok=True)
    flags = ["-O2", "-g", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id"]

    def link(name, orders=None):
        out = os.path.join(d, name)
        os.makedirs(out, exist_ok=True)
        lib_order = [f"-Wl,--symbol-ordering-file={orders}/libtinyxml2.so.order"] if orders else []
        exe_order = [f"-Wl,--symbol-ordering-file={orders}/xmltest.order"] if orders else []
        _, _, _, lib_err = run_measured([cxx] + flags + ["-fPIC", "-shared", "-Wl,-soname,libtinyxml2.so",
                                                         os.path.join(tree, "tinyxml2.cpp"), "-o",
                                                         os.path.join(out, "libtinyxml2.so")] + lib_order,
                                        f"building libtinyxml2.so ({compiler}, {name})", env=env)
        _, _, _, exe_err = run_measured([cxx] + flags + ["-I" + tree, os.path.join(tree, "xmltest.cpp"), "-o",
                                                         os.path.join(out, "xmltest"), "-L" + out, "-ltinyxml2",
                                                         "-Wl,-rpath," + out] + exe_order,
                                        f"building xmltest ({compiler}, {name})", env=env)
        resources = os.path.join(out, "resources")
        if not os.path.isdir(resources):  # xmltest reads and writes resources/ in its working directory
            shutil.copytree(os.path.join(tree, "resources"), resources)
        return out, _warnings(lib_err + exe_err)

    default, _ = link("default")
    trace = os.path.join(d, "launch.trace")
    run_measured([tool, "record", "--no-rebuild", "-q", "-o", trace, "--", os.path.join(default, "xmltest")],
                 f"recording xmltest ({compiler}) without a rebuild", env=ctx.env(), cwd=default)
    orders = os.path.join(d, "orders")
    run_checked([tool, "generate", trace, "--output-dir", orders], f"orderfile generate (tinyxml2, {compiler})",
                env=ctx.env())
    ordered, warnings = link("ordered", orders)
    entries = {m: len(_entries(os.path.join(orders, m + ".order"))) for m in CXX_MODULES}
    verified = {m: _verify(tool, os.path.join(ordered, m), os.path.join(orders, m + ".order")) for m in CXX_MODULES}
    return CxxBuild(compiler=compiler, modules=CXX_MODULES, entries=entries, lld_warnings=warnings,
                    verified=verified, passed=warnings == 0 and all(verified.values()))


def run(ctx):
    traces = os.path.join(ctx.scratch, "norebuild")
    os.makedirs(traces, exist_ok=True)
    subjects = [_Example(ctx)] + [_RealProgram(ctx, p) for p in PROGRAMS]
    agreements = [_agreement(ctx, s, traces) for s in subjects]
    rounds = max(ctx.options.runs, 10)
    costs = [_cost(ctx, s, traces, rounds) for s in subjects]
    cxx = [_cxx(ctx, compiler, traces) for compiler in ("g++", "clang++")]
    return NoRebuildResult(
        goal=f"from the release binary, as few launch pages as from the instrumented build with 0 lld warnings; "
             f"recording at most {COST_GOAL:.0f}x the uninstrumented launch; a C++ library and its program "
             f"ordered with gcc and clang: 0 lld warnings, verify PASS",
        agreements=agreements, costs=costs, cxx=cxx,
        passed=all(a.passed for a in agreements) and all(c.passed for c in costs) and all(c.passed for c in cxx))


def render_text(res):
    out = [f"== norebuild: recording the release binary (goal: {res.goal}) ==",
           "orders from 'orderfile record --no-rebuild' on the release build and from 'orderfile record' on the "
           "instrumented build; launch pages of the release objects relinked with each (estimate on the release "
           "binary's trace)", ""]
    for a in res.agreements:
        out.append(f"{a.program} ({a.command}): {a.instrumented_functions} entries instrumented, "
                   f"{a.release_functions} from the release binary, {a.shared} shared, Kendall tau {a.kendall_tau:.3f}")
        out.append(f"  only instrumented: {a.only_instrumented} ({', '.join(a.only_instrumented_sample)})")
        out.append(f"  only release binary: {a.only_release} ({', '.join(a.only_release_sample)})")
        for layout in LAYOUTS:
            pages = ", ".join(f"{int(s) // 1024} KiB {a.pages[layout][s]}" for s in a.pages[layout])
            extra = "" if layout == "default" else (
                f"; lld warnings {a.lld_warnings[layout]}; verify {'PASS' if a.verified[layout] else 'FAIL'}")
            out.append(f"  {layout:<19} pages: {pages}{extra}")
        bound = ", ".join(f"{int(s) // 1024} KiB {a.lower_bound[s]}" for s in a.lower_bound)
        out.append(f"  lower bound         pages: {bound}")
        out.append(f"  {verdict(a.passed)}")
    out.append("")
    out.append(f"{'program':<10} {'rounds':>6} {'uninstrumented':>16} {'record --no-rebuild':>26} {'runtime':>22}")
    for c in res.costs:
        cells = [f"{c.wall[v].median * 1e3:.2f} ms" + ("" if v == "uninstrumented" else
                                                        f" ({c.vs_uninstrumented[v]:.2f}x)")
                 for v in ("uninstrumented", "recorder", "runtime")]
        traced = (f"; the launch itself under the tracer {c.traced_launch.median * 1e3:.2f} ms "
                  f"({c.traced_vs_uninstrumented:.2f}x)") if c.traced_launch else ""
        out.append(f"{c.program:<10} {c.rounds:>6} {cells[0]:>16} {cells[1]:>26} {cells[2]:>22}  "
                   f"{verdict(c.passed)}{traced}")
    out.append("")
    for c in res.cxx:
        parts = ", ".join(f"{m} {c.entries[m]} entries, verify {'PASS' if c.verified[m] else 'FAIL'}" for m in c.modules)
        out.append(f"tinyxml2 with {c.compiler}: {parts}; lld warnings {c.lld_warnings}: {verdict(c.passed)}")
    return out


def render_markdown(res, report):
    rows = []
    for a in res.agreements:
        for s in PAGE_SIZES:
            key = str(s)
            rows.append([a.program if s == PAGE_SIZES[0] else "", f"{s // 1024} KiB",
                         str(a.pages["default"][key]), str(a.pages["instrumented order"][key]),
                         md.bold(str(a.pages["release order"][key])), str(a.lower_bound[key])])
    agree = [[a.program, str(a.instrumented_functions), str(a.release_functions), str(a.shared),
              f"{a.kendall_tau:.3f}", f"{a.only_instrumented}", f"{a.only_release}",
              f"{a.lld_warnings['instrumented order']} / {a.lld_warnings['release order']}",
              f"{'PASS' if a.verified['instrumented order'] else 'FAIL'} / "
              f"{'PASS' if a.verified['release order'] else 'FAIL'}"] for a in res.agreements]
    cost = [[c.program, c.command, f"{c.wall['uninstrumented'].median * 1e3:.2f} ms",
             md.bold(f"{c.wall['recorder'].median * 1e3:.2f} ms ({c.vs_uninstrumented['recorder']:.2f}x)"),
             (f"{c.traced_launch.median * 1e3:.2f} ms ({c.traced_vs_uninstrumented:.2f}x)"
              if c.traced_launch else "–"),
             f"{c.wall['runtime'].median * 1e3:.2f} ms ({c.vs_uninstrumented['runtime']:.2f}x)",
             verdict(c.passed)] for c in res.costs]
    body = [f"{report.provenance()}", "",
            md.table(["program", "instrumented entries", "release entries", "shared", "Kendall τ",
                      "only instrumented", "only release", "lld warnings (instr. / release)",
                      "verify (instr. / release)"], ["l", "r", "r", "r", "r", "r", "r", "r", "l"], agree), "",
            "Launch pages of the release objects relinked with each order:", "",
            md.table(["program", "page", "default", "instrumented order", "release order", "lower bound"],
                     ["l", "l", "r", "r", "r", "r"], rows), "",
            f"Launch wall time, medians of {res.costs[0].rounds if res.costs else 0} interleaved rounds:", "",
            md.table(["program", "launch", "uninstrumented", "`record --no-rebuild`, whole command",
                      "the launch under the tracer", "instrumented, runtime", "goal"],
                     ["l", "l", "r", "r", "r", "r", "l"], cost), "",
            "The whole command includes the tool's own start-up, reading the symbols, and writing "
            "and reading back the trace; the launch under the tracer runs from the fork to the "
            "program's exit, as the trace records them.", ""]
    if res.cxx:
        body += ["A C++ library and its program (tinyxml2 from its Debian source: `libtinyxml2.so` and `xmltest`), "
                 "built for release, recorded without a rebuild and relinked with an orderfile per module:", "",
                 md.table(["compiler"] + [f"{m} entries" for m in CXX_MODULES] + ["lld warnings", "verify"],
                          ["l"] + ["r"] * len(CXX_MODULES) + ["r", "l"],
                          [[c.compiler] + [str(c.entries[m]) for m in c.modules] + [str(c.lld_warnings),
                           " / ".join("PASS" if c.verified[m] else "FAIL" for m in c.modules)] for c in res.cxx]),
                 ""]
    body.append(f"Goal: {res.goal}: {verdict(res.passed)}.")
    return {"norebuild": "\n".join(body)}


SECTION = Section(
    name="norebuild",
    help="recording the release binary without a rebuild against recording the instrumented build: agreement, "
         "launch pages of each relink, cost (goal: as few pages, 0 lld warnings, at most 3x the launch)",
    result_type=NoRebuildResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

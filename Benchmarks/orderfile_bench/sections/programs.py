"""programs: launch pages, resident text and faults of real programs, by layout."""

import json
import os
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import PROGRAMS_SRC, BenchError, progress, progress_done, verdict
from ..debian import SOURCE_PINS
from ..model import json_name
from ..process import evict_from_page_cache, run_checked, run_measured
from ..realprograms import PROGRAMS, GenerateTiming, short_name
from ..section import Section
from ..stats import rotations

LAYOUTS = [
    ("default", "default (no ordering)"),
    ("orderfile", "this project's orderfile"),
    ("profdata", "llvm-profdata order"),
    ("bp", "lld balanced partitioning"),
]
# How Docs/Performance.md's table names the layouts.
LAYOUT_MARKDOWN = {
    "default": "default",
    "orderfile": "this project's orderfile",
    "profdata": "`llvm-profdata order`",
    "bp": "lld balanced partitioning",
}
PROBE_RUNS = 9
STATES = ("warm", "cold")


@dataclass
class ProbeFigures:
    """Medians of what the launch probe saw at exit."""
    text_rss_kib: float
    minflt: float
    majflt: float


@dataclass
class LayoutFigures:
    binary: str
    pages_4k: int
    pages_16k: int
    lower_4k: int
    lower_16k: int
    missing_functions: int
    launch_functions: int
    launch_bytes: int
    lld_missing_symbol_warnings: int
    text_bytes: int
    warm: ProbeFigures
    cold: ProbeFigures


@dataclass
class VerifyShares:
    inOrderShare: float | None
    presentShare: float | None


@dataclass
class ProgramChecks:
    within_1_page_of_lower_bound_16k: bool
    no_worse_than_bp_16k: bool


@dataclass
class ProgramResult:
    program: str
    title: str
    launch: str
    source: str
    launch_functions: int
    launch_bytes: int
    text_bytes: int
    orderfile_entries: int | None
    match_rate: float | None
    profdata_entries: int
    verify: VerifyShares
    generate: GenerateTiming
    compile: dict[str, str]
    layouts: dict[str, LayoutFigures]
    checks: ProgramChecks
    passed: bool = json_name("pass")


@dataclass
class ProgramsResult:
    goal: str
    probe_runs: int
    programs: list[ProgramResult]
    passed: bool = json_name("pass")


def _read_whole(path):
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def _estimate(ctx, trace, binary, label):
    est = json.loads(run_checked([ctx.orderfile, "estimate", "--trace", trace, "--binary", binary, "--json"],
                                 f"orderfile estimate ({label})"))
    pages = {p["pageSize"]: p for p in est["pages"]}
    return est, pages


def _probe(ctx, program, exes, probe, probe_dir):
    """Resident text and faults at the end of the launch, from the probe, in two page-cache
    states; returns (layout, state) -> ProbeFigures."""
    samples = {(layout, state): [] for layout, _ in LAYOUTS for state in STATES}
    for layout, _ in LAYOUTS:
        _read_whole(exes[layout])
    for r, order in rotations(LAYOUTS, PROBE_RUNS):
        for state in STATES:
            for layout, _ in order:
                progress(f"programs: {program.name}, probe round {r + 1}/{PROBE_RUNS}, {state}, {layout}")
                out = os.path.join(probe_dir, "probe.txt")
                if os.path.exists(out):
                    os.unlink(out)
                if state == "cold":
                    evict_from_page_cache(exes[layout])
                else:
                    _read_whole(exes[layout])
                run_measured([exes[layout]] + program.launch_args, f"{program.name} ({layout}) under the probe",
                             env=ctx.env({"LD_PRELOAD": probe, "LAUNCH_PROBE_OUTPUT": out}))
                with open(out) as f:
                    fields = dict(kv.split("=") for kv in f.read().split())
                samples[(layout, state)].append({k: int(v) for k, v in fields.items()})
    progress_done()
    return {key: ProbeFigures(text_rss_kib=statistics.median(x["text_rss_kib"] for x in s),
                              minflt=statistics.median(x["minflt"] for x in s),
                              majflt=statistics.median(x["majflt"] for x in s))
            for key, s in samples.items()}


def _measure(ctx, program, probe, probe_dir):
    tool = ctx.orderfile
    b = ctx.build(program)
    a = ctx.launch(program)
    flags = {
        "default": [],
        "orderfile": [f"-Wl,--symbol-ordering-file={a.order}"],
        "profdata": [f"-Wl,--symbol-ordering-file={a.profdata_order}"],
        "bp": ["-Wl,--bp-startup-sort=function", f"-Wl,--irpgo-profile={a.profdata}"],
    }
    exes, link_warnings = {}, {}
    for layout, _ in LAYOUTS:
        exe = os.path.join(b.dir, f"{program.name}.{layout}")
        _, _, _, err = run_measured(b.link + flags[layout] + b.objects + ["-o", exe] + b.libs,
                                    f"linking {program.name} ({layout})")
        exes[layout] = exe
        link_warnings[layout] = err.count("no such symbol")
    # The layouts must behave alike.
    outputs = {layout: run_measured([exes[layout]] + program.heavy_args(b.dir), f"{program.name} ({layout})")[2]
               for layout, _ in LAYOUTS}
    if len(set(outputs.values())) != 1:
        raise BenchError(f"the layouts of {program.name} disagree on the call-heavy scenario's output")
    estimates = {layout: _estimate(ctx, a.trace, exes[layout], f"{program.name}, {layout}")
                 for layout, _ in LAYOUTS}
    verify = json.loads(run_measured([tool, "verify", "--binary", exes["orderfile"], "--order", a.order,
                                      "--json"], "orderfile verify", check=False)[2])
    probed = _probe(ctx, program, exes, probe, probe_dir)
    layouts = {}
    for layout, _ in LAYOUTS:
        est, pages = estimates[layout]
        layouts[layout] = LayoutFigures(
            binary=exes[layout],
            pages_4k=pages[4096]["current"], pages_16k=pages[16384]["current"],
            lower_4k=pages[4096]["lowerBound"], lower_16k=pages[16384]["lowerBound"],
            missing_functions=len(est["missingFunctions"]),
            launch_functions=est["launchFunctions"], launch_bytes=est["launchBytes"],
            lld_missing_symbol_warnings=link_warnings[layout],
            text_bytes=est["textEnd"] - est["textStart"],
            warm=probed[(layout, "warm")], cold=probed[(layout, "cold")],
        )
    ours, bp = layouts["orderfile"], layouts["bp"]
    checks = ProgramChecks(within_1_page_of_lower_bound_16k=ours.pages_16k <= ours.lower_16k + 1,
                           no_worse_than_bp_16k=ours.pages_16k <= bp.pages_16k)
    pin = SOURCE_PINS[program.name]
    default = layouts["default"]
    return ProgramResult(
        program=program.name, title=program.title, launch=program.launch_text,
        source=f"{pin.package} {pin.version}",
        launch_functions=default.launch_functions, launch_bytes=default.launch_bytes,
        text_bytes=default.text_bytes,
        orderfile_entries=a.orderfile_entries, match_rate=a.match_rate, profdata_entries=a.profdata_entries,
        verify=VerifyShares(inOrderShare=verify.get("inOrderShare"), presentShare=verify.get("presentShare")),
        generate=a.generate, compile=b.compile, layouts=layouts, checks=checks,
        passed=checks.within_1_page_of_lower_bound_16k and checks.no_worse_than_bp_16k,
    )


def run(ctx):
    probe_dir = os.path.join(ctx.scratch, "probe")
    os.makedirs(probe_dir, exist_ok=True)
    probe = os.path.join(probe_dir, "launch_probe.so")
    run_checked([ctx.cc, "-O2", "-fPIC", "-shared", "-Wall", "-Wextra",
                 os.path.join(PROGRAMS_SRC, "launch_probe.c"), "-o", probe], "building the launch probe")
    programs = [_measure(ctx, program, probe, probe_dir) for program in PROGRAMS]
    return ProgramsResult(
        goal="orderfile layout within 1 page of the lower bound at 16 KiB, and no more 16 KiB pages than "
             "lld balanced partitioning, on every program",
        probe_runs=PROBE_RUNS, programs=programs, passed=all(p.passed for p in programs))


def render_text(res):
    out = ["== programs: launch pages by layout on real programs ==",
           f"goal: {res.goal}",
           "objects: the toolchain's clang -O2 -ffunction-sections, the same objects for every layout; "
           "all four layouts linked by ld.lld 22",
           "pages: distinct text pages the launch functions cover in each final binary (orderfile estimate "
           "--json, 'current'), for the launch trace the runtime recorded from the instrumented build",
           f"probe: LD_PRELOAD shim (Benchmarks/programs/launch_probe.c), median of {res.probe_runs} launches; "
           "warm = binary read into the page cache first, cold = evicted with posix_fadvise(DONTNEED) before "
           "each launch (shared libraries stay cached); a fault maps the cached pages of the aligned 64 KiB window "
           "around it (fault-around, the kernel's default)"]
    for p in res.programs:
        out.append("")
        out.append(f"{p.program} ({p.source}), launch `{p.launch}`: {p.launch_functions} launch "
                   f"functions, {p.launch_bytes:,} bytes, text {p.text_bytes / 1024:,.0f} KiB")
        out.append(f"  orderfile {p.orderfile_entries} entries (match {p.match_rate * 100:.1f}%), "
                   f"verify in order {p.verify.inOrderShare * 100:.1f}%; llvm-profdata order "
                   f"{p.profdata_entries} entries; orderfile generate {p.generate.wall.median * 1e3:.0f} ms")
        out.append(f"  {'layout':<28} {'4K pages':>8} {'16K pages':>9} {'text RSS':>9} {'minflt':>7} "
                   f"{'cold RSS':>9} {'cold majflt':>11} {'cold minflt':>11} {'lld warn':>8}")
        for layout, label in LAYOUTS:
            l = p.layouts[layout]
            w, c = l.warm, l.cold
            out.append(f"  {label:<28} {l.pages_4k:>8} {l.pages_16k:>9} {w.text_rss_kib:>5g} KiB "
                       f"{w.minflt:>7g} {c.text_rss_kib:>5g} KiB {c.majflt:>11g} {c.minflt:>11g} "
                       f"{l.lld_missing_symbol_warnings:>8}")
        l = p.layouts["default"]
        out.append(f"  {'lower bound':<28} {l.lower_4k:>8} {l.lower_16k:>9}")
        ch = p.checks
        ours, bp = p.layouts["orderfile"], p.layouts["bp"]
        out.append(f"  goal: within 1 page of the lower bound at 16 KiB ({ours.pages_16k} vs {l.lower_16k}): "
                   f"{verdict(ch.within_1_page_of_lower_bound_16k)}; no worse than balanced "
                   f"partitioning ({ours.pages_16k} vs {bp.pages_16k}): {verdict(ch.no_worse_than_bp_16k)}")
    out.append("lld warn: 'symbol ordering file: no such symbol' warnings (entries naming functions the release "
               "objects do not have, e.g. inlined away)")
    return out


def render_markdown(res, report):
    rows = []
    for p in res.programs:
        for i, (layout, _) in enumerate(LAYOUTS):
            l = p.layouts[layout]
            mark = md.bold if layout == "orderfile" else str
            rows.append([
                f"`{p.launch}` ({p.launch_functions} functions, {p.launch_bytes:,} bytes)" if i == 0 else "",
                LAYOUT_MARKDOWN[layout], mark(f"{l.pages_4k}"), mark(f"{l.pages_16k}"),
                mark(f"{l.warm.text_rss_kib:,.0f} KiB"), f"{l.warm.minflt:g}"])
        d = p.layouts["default"]
        rows.append(["", "lower bound", f"{d.lower_4k}", f"{d.lower_16k}", "", ""])
    goals, details = [], []
    for p in res.programs:
        name = short_name(p.program)
        d, ours, bp = p.layouts["default"], p.layouts["orderfile"], p.layouts["bp"]
        goals.append(f"{name} {ours.pages_16k} pages against a lower bound of {d.lower_16k} and "
                     f"{bp.pages_16k} for balanced partitioning, {verdict(p.passed)}")
        cold = [l.cold for l in p.layouts.values()]
        details.append(
            f"{name}: the orderfile has {p.orderfile_entries} entries, matched {_percent(p.match_rate)} of the "
            f"recorded functions, and `orderfile verify` found {_percent(p.verify.inOrderShare)} of them in "
            f"order; `llvm-profdata order` listed {p.profdata_entries} functions, "
            f"{p.layouts['profdata'].lld_missing_symbol_warnings} of which lld did not find. With the binary "
            f"evicted from the page cache before each launch, major faults {_spread([c.majflt for c in cold])}, "
            f"resident text {_spread([c.text_rss_kib for c in cold], ' KiB')}.")
    generate = "; ".join(f"{p.generate.wall.median * 1e3:.0f} ms on {short_name(p.program)}'s launch trace "
                         f"(peak {p.generate.peak_kib / 1024:.0f} MiB)" for p in res.programs)
    runs = len(res.programs[0].generate.wall.samples) if res.programs else 0
    body = [f"{report.provenance()} Probe figures are medians of {res.probe_runs} launches.", "",
            md.table(["program, launch", "layout", "4 KiB pages", "16 KiB pages", "text resident", "minor faults"],
                     ["l", "l", "r", "r", "r", "r"], rows), "",
            "Goals: " + "; ".join(goals) + ".", ""]
    for d in details:
        body += [d, ""]
    body.append(f"`orderfile generate`, end to end (read the trace, find and symbolize the binary, write the "
                f"orderfile), median of {runs}: {generate}.")
    return {"programs": "\n".join(body)}


def _percent(share):
    return f"{share * 100:.1f}%" if share is not None else "?"


def _spread(values, suffix=""):
    """'1 in every layout' or '136 KiB to 200 KiB by layout', over the layouts' medians."""
    low, high = min(values), max(values)
    if low == high:
        return f"{low:,g}{suffix} in every layout"
    return f"{low:,g}{suffix} to {high:,g}{suffix} by layout"


SECTION = Section(
    name="programs",
    help="Lua 5.4 and the SQLite 3 shell, built from pinned Debian source packages; launch pages, resident "
         "text and faults for four layouts: default, this project's orderfile, llvm-profdata order, lld "
         "balanced partitioning (goal: the orderfile layout within 1 page of the lower bound at 16 KiB and no "
         "worse than balanced partitioning, on both)",
    result_type=ProgramsResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

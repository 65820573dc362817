"""scale: a generated C program with 100,000 functions through the whole pipeline."""

import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass

from .. import markdown as md
from ..common import SCALE_SRC, BenchError, verdict
from ..model import json_name
from ..process import parallel, run_checked, run_measured
from ..section import Section
from ..toolchain import instrument_cflags

GOAL_SECONDS = 2.0
ARM_GOAL_MS = 500.0  # recording without a rebuild: symbols read and breakpoints written
GOAL_BYTES = 1 << 30
GENERATE_RUNS = 3

# The steps, in order. The Markdown table leaves out the first (writing the C sources).
SOURCES, INSTRUMENT, RECORD, GENERATE, RELEASE, ESTIMATE, ESTIMATE_RELINKED, NO_REBUILD = (
    "generate C sources", "instrument: compile + link", "record: orderfile record", "generate: orderfile generate",
    "release: compile + 2 links", "estimate: orderfile estimate --order", "estimate: relinked binary",
    "record --no-rebuild: release binary")


@dataclass
class ScaleStep:
    step: str
    seconds: float
    peak_kib: int
    detail: str


@dataclass
class ScalePages:
    now: int
    ordered_simulated: int
    ordered_measured: int
    lower_bound: int


@dataclass
class ScaleChecks:
    seconds: bool
    memory: bool


@dataclass
class ScaleResult:
    goal: str
    functions: int
    files: int
    steps: list[ScaleStep]
    trace_bytes: int
    generate_seconds: float
    generate_peak_kib: int
    pages_16k: ScalePages
    checks: ScaleChecks
    passed: bool = json_name("pass")
    generate_entries: int | None = None
    match_rate: float | None = None
    jobs: int | None = None  # compile jobs in parallel
    launch_functions: int | None = None
    arming_ms: float | None = None  # record --no-rebuild on the release program: symbols read, breakpoints written


def run(ctx):
    tool = ctx.orderfile
    hooks = ctx.hooks
    n = ctx.options.scale_functions
    files = max(1, min(200, n // 500))
    jobs = ctx.machine.nproc
    d = os.path.join(ctx.scratch, "scale")
    src = os.path.join(d, "src")
    os.makedirs(d, exist_ok=True)
    steps = []

    def step(name, wall, peak_kib, detail=""):
        steps.append(ScaleStep(step=name, seconds=wall, peak_kib=peak_kib, detail=detail))

    wall, peak, _, _ = run_measured([sys.executable, os.path.join(SCALE_SRC, "generate.py"), "--out", src,
                                     "--functions", str(n), "--files", str(files)], "generating the program",
                                    env=ctx.environ, peak=True)
    step(SOURCES, wall, peak, f"{n:,} functions in {files} files (Benchmarks/scale/generate.py)")
    sources = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c"))
    instrument = instrument_cflags(ctx)

    def compile_all(variant, flags):
        obj_dir = os.path.join(d, "obj-" + variant)
        os.makedirs(obj_dir, exist_ok=True)
        objs = [os.path.join(obj_dir, os.path.basename(s)[:-2] + ".o") for s in sources]
        start = time.perf_counter()
        results = parallel([lambda s=s, o=o: run_measured([ctx.cc, "-O2", "-ffunction-sections", "-w"] + flags
                                                          + ["-c", s, "-o", o], f"compiling {os.path.basename(s)}",
                                                          peak=True)
                            for s, o in zip(sources, objs)], jobs)
        return objs, time.perf_counter() - start, max(r[1] for r in results)

    link = [ctx.cc, "-fuse-ld=lld", "-Wl,--build-id"]
    objs, wall, peak = compile_all("instr", instrument)
    instr = os.path.join(d, "scale-instr")
    lwall, lpeak, _, _ = run_measured(link + objs + ["-L" + hooks.rtime, "-lOrderfileRuntime", "-o", instr],
                                      "linking the instrumented program", peak=True)
    step(INSTRUMENT, wall + lwall, max(peak, lpeak),
         f"clang -O2 -ffunction-sections -finstrument-functions-after-inlining, {jobs} jobs")
    trace = os.path.join(d, "scale.trace")
    wall, peak, _, err = run_measured([tool, "record", "--instrumented", "-o", trace, "--", instr], "orderfile record",
                                      env=ctx.env({"LD_LIBRARY_PATH": hooks.rtime}), peak=True)
    said = err.strip().splitlines()[-1].replace("orderfile: ", "") if err.strip() else ""
    step(RECORD, wall, peak, said.split(" to /")[0])
    order = os.path.join(d, "scale.order")
    walls, peaks = [], []
    for _ in range(GENERATE_RUNS):
        wall, peak, outp, _ = run_measured([tool, "generate", trace, "-o", order, "--json"], "orderfile generate",
                                           peak=True)
        walls.append(wall)
        peaks.append(peak)
    gen = json.loads(outp)
    entries = gen["modules"][0]["entries"]
    step(GENERATE, statistics.median(walls), max(peaks),
         f"{entries:,} entries, match {gen['matchRate'] * 100:.1f}% (median of {GENERATE_RUNS})")
    generate_wall, generate_peak = statistics.median(walls), max(peaks)
    objs, wall, peak = compile_all("plain", [])
    release = os.path.join(d, "scale-default")
    ordered = os.path.join(d, "scale-ordered")
    lwall, lpeak, _, _ = run_measured(link + objs + ["-o", release], "linking the release program", peak=True)
    owall, opeak, _, _ = run_measured(link + [f"-Wl,--symbol-ordering-file={order}"] + objs + ["-o", ordered],
                                      "linking the ordered program", peak=True)
    step(RELEASE, wall + lwall + owall, max(peak, lpeak, opeak), "default and ordered (lld --symbol-ordering-file)")
    if run_checked([release], "running the release program") != run_checked([ordered], "running the ordered program"):
        raise BenchError("the default and ordered scale programs print different checksums")
    wall, peak, outp, _ = run_measured([tool, "estimate", "--trace", trace, "--binary", release, "--order", order,
                                        "--json"], "orderfile estimate", peak=True)
    estimate = json.loads(outp)
    pages = {p["pageSize"]: p for p in estimate["pages"]}[16384]
    step(ESTIMATE, wall, peak, f"16 KiB pages: {pages['current']:,} now, {pages['ordered']:,} ordered, "
                               f"{pages['lowerBound']:,} lower bound")
    wall, peak, outp, _ = run_measured([tool, "estimate", "--trace", trace, "--binary", ordered, "--json"],
                                       "orderfile estimate (ordered binary)", peak=True)
    measured = {p["pageSize"]: p for p in json.loads(outp)["pages"]}[16384]
    step(ESTIMATE_RELINKED, wall, peak, f"16 KiB pages measured on the ordered binary: {measured['current']:,}")
    nr_trace = os.path.join(d, "scale-norebuild.trace")
    wall, peak, _, err = run_measured([tool, "record", "--no-rebuild", "-o", nr_trace, "--", release],
                                      "orderfile record --no-rebuild", env=ctx.env(), peak=True)
    # The tracer: "N breakpoints, armed in T ms" (symbols read and breakpoints written);
    # in-process: "N entries planned in P ms, armed in A ms", the same work split in two.
    armed = re.search(r"(\d+) (?:breakpoints|entries)(?:,| planned in ([0-9.]+) ms,) armed in ([0-9.]+) ms", err)
    if not armed:
        raise BenchError(f"orderfile record --no-rebuild did not say how long arming took: {err.strip()}")
    arming_ms = float(armed.group(2) or 0) + float(armed.group(3))
    step(NO_REBUILD, wall, peak, f"{int(armed.group(1)):,} breakpoints, armed in {arming_ms:.0f} ms "
                                 f"(goal < {ARM_GOAL_MS:.0f} ms: {verdict(arming_ms < ARM_GOAL_MS)})")
    checks = ScaleChecks(seconds=generate_wall < GOAL_SECONDS, memory=generate_peak * 1024 < GOAL_BYTES)
    return ScaleResult(
        goal=f"trace to orderfile (orderfile generate) under {GOAL_SECONDS:.0f} s with peak memory under 1 GiB",
        functions=n, files=files, steps=steps, trace_bytes=os.path.getsize(trace),
        generate_seconds=generate_wall, generate_peak_kib=generate_peak,
        pages_16k=ScalePages(now=pages["current"], ordered_simulated=pages["ordered"],
                             ordered_measured=measured["current"], lower_bound=pages["lowerBound"]),
        checks=checks, passed=checks.seconds and checks.memory,
        generate_entries=entries, match_rate=gen["matchRate"], jobs=jobs,
        launch_functions=estimate["launchFunctions"], arming_ms=arming_ms)


def render_text(res):
    out = [f"== scale: a generated C program with {res.functions:,} functions (goal: {res.goal}) ==",
           "every function runs at launch; wall time and peak resident memory (ru_maxrss of the step's "
           "processes) per step",
           "",
           f"{'step':<36} {'time':>9} {'peak':>10}  detail"]
    for s in res.steps:
        out.append(f"{s.step:<36} {s.seconds:>8.2f}s {s.peak_kib / 1024:>6.0f} MiB  {s.detail}")
    out.append(f"trace: {res.trace_bytes / 2**20:.1f} MiB")
    out.append(f"goal: generate {res.generate_seconds:.2f} s (< {GOAL_SECONDS:.0f} s): "
               f"{verdict(res.checks.seconds)}; peak {res.generate_peak_kib / 1024:.0f} MiB "
               f"(< 1024 MiB): {verdict(res.checks.memory)}")
    return out


def render_markdown(res, report):
    p = res.pages_16k
    jobs = f" ({res.jobs} jobs)" if res.jobs else ""
    match = f", {res.match_rate * 100:.3g}% matched" if res.match_rate is not None else ""
    entries = f"{res.generate_entries:,} entries" if res.generate_entries is not None else ""
    launch = f"{res.launch_functions:,} launch functions, " if res.launch_functions is not None else ""
    label_detail = {
        INSTRUMENT: (f"instrument: compile{jobs} and link",
                     "clang `-O2 -ffunction-sections -finstrument-functions-after-inlining`"),
        RECORD: ("record: `orderfile record`", f"{launch}trace {res.trace_bytes / 2**20:.1f} MiB"),
        GENERATE: ("generate: `orderfile generate`", f"{entries}{match} (median of {GENERATE_RUNS})"
                   if entries else None),
        RELEASE: ("release: compile and two links", "default and ordered"),
        ESTIMATE: ("estimate: `orderfile estimate --order`",
                   f"16 KiB pages: {p.now:,} now, {p.ordered_simulated:,} ordered, lower bound {p.lower_bound:,}"),
        ESTIMATE_RELINKED: ("estimate: the relinked binary", f"{p.ordered_measured:,} pages measured"),
        NO_REBUILD: ("record without a rebuild: `orderfile record --no-rebuild`",
                     f"armed in {res.arming_ms:.0f} ms (goal < {ARM_GOAL_MS:.0f} ms)" if res.arming_ms else None),
    }
    rows = []
    for s in res.steps:
        if s.step not in label_detail:
            continue
        label, detail = label_detail[s.step]
        mark = md.bold if s.step == GENERATE else str
        # Reports saved before a figure had its own field have it only in the step's detail.
        rows.append([label, mark(f"{s.seconds:.2f} s"), mark(f"{s.peak_kib / 1024:.0f} MiB"), detail or s.detail])
    body = [f"{report.provenance()} {res.functions:,} functions in {res.files} files.", "",
            md.table(["step", "time", "peak", ""], ["l", "r", "r", "l"], rows), "",
            f"Goal: {res.generate_seconds:.2f} s and {res.generate_peak_kib / 1024:.0f} MiB, {verdict(res.passed)}."]
    return {"scale": "\n".join(body)}


SECTION = Section(
    name="scale",
    help="a generated C program with 100,000 functions: instrument, record, generate, estimate (goal: "
         "generate under 2 s with peak memory under 1 GiB)",
    result_type=ScaleResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

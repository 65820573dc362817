"""scale: a generated C program with 100,000 functions through the whole pipeline."""

import json
import os
import re
import shutil
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
PLAN_RUNS = 5  # record's planning, each variant, interleaved
PLAN_GOAL_MS = 50.0  # 50k entries planned from the files, warm (issue 33)
MAP_GOAL_MS = 200.0  # a 27 MB link map read

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
class ScalePlanning:
    """record --no-rebuild's planning on the release program with its lld map beside it:
    medians of PLAN_RUNS interleaved runs of each variant, on one machine in one run."""
    entries: int
    map_bytes: int
    launch_ms: float  # the plain program, the baseline
    record_uncached_ms: float  # whole record, --no-plan-cache
    record_cached_ms: float  # whole record, its plan from the cache
    plan_uncached_ms: float  # "planned in": symbols, .eh_frame, map, cold parts
    plan_no_map_ms: float  # the same without the map
    plan_cached_ms: float
    first_plan_ms: float  # the first record with an empty cache: planned and written

    @property
    def map_ms(self):
        return self.plan_uncached_ms - self.plan_no_map_ms


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
    planning: ScalePlanning | None = None


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
    release_map = os.path.join(d, "scale-default.lld-map")  # not beside it: the other steps read no map
    lwall, lpeak, _, _ = run_measured(link + objs + ["-Wl,-Map=" + release_map, "-o", release],
                                      "linking the release program", peak=True)
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
    planning = measure_planning(ctx, tool, release, release_map, os.path.join(d, "planning"))
    checks = ScaleChecks(seconds=generate_wall < GOAL_SECONDS, memory=generate_peak * 1024 < GOAL_BYTES)
    return ScaleResult(
        goal=f"trace to orderfile (orderfile generate) under {GOAL_SECONDS:.0f} s with peak memory under 1 GiB",
        functions=n, files=files, steps=steps, trace_bytes=os.path.getsize(trace),
        generate_seconds=generate_wall, generate_peak_kib=generate_peak,
        pages_16k=ScalePages(now=pages["current"], ordered_simulated=pages["ordered"],
                             ordered_measured=measured["current"], lower_bound=pages["lowerBound"]),
        checks=checks, passed=checks.seconds and checks.memory,
        generate_entries=entries, match_rate=gen["matchRate"], jobs=jobs,
        launch_functions=estimate["launchFunctions"], arming_ms=arming_ms, planning=planning)


PLANNED = re.compile(r"(\d+) entries planned in ([0-9.]+) ms( \(from the plan cache\))?")


def measure_planning(ctx, tool, release, release_map, d):
    """record --no-rebuild --until main of a copy of the release program, its map beside it:
    planned from the files (with and without the map) and from the plan cache, interleaved."""
    os.makedirs(d, exist_ok=True)
    program = os.path.join(d, "scale")
    bare = os.path.join(d, "scale-nomap")
    for copy in (program, bare):
        shutil.copy2(release, copy)
    shutil.copy2(release_map, program + ".map")
    env = ctx.env({"ORDERFILE_CACHE_DIR": os.path.join(d, "cache")})
    trace = os.path.join(d, "t.trace")

    def record(binary, cached, first=False):
        cmd = [tool, "record", "--no-rebuild", "--until", "main", "-o", trace] + ([] if cached else ["--no-plan-cache"])
        wall, _, _, err = run_measured(cmd + ["--", binary], "orderfile record (planning)", env=env)
        said = PLANNED.search(err)
        if not said or bool(said.group(3)) != (cached and not first):
            raise BenchError(f"orderfile record did not say how it planned ({'cached' if cached else 'not cached'}): "
                             f"{err.strip()}")
        return wall * 1000, float(said.group(2)), int(said.group(1))

    _, first_plan, entries = record(program, cached=True, first=True)  # the cache is empty: planned, then kept
    launch, uncached, nomap, cached = [], [], [], []
    for _ in range(PLAN_RUNS):
        start = time.perf_counter()
        run_checked([release], "running the release program")
        launch.append((time.perf_counter() - start) * 1000)
        uncached.append(record(program, cached=False))
        nomap.append(record(bare, cached=False))
        cached.append(record(program, cached=True))
    med = statistics.median
    return ScalePlanning(
        entries=entries, map_bytes=os.path.getsize(program + ".map"), launch_ms=med(launch),
        record_uncached_ms=med(r[0] for r in uncached), record_cached_ms=med(r[0] for r in cached),
        plan_uncached_ms=med(r[1] for r in uncached), plan_no_map_ms=med(r[1] for r in nomap),
        plan_cached_ms=med(r[1] for r in cached), first_plan_ms=first_plan)


def planning_lines(p):
    """The planning figures, each time also as a ratio over the plain launch of the same run."""
    def ratio(ms):
        return f"{ms / p.launch_ms:.1f}x the launch" if p.launch_ms > 0 else ""
    return [
        f"record --no-rebuild --until main, {p.entries:,} entries, lld map {p.map_bytes / 2**20:.1f} MiB beside it "
        f"(medians of {PLAN_RUNS}, interleaved):",
        f"  plain launch {p.launch_ms:.1f} ms; whole record {p.record_uncached_ms:.0f} ms planned from the files "
        f"({ratio(p.record_uncached_ms)}), {p.record_cached_ms:.0f} ms from the plan cache "
        f"({ratio(p.record_cached_ms)})",
        f"  planning: first {p.first_plan_ms:.1f} ms (written to the cache), from the files {p.plan_uncached_ms:.1f} ms "
        f"(goal < {PLAN_GOAL_MS:.0f} ms: {verdict(p.plan_uncached_ms < PLAN_GOAL_MS)}), "
        f"from the cache {p.plan_cached_ms:.1f} ms ({p.plan_cached_ms / p.plan_uncached_ms:.2f} of the files')",
        f"  the map's share: {p.map_ms:.1f} ms ({p.plan_uncached_ms:.1f} with it, {p.plan_no_map_ms:.1f} without; "
        f"{p.map_ms / max(p.map_bytes / 2**20, 1e-9) * 27:.0f} ms per 27 MiB, goal < {MAP_GOAL_MS:.0f} ms)",
    ]


def render_text(res):
    out = [f"== scale: a generated C program with {res.functions:,} functions (goal: {res.goal}) ==",
           "every function runs at launch; wall time and peak resident memory (ru_maxrss of the step's "
           "processes) per step",
           "",
           f"{'step':<36} {'time':>9} {'peak':>10}  detail"]
    for s in res.steps:
        out.append(f"{s.step:<36} {s.seconds:>8.2f}s {s.peak_kib / 1024:>6.0f} MiB  {s.detail}")
    out.append(f"trace: {res.trace_bytes / 2**20:.1f} MiB")
    if res.planning:
        out += planning_lines(res.planning)
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
    if res.planning:
        body += [""] + [line.strip() for line in planning_lines(res.planning)]
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

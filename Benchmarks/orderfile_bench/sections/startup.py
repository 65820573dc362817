"""startup: the runtime's own start-up per process, against the uninstrumented launch."""

import glob
import os
import statistics
import struct
import time
from dataclasses import dataclass

from .. import markdown as md
from ..common import OVERHEAD_SRC, BenchError, verdict
from ..model import json_name
from ..process import interleave, run_checked, timed_run
from ..section import Section
from ..stats import Summary

# The goal: the median start-up inside the process, as `orderfile record` starts it.
STARTUP_GOAL_MS = 0.5
MIN_ROUNDS = 30

# Offsets in the trace header (Sources/OrderfileTraceFormat/include/orderfile_trace_format.h,
# which pins them): process_start_ns, trace_start_ns, process_start_source, startup_end_ns.
PROCESS_START, TRACE_START, START_SOURCE, STARTUP_END = 56, 72, 84, 176
SOURCES = {0: "procStat", 1: "spawn", 2: "traceStart"}

VARIANTS = [
    ("uninstrumented", "uninstrumented"),
    ("recorded", "runtime, started as orderfile record does"),
    ("other", "runtime, started some other way"),
]


@dataclass
class StartupVariant:
    name: str
    label: str
    wall_ms: Summary
    # From the trace header: the runtime's start-up (trace_start to startup_end), and process
    # start to the first hook. None for the uninstrumented build.
    startup_ms: Summary | None
    first_hook_ms: Summary | None
    start_source: str | None
    # Median over rounds of this launch minus the uninstrumented one in the same round.
    cost_ms: float | None


@dataclass
class StartupResult:
    goal: str
    program: str
    runs: int
    variants: list[StartupVariant]
    passed: bool = json_name("pass")


def _header_times(directory):
    """(start-up ms, process start to first hook ms, source) from the one trace in `directory`,
    which it then removes."""
    traces = glob.glob(os.path.join(directory, "*"))
    if len(traces) != 1:
        raise BenchError(f"expected one trace in {directory}, found {len(traces)}")
    with open(traces[0], "rb") as f:
        head = f.read(512)
    os.remove(traces[0])
    if len(head) < 512:
        raise BenchError(f"{traces[0]}: a trace header is 4096 bytes, the file has {len(head)}")
    process_start, trace_start, startup_end = (struct.unpack_from("<Q", head, o)[0]
                                               for o in (PROCESS_START, TRACE_START, STARTUP_END))
    source = struct.unpack_from("<I", head, START_SOURCE)[0]
    if startup_end == 0:
        raise BenchError(f"{traces[0]}: no startup_end_ns: is the runtime older than trace format 1.2?")
    return (startup_end - trace_start) / 1e6, (trace_start - process_start) / 1e6, SOURCES.get(source, str(source))


def run(ctx):
    rounds = max(ctx.options.runs, MIN_ROUNDS)
    d = os.path.join(ctx.scratch, "startup")
    traces = {name: os.path.join(d, "traces", name) for name in ("recorded", "other")}
    for t in traces.values():
        os.makedirs(t, exist_ok=True)
    tiny = os.path.join(OVERHEAD_SRC, "tiny.c")
    exes = {"plain": os.path.join(d, "tiny-plain"), "instr": os.path.join(d, "tiny-instr")}
    run_checked([ctx.cc, "-O2", "-fPIE", "-pie", tiny, "-o", exes["plain"]], "compiling tiny.c")
    run_checked([ctx.cc, "-O2", "-fPIE", "-pie", "-finstrument-functions-after-inlining", tiny, "-o", exes["instr"],
                 "-L" + ctx.runtime.dir, "-lOrderfileRuntime", "-Wl,-rpath," + ctx.runtime.dir],
                "compiling tiny.c instrumented")
    # The recorder's pattern has no %e; a program started otherwise usually runs with the
    # default pattern, which has it.
    env = {
        "uninstrumented": ctx.env(),
        "recorded": ctx.env({"ORDERFILE_OUTPUT": os.path.join(traces["recorded"], "trace.%p")}),
        "other": ctx.env({"ORDERFILE_OUTPUT": os.path.join(traces["other"], "orderfile-%e-%p.trace")}),
    }

    def measure(name):
        e = env[name]
        if name == "recorded":
            # As orderfile record does: this process's pid and its clock right before the spawn.
            e = dict(e, ORDERFILE_SPAWN=f"{os.getpid()}:{time.clock_gettime_ns(time.CLOCK_MONOTONIC)}")
        wall = timed_run([exes["plain" if name == "uninstrumented" else "instr"]], e)[0] * 1e3
        return (wall, None) if name == "uninstrumented" else (wall, _header_times(traces[name]))

    results = interleave([name for name, _ in VARIANTS], rounds, measure, "startup")
    variants = []
    for name, label in VARIANTS:
        walls = [rd[name][0] for rd in results]
        inside = [rd[name][1] for rd in results if rd[name][1] is not None]
        sources = sorted({s for _, _, s in inside})
        variants.append(StartupVariant(
            name=name, label=label, wall_ms=Summary.of(walls),
            startup_ms=Summary.of([s for s, _, _ in inside]) if inside else None,
            first_hook_ms=Summary.of([h for _, h, _ in inside]) if inside else None,
            start_source=", ".join(sources) if sources else None,
            cost_ms=(statistics.median(rd[name][0] - rd["uninstrumented"][0] for rd in results)
                     if name != "uninstrumented" else None),
        ))
    recorded = next(v for v in variants if v.name == "recorded")
    return StartupResult(
        goal=f"median start-up inside the process, as orderfile record starts it, <= {STARTUP_GOAL_MS} ms",
        program="Benchmarks/overhead/tiny.c", runs=rounds, variants=variants,
        passed=recorded.startup_ms is not None and recorded.startup_ms.median <= STARTUP_GOAL_MS)


def render_text(res):
    out = [f"== startup: the runtime's own start-up per process (goal: {res.goal}) ==",
           f"program: {res.program}; {res.runs} launches of each variant, interleaved in rotating order",
           "",
           f"{'variant':<42} {'launch':>9} {'cost':>9} {'start-up':>9} {'to hook':>9}  process start"]
    for v in res.variants:
        cost = f"{v.cost_ms:+.3f}" if v.cost_ms is not None else ""
        startup = f"{v.startup_ms.median:.3f}" if v.startup_ms else ""
        hook = f"{v.first_hook_ms.median:.3f}" if v.first_hook_ms else ""
        out.append(f"{v.label:<42} {v.wall_ms.median:>9.3f} {cost:>9} {startup:>9} {hook:>9}  {v.start_source or ''}")
    out.append("medians in ms. launch: wall time of the whole process; cost: launch minus the uninstrumented")
    out.append("launch of the same round (loading the runtime, starting it, finalizing the trace at exit);")
    out.append("start-up: trace_start to startup_end in the trace header, the part the report shows as")
    out.append("overhead; to hook: process start to the first hook, the loader's time as the report shows it")
    return out


def render_markdown(res, report):
    rows = []
    for v in res.variants:
        rows.append([v.label, f"{v.wall_ms.median:.2f} ms",
                     f"{v.cost_ms:+.2f} ms" if v.cost_ms is not None else "",
                     f"{v.startup_ms.median:.3f} ms" if v.startup_ms else "",
                     v.start_source or ""])
    recorded = next(v for v in res.variants if v.name == "recorded")
    notes = [f"{report.provenance()} {res.runs} launches of each variant of `tiny.c`, interleaved.", "",
             md.table(["variant", "launch (median)", "minus uninstrumented", "runtime start-up", "process start"],
                      ["l", "r", "r", "r", "l"], rows), ""]
    if recorded.startup_ms:
        notes.append(f"The runtime's start-up as `orderfile record` starts the program: median "
                     f"{recorded.startup_ms.median:.3f} ms (goal ≤ {STARTUP_GOAL_MS} ms: {verdict(res.passed)}).")
    return {"startup": "\n".join(notes)}


SECTION = Section(
    name="startup",
    help="the runtime's own start-up per process, read from its traces, and the launch against the "
         "uninstrumented build (goal: median start-up at most 0.5 ms as orderfile record starts the program)",
    result_type=StartupResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

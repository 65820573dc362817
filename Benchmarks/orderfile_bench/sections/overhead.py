"""overhead: call-heavy workloads, runtime hooks versus empty hooks."""

import os
import shutil
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import NOISE_LIMIT, OVERHEAD_GOAL, OVERHEAD_SRC, BenchError, verdict
from ..model import json_name
from ..process import clear_dir, interleave, run_checked, timed_run
from ..section import Section
from ..stats import Summary, relative_spread
from ..toolchain import build_empty_hooks

VARIANTS = [
    ("uninstrumented", "uninstrumented"),
    ("empty", "instrumented, empty hooks"),
    ("runtime", "instrumented, runtime"),
]
# What Docs/Performance.md says of each of callheavy's modes.
MODE_NOTES = {"mixed": "~300 hot functions", "wide": "4,096 hot functions, random order"}
FIXED_COST_MIN_ROUNDS = 15


@dataclass
class OverheadConfig:
    workload: str
    mode: str
    threads: int
    instrumented_calls: int | None
    trace_bytes: int
    runtime_summary: str | None
    wall: dict[str, Summary]
    cpu: dict[str, Summary]
    ratio_runtime_empty: float  # the gate: median over rounds of the ratio within a round
    ratio_runtime_empty_of_medians: float
    ratio_runtime_empty_cpu: float
    noise: float
    noisy: bool
    ratio_empty_uninstrumented: float
    ns_per_call_runtime_minus_empty: float | None
    ns_per_call_empty_minus_uninstrumented: float | None
    passed: bool = json_name("pass")


@dataclass
class FixedCost:
    empty_ms: float
    runtime_ms: float


@dataclass
class OverheadResult:
    goal: str
    gate: str
    noise_limit: float
    program: str
    runs: int
    configs: list[OverheadConfig]
    fixed_cost: FixedCost
    passed: bool = json_name("pass")


def _build(ctx):
    """Builds the workloads and the hook libraries; returns (directory, variant -> (executable,
    directory of its hooks library)).

    There is one instrumented executable per program. It needs libOrderfileRuntime.so and
    has no rpath: each run picks the library with LD_LIBRARY_PATH, from directories whose
    paths have the same length, so the variants run the very same file with environments
    of the same size (the size of the environment shifts the stack, which can move timings
    by itself).
    """
    d = os.path.join(ctx.scratch, "overhead")
    hooks = {name: os.path.join(d, "hooks", name) for name in ("plain", "empty", "rtime", "count")}
    for h in hooks.values():
        os.makedirs(h, exist_ok=True)
    callheavy = os.path.join(OVERHEAD_SRC, "callheavy.c")
    tiny = os.path.join(OVERHEAD_SRC, "tiny.c")
    cflags = [ctx.cc, "-O2", "-g", "-fPIE", "-Wall", "-Wextra"]
    instrument = ["-finstrument-functions-after-inlining"]
    solib = [ctx.cc, "-O2", "-fPIC", "-shared", "-Wl,-soname,libOrderfileRuntime.so"]
    link = [ctx.cc, "-fuse-ld=lld", "-pie"]
    build_empty_hooks(ctx.cc, hooks["empty"])
    run_checked(solib + [os.path.join(OVERHEAD_SRC, "count_hooks.c"), "-o",
                         os.path.join(hooks["count"], "libOrderfileRuntime.so")], "building the counting hooks")
    shutil.copy2(os.path.join(ctx.runtime.dir, "libOrderfileRuntime.so"), hooks["rtime"])
    exes = {}
    for name, source, flags in [("callheavy-instr", callheavy, instrument), ("callheavy-plain", callheavy, []),
                                ("tiny-instr", tiny, instrument)]:
        obj = os.path.join(d, name + ".o")
        exes[name] = os.path.join(d, name)
        run_checked(cflags + flags + ["-c", source, "-o", obj], f"compiling {name}")
        libs = ["-L" + hooks["empty"], "-lOrderfileRuntime"] if flags else []
        run_checked(link + [obj] + libs + ["-o", exes[name], "-lpthread"], f"linking {name}")
    return d, {
        "uninstrumented": (exes["callheavy-plain"], hooks["plain"]),
        "empty": (exes["callheavy-instr"], hooks["empty"]),
        "runtime": (exes["callheavy-instr"], hooks["rtime"]),
        "count": (exes["callheavy-instr"], hooks["count"]),
        "tiny-empty": (exes["tiny-instr"], hooks["empty"]),
        "tiny-runtime": (exes["tiny-instr"], hooks["rtime"]),
    }


def run(ctx):
    runs, scale = ctx.options.runs, ctx.options.scale
    d, variants = _build(ctx)
    traces = os.path.join(d, "traces")
    os.makedirs(traces, exist_ok=True)
    base_env = ctx.env({"ORDERFILE_OUTPUT": os.path.join(traces, "run-%p.trace")})

    def run_variant(variant, args, extra_env=None):
        exe, libdir = variants[variant]
        env = dict(base_env, LD_LIBRARY_PATH=libdir, **(extra_env or {}))
        return timed_run([exe] + args, env)

    configs = []
    for mode, threads in ctx.options.workloads:
        args = ["-m", mode, "-t", str(threads), "-s", str(scale)]
        # Untimed: check that the variants agree, count the calls, hear what the runtime says.
        outputs = {name: run_variant(name, args)[2].strip() for name, _ in VARIANTS}
        if len(set(outputs.values())) != 1:
            raise BenchError(f"variants disagree on the workload's result: {outputs}")
        count_err = run_variant("count", args)[3]
        calls = int(count_err.split()[-1]) if "instrumented-calls" in count_err else None
        clear_dir(traces)
        runtime_said = run_variant("runtime", args, {"ORDERFILE_VERBOSE": "1"})[3]
        written = [f for f in os.listdir(traces) if f.endswith(".trace")]
        if not written:
            raise BenchError(f"the runtime wrote no trace to {traces}: the comparison would be meaningless")
        trace_bytes = os.path.getsize(os.path.join(traces, written[0]))
        clear_dir(traces)

        rounds = interleave([name for name, _ in VARIANTS], runs, lambda name: run_variant(name, args),
                            f"overhead: {mode}:{threads}", lambda: clear_dir(traces))
        walls = {name: [rd[name][0] for rd in rounds] for name, _ in VARIANTS}
        cpus = {name: [rd[name][1] for rd in rounds] for name, _ in VARIANTS}
        paired = [rd["runtime"][0] / rd["empty"][0] for rd in rounds]

        med = {name: statistics.median(walls[name]) for name, _ in VARIANTS}
        cpu_med = {name: statistics.median(cpus[name]) for name, _ in VARIANTS}
        # The gate: each round runs the variants back to back, so the ratio within a round
        # cancels most of the drift in a shared machine's load; the median over rounds
        # drops the rounds a burst of load hit.
        ratio = statistics.median(paired)
        noise = max(relative_spread(walls[name]) for name, _ in VARIANTS)
        configs.append(OverheadConfig(
            workload=f"{mode}:{threads}", mode=mode, threads=threads,
            instrumented_calls=calls, trace_bytes=trace_bytes,
            runtime_summary=runtime_said.strip().splitlines()[-1] if runtime_said.strip() else None,
            wall={name: Summary.of(walls[name]) for name, _ in VARIANTS},
            cpu={name: Summary.of(cpus[name]) for name, _ in VARIANTS},
            ratio_runtime_empty=ratio,
            ratio_runtime_empty_of_medians=med["runtime"] / med["empty"],
            ratio_runtime_empty_cpu=cpu_med["runtime"] / cpu_med["empty"],
            noise=noise, noisy=noise > NOISE_LIMIT,
            ratio_empty_uninstrumented=med["empty"] / med["uninstrumented"],
            ns_per_call_runtime_minus_empty=(med["runtime"] - med["empty"]) / calls * 1e9 if calls else None,
            ns_per_call_empty_minus_uninstrumented=(
                (med["empty"] - med["uninstrumented"]) / calls * 1e9 if calls else None),
            passed=ratio <= OVERHEAD_GOAL,
        ))

    # Context, not gated: what the runtime costs a process that does next to nothing.
    fixed = interleave(["tiny-empty", "tiny-runtime"], max(runs, FIXED_COST_MIN_ROUNDS),
                       lambda name: run_variant(name, [])[0], "overhead: fixed cost", lambda: clear_dir(traces))
    return OverheadResult(
        goal=f"runtime / empty hooks <= {OVERHEAD_GOAL:.2f}",
        gate="median over rounds of the runtime / empty-hooks wall-time ratio, on every workload",
        noise_limit=NOISE_LIMIT, program=f"callheavy -s {scale}", runs=runs, configs=configs,
        fixed_cost=FixedCost(empty_ms=statistics.median(rd["tiny-empty"] for rd in fixed) * 1e3,
                             runtime_ms=statistics.median(rd["tiny-runtime"] for rd in fixed) * 1e3),
        passed=all(c.passed for c in configs),
    )


def render_text(res):
    out = [f"== overhead: runtime hooks versus empty hooks (goal: {res.goal}) ==",
           f"program: Benchmarks/overhead/{res.program}; workload = mode:threads; "
           f"{res.runs} timed runs per variant, interleaved in rotating order",
           "the instrumented variants run one executable; only the hooks library differs",
           "",
           f"{'workload':<9} {'variant':<27} {'median':>8} {'min':>8} {'max':>8} {'cpu median':>11}"]
    for c in res.configs:
        for name, label in VARIANTS:
            w, cpu = c.wall[name], c.cpu[name]
            out.append(f"{c.workload:<9} {label:<27} {w.median:>7.3f}s {w.min:>7.3f}s "
                       f"{w.max:>7.3f}s {cpu.median:>10.3f}s")
    out.append("")
    out.append(f"{'workload':<9} {'runtime/empty':>13} {'medians':>8} {'cpu':>6} {'empty/uninstr':>13} "
               f"{'calls/run':>10} {'ns/call':>8} {'noise':>6}  verdict")
    for c in res.configs:
        calls = f"{c.instrumented_calls / 1e6:.1f}M" if c.instrumented_calls else "?"
        ns = c.ns_per_call_runtime_minus_empty
        ns_text = f"{ns:+.2f}" if ns is not None else "?"
        text = verdict(c.passed) + f" (goal <= {OVERHEAD_GOAL:.2f})"
        if c.noisy:
            text += ", noisy"
        out.append(f"{c.workload:<9} {c.ratio_runtime_empty:>13.3f} "
                   f"{c.ratio_runtime_empty_of_medians:>8.3f} {c.ratio_runtime_empty_cpu:>6.3f} "
                   f"{c.ratio_empty_uninstrumented:>13.3f} {calls:>10} {ns_text:>8} "
                   f"{c.noise * 100:>5.1f}%  {text}")
    out.append("runtime/empty: median over rounds of the ratio within a round (the gate); medians: ratio of")
    out.append("the median wall times; cpu: ratio of median user+sys times; ns/call: (runtime - empty) median")
    out.append("wall time per instrumented call; noise: largest interquartile range over median of a variant")
    if any(c.noisy for c in res.configs):
        out.append(f"noisy: timings spread by more than {NOISE_LIMIT * 100:.0f}%; the machine was busy, "
                   "rerun when it is quieter before trusting a verdict")
    for c in res.configs:
        if c.runtime_summary:
            out.append(f"runtime on {c.workload} (ORDERFILE_VERBOSE=1): {c.runtime_summary}")
    f = res.fixed_cost
    out.append(f"fixed cost per process (tiny.c, not gated): {f.empty_ms:.2f} ms with empty hooks, "
               f"{f.runtime_ms:.2f} ms with the runtime ({f.runtime_ms - f.empty_ms:+.2f} ms)")
    return out


def _workload_label(c, seen_modes):
    label = f"`{c.mode}`, {c.threads} thread{'s' if c.threads != 1 else ''}"
    if c.mode not in seen_modes and c.mode in MODE_NOTES:
        label += f" ({MODE_NOTES[c.mode]})"
    seen_modes.add(c.mode)
    return label


def render_markdown(res, report):
    seen = set()
    rows = []
    for c in res.configs:
        calls = f"{c.instrumented_calls / 1e6:.1f} M" if c.instrumented_calls else ""
        rows.append([_workload_label(c, seen), calls, f"{c.ratio_runtime_empty:.3f}",
                     f"{c.ratio_empty_uninstrumented:.2f}", verdict(c.passed) + (", noisy" if c.noisy else "")])
    per_call = "; ".join(f"`{c.workload}` {c.ns_per_call_runtime_minus_empty:+.1f} ns"
                         for c in res.configs if c.ns_per_call_runtime_minus_empty is not None)
    f = res.fixed_cost
    notes = [f"{report.provenance()} {res.runs} runs of each variant, interleaved.", "",
             md.table(["workload", "calls per run", "runtime ÷ empty hooks", "empty hooks ÷ uninstrumented",
                       "verdict"], ["l", "r", "r", "r", "l"], rows), ""]
    if per_call:
        notes.append(f"Runtime minus empty hooks, median wall time per call: {per_call}.")
    notes.append(f"A process that does almost nothing (`tiny.c`): {f.empty_ms:.2f} ms with empty hooks, "
                 f"{f.runtime_ms:.2f} ms with the runtime ({f.runtime_ms - f.empty_ms:+.2f} ms for starting it "
                 "and finalizing its trace).")
    return {"overhead": "\n".join(notes)}


SECTION = Section(
    name="overhead",
    help="call-heavy workloads: runtime hooks versus empty hooks (goal: the runtime build is at most "
         "1.10x the empty-hooks build, on every workload)",
    result_type=OverheadResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

"""instrumentation: the real programs uninstrumented, with empty hooks, with the runtime
and with LLVM's temporal profiling."""

import os
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import NOISE_LIMIT, OVERHEAD_GOAL, BenchError, verdict
from ..model import json_name
from ..process import clear_dir, interleave, run_measured
from ..realprograms import PROGRAMS, short_name
from ..section import Section
from ..stats import Summary, relative_spread

VARIANTS = [
    ("uninstrumented", "uninstrumented"),
    ("empty", "instrumented, empty hooks"),
    ("runtime", "instrumented, this runtime"),
    ("llvm", "LLVM temporal profiling"),
]
MARKDOWN_VARIANTS = ["uninstrumented", "empty hooks", "this runtime", "LLVM temporal profiling"]
LAUNCH_MIN_ROUNDS = 30


@dataclass
class InstrumentationConfig:
    program: str
    scenario: str
    command: str
    rounds: int
    wall: dict[str, Summary]
    vs_uninstrumented: dict[str, float]  # ratio of medians
    ratio_runtime_empty: float  # the gate: median over rounds of the ratio within a round
    ratio_runtime_empty_of_medians: float
    runtime_minus_empty_ms: float
    noise: float
    noisy: bool
    gated: bool
    passed: bool | None = json_name("pass")  # None when not gated


@dataclass
class InstrumentationResult:
    goal: str
    gate: str
    configs: list[InstrumentationConfig]
    passed: bool = json_name("pass")


def run(ctx):
    runs = ctx.options.runs
    hooks = ctx.hooks
    traces = os.path.join(ctx.scratch, "instrumentation-traces")
    os.makedirs(traces, exist_ok=True)
    configs = []
    for program in PROGRAMS:
        b = ctx.build(program)
        variants = {
            "uninstrumented": (b.exes.default, hooks.plain),
            "empty": (b.exes.instr, hooks.empty),
            "runtime": (b.exes.instr, hooks.rtime),
            "llvm": (b.exes.pgo, hooks.plain),
        }
        # Every variant gets the same environment; each only reads the variables it knows.
        base_env = ctx.env({"ORDERFILE_OUTPUT": os.path.join(traces, "run-%p.trace"),
                            "LLVM_PROFILE_FILE": os.path.join(traces, "run-%p.profraw")})
        for scenario, args, text, rounds, gated in [
            ("launch", program.launch_args, program.launch_text, max(3 * runs, LAUNCH_MIN_ROUNDS), False),
            ("call-heavy", program.heavy_args(b.dir), program.heavy_text, runs, True),
        ]:
            def run_variant(name):
                exe, libdir = variants[name]
                return run_measured([exe] + args, f"{program.name} {scenario} ({name})",
                                    env=dict(base_env, LD_LIBRARY_PATH=libdir))
            outputs = {name: run_variant(name)[2] for name, _ in VARIANTS}  # warm-up, and a check
            if len(set(outputs.values())) != 1:
                raise BenchError(f"the builds of {program.name} disagree on the {scenario} scenario's output")
            clear_dir(traces)
            timed = interleave([name for name, _ in VARIANTS], rounds, lambda name: run_variant(name)[0],
                               f"instrumentation: {program.name} {scenario}", lambda: clear_dir(traces))
            walls = {name: [rd[name] for rd in timed] for name, _ in VARIANTS}
            paired = [rd["runtime"] / rd["empty"] for rd in timed]
            med = {name: statistics.median(walls[name]) for name, _ in VARIANTS}
            ratio = statistics.median(paired)
            noise = max(relative_spread(walls[name]) for name, _ in VARIANTS)
            configs.append(InstrumentationConfig(
                program=program.name, scenario=scenario, command=text, rounds=rounds,
                wall={name: Summary.of(walls[name]) for name, _ in VARIANTS},
                vs_uninstrumented={name: med[name] / med["uninstrumented"] for name, _ in VARIANTS},
                ratio_runtime_empty=ratio,
                ratio_runtime_empty_of_medians=med["runtime"] / med["empty"],
                runtime_minus_empty_ms=(med["runtime"] - med["empty"]) * 1e3,
                noise=noise, noisy=noise > NOISE_LIMIT, gated=gated,
                passed=(ratio <= OVERHEAD_GOAL) if gated else None,
            ))
    return InstrumentationResult(
        goal=f"runtime / empty hooks <= {OVERHEAD_GOAL:.2f} on the call-heavy scenarios",
        gate="median over rounds of the runtime / empty-hooks wall-time ratio within a round",
        configs=configs, passed=all(c.passed for c in configs if c.gated))


def _verdict(c):
    if c.gated:
        text = verdict(c.passed) + f" (goal <= {OVERHEAD_GOAL:.2f})"
    else:
        text = "not gated (fixed per-process cost dominates)"
    return text + (", noisy" if c.noisy else "")


def render_text(res):
    out = [f"== instrumentation: overhead on the real programs (goal: {res.goal}) ==",
           "builds: uninstrumented and instrumented (-finstrument-functions-after-inlining) with the toolchain's "
           "clang; LLVM temporal profiling (-fprofile-generate -mllvm -pgo-temporal-instrumentation) with "
           "clang-22; all -O2 -ffunction-sections. The two instrumented variants run one executable, only "
           "the hooks library differs; variants interleaved in rotating order",
           "",
           f"{'program':<8} {'scenario':<11} {'rounds':>6} " + " ".join(f"{label:>28}" for _, label in VARIANTS)]
    for c in res.configs:
        cells = " ".join(f"{c.wall[name].median * 1e3:>9.2f} ms ({c.vs_uninstrumented[name]:>5.2f}x)".rjust(28)
                         for name, _ in VARIANTS)
        out.append(f"{c.program:<8} {c.scenario:<11} {c.rounds:>6} {cells}")
    out.append("(median wall time; in parentheses, ratio of medians to the uninstrumented build)")
    out.append("")
    out.append(f"{'program':<8} {'scenario':<11} {'runtime/empty':>13} {'medians':>8} {'runtime-empty':>13} "
               f"{'noise':>6}  verdict")
    for c in res.configs:
        out.append(f"{c.program:<8} {c.scenario:<11} {c.ratio_runtime_empty:>13.3f} "
                   f"{c.ratio_runtime_empty_of_medians:>8.3f} {c.runtime_minus_empty_ms:>+10.2f} ms "
                   f"{c.noise * 100:>5.1f}%  {_verdict(c)}")
    out.append("runtime-empty: difference of the median wall times; on the launch scenarios it is the runtime's")
    out.append("fixed cost per process (creating, mapping and finalizing the trace), which the call-heavy")
    out.append("scenarios pay too")
    for c in res.configs:
        out.append(f"  {c.program} {c.scenario}: {c.command}")
    return out


def render_markdown(res, report):
    rows = []
    for c in res.configs:
        cells = []
        for name, _ in VARIANTS:
            ms = f"{c.wall[name].median * 1e3:.2f} ms"
            cells.append(ms if name == "uninstrumented" else f"{ms} ({c.vs_uninstrumented[name]:.2f}×)")
        text = verdict(c.passed) if c.gated else "not gated"
        rows.append([short_name(c.program), c.scenario] + cells
                    + [f"{c.ratio_runtime_empty:.3f}", f"{c.runtime_minus_empty_ms:+.2f} ms",
                       text + (", noisy" if c.noisy else "")])
    rounds = " and ".join(dict.fromkeys(f"{c.rounds} rounds for the {c.scenario} scenarios" for c in res.configs))
    noise = "; ".join(f"{short_name(c.program)} {c.scenario} {c.noise * 100:.0f}%" for c in res.configs)
    body = [f"{report.provenance()} {rounds[0].upper()}{rounds[1:]}.", "",
            md.table(["program", "scenario"] + MARKDOWN_VARIANTS
                     + ["runtime ÷ empty hooks", "runtime − empty", "verdict"],
                     ["l", "l", "r", "r", "r", "r", "r", "r", "l"], rows), "",
            f"Spread of the timings (largest interquartile range over median of a variant): {noise}."]
    return {"instrumentation": "\n".join(body)}


SECTION = Section(
    name="instrumentation",
    help="the same programs' launch and call-heavy scenarios, uninstrumented, with empty hooks, with the "
         "runtime and with LLVM's temporal profiling (goal: runtime at most 1.10x empty hooks on the "
         "call-heavy scenarios)",
    result_type=InstrumentationResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

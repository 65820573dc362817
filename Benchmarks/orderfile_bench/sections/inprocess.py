"""inprocess: the in-process recorder (`orderfile record --recorder in-process`, the default for a
dynamically linked program) against the uninstrumented launch, the tracer and the instrumented
build with the runtime, interleaved in one run; arming a generated program of 300,000 entries; and
the order each recorder sees."""

import json
import os
import statistics
import struct
import sys
from dataclasses import dataclass

from .. import markdown as md
from ..common import BenchError, verdict
from ..model import json_name
from ..process import clear_dir, interleave, run_checked, run_measured
from ..section import Section
from ..stats import Summary
from .norebuild import _Example, _RealProgram, kendall_tau, _entries
from ..realprograms import PROGRAMS

LAUNCH_GOAL = 1.5        # the launch under the in-process recorder, at most 1.5x the uninstrumented one
COMMAND_GOAL_MS = 100.0  # the whole record command, at most the launch plus 100 ms
ARM_ENTRIES = 300_000
ARM_GOAL_MS = 150.0
VARIANTS = ["uninstrumented", "record in-process", "record tracer", "runtime"]
# Trace header (Docs/TraceFormat.md, 1.3): recorder_ns and arming_ns.
RECORDER_OFFSET, ARMING_OFFSET = 184, 192


@dataclass
class InProcessCost:
    program: str
    command: str
    rounds: int
    wall: dict[str, Summary]             # variant -> wall time (the whole command for record)
    launch_in_process: Summary           # process start to exit under the in-process recorder, wall clock
    launch_ratio: float                  # its median / the uninstrumented median
    command_extra_ms: float              # record in-process median - uninstrumented median
    recorder_ms: Summary                 # the recorder's own time inside the program (recorder_ns)
    kendall_tau: float                   # in-process order against the tracer's, over shared entries
    shared: int
    only_in_process: list[str]
    only_tracer: list[str]
    passed: bool = json_name("pass")


@dataclass
class InProcessResult:
    goal: str
    costs: list[InProcessCost]
    arming_entries: int
    arming_ms: float
    arming_passed: bool
    passed: bool = json_name("pass")


def _header_u64(path, offset):
    with open(path, "rb") as f:
        f.seek(offset)
        return struct.unpack("<Q", f.read(8))[0]


def _order(ctx, trace, module, out):
    run_checked([ctx.orderfile, "generate", trace, "--module", module, "-o", out], "orderfile generate", env=ctx.env())
    return _entries(out)


def _cost(ctx, subject, d, rounds):
    tool = ctx.orderfile
    scratch = os.path.join(d, "cost-" + subject.name)
    os.makedirs(scratch, exist_ok=True)
    inproc, tracer = os.path.join(scratch, "in-process.trace"), os.path.join(scratch, "tracer.trace")
    variants = {
        "uninstrumented": ([subject.default] + subject.args, {}),
        "record in-process": ([tool, "record", "--recorder", "in-process", "-q", "-o", inproc, "--", subject.default]
                              + subject.args, {}),
        "record tracer": ([tool, "record", "--recorder", "tracer", "-q", "-o", tracer, "--", subject.default]
                          + subject.args, {}),
        "runtime": ([subject.instrumented] + subject.args,
                    dict(subject.instrumented_env, ORDERFILE_OUTPUT=os.path.join(scratch, "i-%p.trace"))),
    }
    launches, recorder = [], []

    def measure(name):
        cmd, extra = variants[name]
        wall = run_measured(cmd, f"{subject.name} ({name})", env=ctx.env(extra))[0]
        if name == "record in-process":
            report = json.loads(run_checked([tool, "report", inproc, "--json"], "orderfile report", env=ctx.env()))
            spent = _header_u64(inproc, RECORDER_OFFSET) / 1e9
            # Phases are on the program's clock: the wall-clock launch adds the recorder's time back.
            launches.append(max(p["endNanoseconds"] for p in report["phases"]) / 1e9 + spent)
            recorder.append(spent)
        return wall

    for name in variants:
        measure(name)  # warm-up
    launches.clear()
    recorder.clear()
    timed = interleave(list(variants), rounds, measure, f"inprocess: cost of {subject.name}",
                       lambda: clear_dir(scratch))
    walls = {name: [r[name] for r in timed] for name in variants}
    medians = {name: statistics.median(w) for name, w in walls.items()}
    # One more recording of each kind, kept, for the orders.
    run_checked(variants["record in-process"][0], "recording in-process", env=ctx.env())
    run_checked(variants["record tracer"][0], "recording with the tracer", env=ctx.env())
    module = os.path.basename(subject.default)
    first = _order(ctx, inproc, module, os.path.join(scratch, "in-process.order"))
    second = _order(ctx, tracer, module, os.path.join(scratch, "tracer.order"))
    only_first = [n for n in first if n not in set(second)]
    only_second = [n for n in second if n not in set(first)]
    tau = kendall_tau(first, second)
    launch = Summary.of(launches)
    ratio = launch.median / medians["uninstrumented"]
    extra_ms = (medians["record in-process"] - medians["uninstrumented"]) * 1e3
    return InProcessCost(
        program=subject.name, command=subject.command, rounds=rounds,
        wall={name: Summary.of(w) for name, w in walls.items()}, launch_in_process=launch, launch_ratio=ratio,
        command_extra_ms=extra_ms, recorder_ms=Summary.of([r * 1e3 for r in recorder]), kendall_tau=tau,
        shared=len(set(first) & set(second)), only_in_process=only_first, only_tracer=only_second,
        passed=ratio <= LAUNCH_GOAL and extra_ms <= COMMAND_GOAL_MS and tau == 1.0 and not only_first
        and not only_second)


def _arming(ctx, d):
    """A generated program of ARM_ENTRIES one-instruction functions (assembly: fast to build),
    recorded in-process: the arming time it wrote into its trace."""
    src = os.path.join(d, "arm.s")
    with open(src, "w") as f:
        f.write("\t.text\n")
        for i in range(ARM_ENTRIES):
            f.write(f"\t.globl f{i}\n\t.type f{i},@function\nf{i}:\n\tret\n\t.size f{i},.-f{i}\n")
        f.write("\t.globl main\n\t.type main,@function\nmain:\n\tcall f0\n\txorl %eax,%eax\n\tret\n"
                "\t.size main,.-main\n\t.section .note.GNU-stack,\"\",@progbits\n")
    exe = os.path.join(d, "arm")
    run_checked([ctx.cc, src, "-o", exe], "building the 300,000-function program", env=ctx.env())
    trace = os.path.join(d, "arm.trace")
    run_checked([ctx.orderfile, "record", "--recorder", "in-process", "-q", "-o", trace, "--", exe],
                "recording the 300,000-function program in-process", env=ctx.env())
    return _header_u64(trace, ARMING_OFFSET) / 1e6


def run(ctx):
    d = os.path.join(ctx.scratch, "inprocess")
    os.makedirs(d, exist_ok=True)
    subjects = [_Example(ctx)] + [_RealProgram(ctx, p) for p in PROGRAMS]
    rounds = max(ctx.options.runs, 10)
    costs = [_cost(ctx, s, d, rounds) for s in subjects]
    arming_ms = _arming(ctx, d)
    arming_passed = arming_ms < ARM_GOAL_MS
    return InProcessResult(
        goal=f"the launch under the in-process recorder at most {LAUNCH_GOAL}x the uninstrumented one; the whole "
             f"record command at most the launch plus {COMMAND_GOAL_MS:.0f} ms; arming {ARM_ENTRIES:,} entries in "
             f"under {ARM_GOAL_MS:.0f} ms; Kendall tau 1.0 against the tracer and no entry seen by one alone",
        costs=costs, arming_entries=ARM_ENTRIES, arming_ms=arming_ms, arming_passed=arming_passed,
        passed=arming_passed and all(c.passed for c in costs))


def _met(ok):
    return "met" if ok else "missed"


def render_text(res):
    out = [f"== inprocess: the in-process recorder (goal: {res.goal}) ==", ""]
    for c in res.costs:
        cells = ", ".join(f"{v} {c.wall[v].median * 1e3:.2f} ms" for v in VARIANTS)
        out.append(f"{c.program} ({c.command}), medians of {c.rounds} interleaved rounds: {cells}")
        out.append(f"  launch under the in-process recorder {c.launch_in_process.median * 1e3:.2f} ms "
                   f"({c.launch_ratio:.2f}x, goal {LAUNCH_GOAL}x: {_met(c.launch_ratio <= LAUNCH_GOAL)}); "
                   f"recorder's own time {c.recorder_ms.median:.2f} ms")
        out.append(f"  whole record in-process: launch + {c.command_extra_ms:.0f} ms "
                   f"(goal + {COMMAND_GOAL_MS:.0f} ms: {_met(c.command_extra_ms <= COMMAND_GOAL_MS)})")
        out.append(f"  against the tracer: {c.shared} shared entries, Kendall tau {c.kendall_tau:.3f}; only in-process "
                   f"{len(c.only_in_process)} {c.only_in_process[:5]}, only tracer {len(c.only_tracer)} "
                   f"{c.only_tracer[:5]}: {_met(c.kendall_tau == 1.0 and not c.only_in_process and not c.only_tracer)}")
    out.append(f"arming {res.arming_entries:,} entries: {res.arming_ms:.1f} ms (goal < {ARM_GOAL_MS:.0f} ms: "
               f"{_met(res.arming_passed)})")
    out.append(verdict(res.passed))
    return out


def render_markdown(res, report):
    rows = []
    for c in res.costs:
        u = c.wall["uninstrumented"].median
        rows.append([c.program, f"{u * 1e3:.2f} ms",
                     md.bold(f"{c.launch_in_process.median * 1e3:.2f} ms ({c.launch_ratio:.2f}x)") + ", "
                     + _met(c.launch_ratio <= LAUNCH_GOAL),
                     f"{c.wall['record in-process'].median * 1e3:.2f} ms (+{c.command_extra_ms:.0f} ms), "
                     + _met(c.command_extra_ms <= COMMAND_GOAL_MS),
                     f"{c.wall['record tracer'].median * 1e3:.2f} ms ({c.wall['record tracer'].median / u:.2f}x)",
                     f"{c.wall['runtime'].median * 1e3:.2f} ms ({c.wall['runtime'].median / u:.2f}x)",
                     f"{c.kendall_tau:.3f}; {len(c.only_in_process)} / {len(c.only_tracer)}, "
                     + _met(c.kendall_tau == 1.0 and not c.only_in_process and not c.only_tracer)])
    only = [f"{c.program}: only in-process {', '.join(c.only_in_process[:5]) or 'none'}; only the tracer "
            f"{', '.join(c.only_tracer[:5]) or 'none'}." for c in res.costs]
    body = [f"{report.provenance()}", "",
            f"Medians of {res.costs[0].rounds if res.costs else 0} interleaved rounds; in parentheses the ratio to "
            "the uninstrumented launch:", "",
            md.table(["program", "uninstrumented", "launch under the in-process recorder (goal ≤ 1.5×)",
                      "whole `record`, in-process (goal ≤ launch + 100 ms)", "whole `record`, tracer",
                      "instrumented, runtime", "Kendall τ vs tracer; entries only in-process / only tracer"],
                     ["l", "r", "r", "r", "r", "r", "l"], rows), "",
            "The launch under the in-process recorder runs from the spawn to the program's exit on the wall clock "
            "(the trace's program-clock end plus the recorder's own time, `recorder_ns`).", ""] + only + [
            "", f"Arming {res.arming_entries:,} entries (a generated program, the library's `arming_ns`): "
            f"{res.arming_ms:.1f} ms, goal under {ARM_GOAL_MS:.0f} ms: {_met(res.arming_passed)}.", "",
            f"Goal: {res.goal}: {verdict(res.passed)}."]
    return {"inprocess": "\n".join(body)}


SECTION = Section(
    name="inprocess",
    help="the in-process recorder against the uninstrumented launch, the tracer and the runtime; arming 300,000 "
         "entries; agreement with the tracer (goal: launch <= 1.5x, record <= launch + 100 ms, arming < 150 ms, "
         "tau 1.0)",
    result_type=InProcessResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

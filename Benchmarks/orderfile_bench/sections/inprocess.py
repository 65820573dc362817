"""inprocess: the in-process recorder (`orderfile record --recorder in-process`, the default for a
dynamically linked program) against the uninstrumented launch, the tracer and the instrumented
build with the runtime, interleaved in one run; arming a generated program of 300,000 entries; and
the order each recorder sees.

Programs: the bundled example, Lua and SQLite (as the norebuild section builds them), ninja built
by clang++ with its own static library libninja.a (a C++ program with a library of its own), and
a SwiftPM tool over swift-argument-parser, swift-collections and swift-log (a real Swift package
with dependencies); ninja and the Swift tool are built as the measured section builds them
(ownbuilds.py), each also instrumented for the runtime.

report's phases. Each round also launches the uninstrumented binary once more with the kernel
timing it (launchprobe.py): the fork of the child, a uprobe on `main` and on the function each
recorder saw first (its "first hook"), and the exit of its last thread, on one kernel clock.
Every phase of `orderfile report --json` from each recorder's trace (process start -> first
hook -> main -> exit, with the recorder's own time already taken out) and its time before main
(`preMain.mainNanoseconds`) is held against the same span of that launch: goal within 10% or
1 ms. The baseline is fair because it shares none of the recorders' assumptions: nothing is
preloaded, nothing is planted before the program runs, no time is subtracted, and its clock is
the kernel's, not the recorder's spawn time; its only cost is one kernel-handled breakpoint per
probed call (a few microseconds; `main` and the usual first hooks, `_init` or a constructor, run
once). Without root or uprobes the phases are not compared and the section says why. The same
launch, fork to exit, is the span the in-process launch goal is held against: the wall clock of
the uninstrumented launch also holds this script's own spawn and wait.
"""

import json
import os
import shutil
import statistics
import struct
import sys
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import BenchError, note, verdict
from ..launchprobe import LaunchProbe, ProbeUnavailable
from ..model import json_name
from ..ownbuilds import (SWIFT_ARGS, SWIFT_COMMAND, SWIFT_TITLE, build_ninja, link_ninja_with_library,
                         swift_package_build, swift_package_instrumented)
from ..process import clear_dir, interleave, run_checked, run_measured
from ..realprograms import PROGRAMS
from ..section import Section
from ..stats import Summary
from ..toolchain import instrument_cflags
from .languages import _flags
from .norebuild import _Example, _RealProgram, _Subject, kendall_tau, _entries

LAUNCH_GOAL = 1.5        # the launch under the in-process recorder, at most 1.5x the uninstrumented one
COMMAND_GOAL_MS = 100.0  # the whole record command, at most the launch plus 100 ms
PHASE_SHARE, PHASE_FLOOR_MS = 0.10, 1.0  # each phase within 10% or 1 ms of the uninstrumented launch
RECORDERS = {"in-process": "record in-process", "tracer": "record tracer"}  # recorder -> its variant
BASELINE = "uninstrumented, kernel-timed"
ARM_ENTRIES = 300_000
ARM_GOAL_MS = 150.0
VARIANTS = ["uninstrumented", "record in-process", "record tracer", "runtime"]
# Trace header (Docs/TraceFormat.md, 1.3): end_ns, recorder_ns and arming_ns.
END_OFFSET, RECORDER_OFFSET, ARMING_OFFSET = 152, 184, 192


@dataclass
class PhaseCheck:
    """One phase of `report` (or the time before main) from each recorder against the same span of
    the kernel-timed uninstrumented launch (launchprobe.py); medians in ms."""
    phase: str
    baseline_ms: dict[str, float | None]  # recorder -> the span in the baseline (the first hook is each recorder's)
    recorder_ms: dict[str, float]         # recorder -> the span in its report
    met: dict[str, bool]                  # recorder -> within PHASE_SHARE or PHASE_FLOOR_MS of the baseline


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
    phases: list[PhaseCheck] = field(default_factory=list)  # empty in reports saved before they were measured
    first_hook: dict[str, str] = field(default_factory=dict)  # recorder -> its first hook, "function (module)"
    phases_skipped: str | None = None  # why there is no kernel-timed baseline
    # The uninstrumented launch as the kernel times it, fork to exit (launchprobe.py), and the
    # launch under the in-process recorder against it: the same span on both sides, where the
    # wall clock of the uninstrumented launch also holds this script's own spawn and wait.
    kernel_launch_ms: Summary | None = None
    kernel_launch_ratio: float | None = None

    def launch_met(self):
        """The launch goal, against the kernel-timed launch when there is one."""
        ratio = self.launch_ratio if self.kernel_launch_ratio is None else self.kernel_launch_ratio
        return ratio <= LAUNCH_GOAL


@dataclass
class InProcessResult:
    goal: str
    costs: list[InProcessCost]
    arming_entries: int
    arming_ms: float
    arming_passed: bool
    passed: bool = json_name("pass")


class _Ninja(_Subject):
    """ninja, built by clang++: ninja.o linked against its own libninja.a."""
    name = "ninja"

    def __init__(self, ctx, d):
        cxx = os.path.join(os.path.dirname(ctx.cc), "clang++")
        lld_dir = os.path.dirname(ctx.lld)
        release = build_ninja(ctx, os.path.join(d, "ninja-release"), "clang++", cxx, lld_dir)
        self.command, self.args = release.command, release.args
        self.default = link_ninja_with_library(release, os.path.join(d, "ninja-release", "bin", "ninja"))
        instrumented = build_ninja(ctx, os.path.join(d, "ninja-instrumented"), "clang++ (instrumented)", cxx,
                                   lld_dir, instrument_cflags(ctx))
        # As the real programs: linked against the empty hooks, run with the runtime's directory.
        self.instrumented = link_ninja_with_library(instrumented,
                                                    os.path.join(d, "ninja-instrumented", "bin", "ninja"),
                                                    ["-L" + ctx.hooks.empty, "-lOrderfileRuntime"])
        self.instrumented_env = {"LD_LIBRARY_PATH": ctx.hooks.rtime}


class _SwiftPackage(_Subject):
    """The Swift tool over three packages, its release build and its instrumented one."""
    name, command, args = SWIFT_TITLE, SWIFT_COMMAND, SWIFT_ARGS

    def __init__(self, ctx, d):
        _, build, env, built = swift_package_build(ctx)
        run_checked(build, "building the Swift package", env=env, timeout=1800)
        os.makedirs(os.path.join(d, "swift"), exist_ok=True)
        self.default = os.path.join(d, "swift", "Greet")
        shutil.copy2(built, self.default)
        self.instrumented = swift_package_instrumented(ctx, _flags(ctx, "swift", ["--instrument"])[0])
        self.instrumented_env = {}


def _header_u64(path, offset):
    with open(path, "rb") as f:
        f.seek(offset)
        return struct.unpack("<Q", f.read(8))[0]


def _order(ctx, trace, module, out):
    run_checked([ctx.orderfile, "generate", trace, "--module", module, "-o", out], "orderfile generate", env=ctx.env())
    return _entries(out)


def _first_hook(report):
    """(function, module path) of the first call a report saw, or None."""
    calls = report.get("firstCalls") or []
    if not calls:
        return None
    first = min(calls, key=lambda c: c["timeNanoseconds"])
    return first["name"], report["modules"][first["module"]]["path"]


def _spans(report):
    """{phase name: (start boundary kind, end boundary kind, ms)} of a report, and "before main"."""
    kinds = {b["timeNanoseconds"]: b["kind"] for b in report["boundaries"]}
    spans = {p["name"]: (kinds.get(p["startNanoseconds"]), kinds.get(p["endNanoseconds"]),
                         (p["endNanoseconds"] - p["startNanoseconds"]) / 1e6) for p in report["phases"]}
    if report.get("preMain"):
        spans["before main"] = ("processStart", "main", report["preMain"]["mainNanoseconds"] / 1e6)
    return spans


def _baseline_span(times, start, end, hook):
    """The same span in a kernel-timed launch (ms), or None where it has no such boundary."""
    at = {"processStart": 0, "main": times.get("main"), "exit": times.get("exit"), "firstHook": times.get(hook)}
    if at.get(start) is None or at.get(end) is None:
        return None
    return (at[end] - at[start]) / 1e6


def _phase_checks(reports, probed, hooks):
    """Each recorder's phases (medians over rounds) against the kernel-timed launch's."""
    names = []
    for recorder in RECORDERS:
        for name in (_spans(reports[recorder][0]) if reports[recorder] else {}):
            if name not in names:
                names.append(name)
    checks = []
    for name in names:
        base, mine, met = {}, {}, {}
        for recorder in RECORDERS:
            spans = [_spans(r)[name] for r in reports[recorder] if name in _spans(r)]
            if not spans:
                continue
            mine[recorder] = statistics.median(x[2] for x in spans)
            start, end = spans[0][0], spans[0][1]
            values = [v for v in (_baseline_span(t, start, end, hooks.get(recorder)) for t in probed) if v is not None]
            base[recorder] = statistics.median(values) if values else None
            met[recorder] = (base[recorder] is not None
                             and abs(mine[recorder] - base[recorder]) <= max(PHASE_SHARE * base[recorder],
                                                                            PHASE_FLOOR_MS))
        checks.append(PhaseCheck(phase=name, baseline_ms=base, recorder_ms=mine, met=met))
    return checks


def _cost(ctx, subject, d, rounds, probe):
    tool = ctx.orderfile
    scratch = os.path.join(d, "cost-" + subject.name.split()[0])
    os.makedirs(scratch, exist_ok=True)
    inproc, tracer = os.path.join(scratch, "in-process.trace"), os.path.join(scratch, "tracer.trace")
    traces = {"in-process": inproc, "tracer": tracer}
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
    reports = {name: [] for name in RECORDERS}
    probed, events, hooks = [], {}, {}

    def measure(name):
        if name == BASELINE:
            wall, times, _ = probe.launch(variants["uninstrumented"][0], f"{subject.name} ({name})", ctx.env(), events)
            if times:
                probed.append(times)
            return wall
        cmd, extra = variants[name]
        wall = run_measured(cmd, f"{subject.name} ({name})", env=ctx.env(extra))[0]
        for who, variant in RECORDERS.items():
            if name == variant:
                reports[who].append(json.loads(run_checked([tool, "report", traces[who], "--json"], "orderfile report",
                                                           env=ctx.env())))
        if name == "record in-process":
            report = reports["in-process"][-1]
            spent = _header_u64(inproc, RECORDER_OFFSET) / 1e9
            # Phases are on the program's clock: the wall-clock launch adds the recorder's time back.
            launches.append(max(p["endNanoseconds"] for p in report["phases"]) / 1e9 + spent)
            recorder.append(spent)
        return wall

    for name in variants:
        measure(name)  # warm-up
    if probe:
        # The baseline probes main and the function each recorder saw first, in the unmodified files.
        events["main"] = probe.probe(subject.default, "main")
        for who in RECORDERS:
            first = _first_hook(reports[who][-1])
            if first:
                hooks[who] = f"{first[0]} ({os.path.basename(first[1])})"
                events[hooks[who]] = probe.probe(first[1], first[0])
        events = {label: event for label, event in events.items() if event}
        variants[BASELINE] = None
        measure(BASELINE)  # warm-up
    launches.clear()
    recorder.clear()
    probed.clear()
    for who in RECORDERS:
        reports[who].clear()
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
    phases = _phase_checks(reports, probed, hooks) if probe and probed else []
    kernel = Summary.of([t["exit"] / 1e6 for t in probed]) if probed else None
    kernel_ratio = launch.median * 1e3 / kernel.median if kernel else None
    skipped = None
    if probe is None:
        skipped = "no kernel-timed baseline on this machine"
    elif not probed:
        skipped = "the kernel-timed launches recorded no events"
    return InProcessCost(
        program=subject.name, command=subject.command, rounds=rounds,
        wall={name: Summary.of(w) for name, w in walls.items()}, launch_in_process=launch, launch_ratio=ratio,
        command_extra_ms=extra_ms, recorder_ms=Summary.of([r * 1e3 for r in recorder]), kendall_tau=tau,
        shared=len(set(first) & set(second)), only_in_process=only_first, only_tracer=only_second,
        passed=(kernel_ratio if kernel_ratio is not None else ratio) <= LAUNCH_GOAL and extra_ms <= COMMAND_GOAL_MS
        and tau == 1.0 and not only_first and not only_second and all(all(c.met.values()) for c in phases),
        phases=phases, first_hook=hooks, phases_skipped=skipped, kernel_launch_ms=kernel,
        kernel_launch_ratio=kernel_ratio)


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
    subjects = [_Example(ctx)] + [_RealProgram(ctx, p) for p in PROGRAMS] + [_Ninja(ctx, d), _SwiftPackage(ctx, d)]
    rounds = max(ctx.options.runs, 10)
    try:
        probe = LaunchProbe(d)
    except ProbeUnavailable as e:
        note(f"inprocess: {e}; report's phases are not compared")
        probe = None
    try:
        costs = [_cost(ctx, s, d, rounds, probe) for s in subjects]
    finally:
        if probe:
            probe.close()
    arming_ms = _arming(ctx, d)
    arming_passed = arming_ms < ARM_GOAL_MS
    return InProcessResult(
        goal=f"the launch under the in-process recorder at most {LAUNCH_GOAL}x the uninstrumented one; the whole "
             f"record command at most the launch plus {COMMAND_GOAL_MS:.0f} ms; arming {ARM_ENTRIES:,} entries in "
             f"under {ARM_GOAL_MS:.0f} ms; Kendall tau 1.0 against the tracer and no entry seen by one alone; "
             f"each of report's phases and the time before main within {PHASE_SHARE:.0%} or {PHASE_FLOOR_MS:g} ms of "
             "the uninstrumented launch's",
        costs=costs, arming_entries=ARM_ENTRIES, arming_ms=arming_ms, arming_passed=arming_passed,
        passed=arming_passed and all(c.passed for c in costs))


def _met(ok):
    return "met" if ok else "missed"


def _tau(tau):
    """Three decimals, more when that would round a miss up to 1.000."""
    return f"{tau:.3f}" if tau == 1.0 or round(tau, 3) < 1.0 else f"{tau:.6f}"


def _ms(value):
    return "–" if value is None else f"{value:.2f} ms"


def _phase_rows(res):
    """[program, phase, recorder, baseline, recorder's, delta, met] for every check."""
    rows = []
    for c in res.costs:
        for check in c.phases:
            for who in RECORDERS:
                if who not in check.recorder_ms:
                    continue
                base, mine = check.baseline_ms.get(who), check.recorder_ms[who]
                rows.append([c.program, check.phase, who, _ms(base), _ms(mine),
                             "–" if base is None else f"{mine - base:+.2f} ms", _met(check.met[who])])
    return rows


PHASE_HEADER = ["program", "phase", "recorder", "uninstrumented, kernel-timed", "in the recorder's report", "delta",
                "within 10% or 1 ms"]


def _phase_text(res):
    out = [f"report's phases against the kernel-timed uninstrumented launch (medians; goal: each within "
           f"{PHASE_SHARE:.0%} or {PHASE_FLOOR_MS:g} ms):"]
    rows = _phase_rows(res)
    if rows:
        widths = [max(len(r[i]) for r in [PHASE_HEADER] + rows) for i in range(len(PHASE_HEADER))]
        for row in [PHASE_HEADER] + rows:
            out.append("  " + "  ".join(cell.ljust(w) if i < 3 else cell.rjust(w)
                                        for i, (cell, w) in enumerate(zip(row, widths))))
    for c in res.costs:
        if c.first_hook:
            out.append(f"  {c.program}: first hook " + "; ".join(f"{who} {hook}" for who, hook in c.first_hook.items()))
        if c.phases_skipped:
            out.append(f"  {c.program}: not compared: {c.phases_skipped}")
    return out


def render_text(res):
    out = [f"== inprocess: the in-process recorder (goal: {res.goal}) ==", ""]
    for c in res.costs:
        cells = ", ".join(f"{v} {c.wall[v].median * 1e3:.2f} ms" for v in VARIANTS)
        out.append(f"{c.program} ({c.command}), medians of {c.rounds} interleaved rounds: {cells}")
        kernel = (f"; {c.kernel_launch_ratio:.2f}x the kernel-timed launch, fork to exit, "
                  f"{c.kernel_launch_ms.median:.2f} ms" if c.kernel_launch_ms else "")
        out.append(f"  launch under the in-process recorder {c.launch_in_process.median * 1e3:.2f} ms "
                   f"({c.launch_ratio:.2f}x the wall-clock launch{kernel}; goal {LAUNCH_GOAL}x: "
                   f"{_met(c.launch_met())}); recorder's own time {c.recorder_ms.median:.2f} ms")
        out.append(f"  whole record in-process: launch + {c.command_extra_ms:.0f} ms "
                   f"(goal + {COMMAND_GOAL_MS:.0f} ms: {_met(c.command_extra_ms <= COMMAND_GOAL_MS)})")
        out.append(f"  against the tracer: {c.shared} shared entries, Kendall tau {_tau(c.kendall_tau)}; only in-process "
                   f"{len(c.only_in_process)} {c.only_in_process[:5]}, only tracer {len(c.only_tracer)} "
                   f"{c.only_tracer[:5]}: {_met(c.kendall_tau == 1.0 and not c.only_in_process and not c.only_tracer)}")
    out += _phase_text(res)
    out.append(f"arming {res.arming_entries:,} entries: {res.arming_ms:.1f} ms (goal < {ARM_GOAL_MS:.0f} ms: "
               f"{_met(res.arming_passed)})")
    out.append(verdict(res.passed))
    return out


def render_markdown(res, report):
    rows = []
    for c in res.costs:
        u = c.wall["uninstrumented"].median
        kernel = f"; {c.kernel_launch_ms.median:.2f} ms" if c.kernel_launch_ms else ""
        ratios = f"{c.launch_ratio:.2f}x" + (f"; {c.kernel_launch_ratio:.2f}x" if c.kernel_launch_ms else "")
        rows.append([c.program, f"{u * 1e3:.2f} ms{kernel}",
                     md.bold(f"{c.launch_in_process.median * 1e3:.2f} ms ({ratios})") + ", " + _met(c.launch_met()),
                     f"{c.wall['record in-process'].median * 1e3:.2f} ms (+{c.command_extra_ms:.0f} ms), "
                     + _met(c.command_extra_ms <= COMMAND_GOAL_MS),
                     f"{c.wall['record tracer'].median * 1e3:.2f} ms ({c.wall['record tracer'].median / u:.2f}x)",
                     f"{c.wall['runtime'].median * 1e3:.2f} ms ({c.wall['runtime'].median / u:.2f}x)",
                     f"{_tau(c.kendall_tau)}; {len(c.only_in_process)} / {len(c.only_tracer)}, "
                     + _met(c.kendall_tau == 1.0 and not c.only_in_process and not c.only_tracer)])
    only = [f"{c.program}: only in-process {', '.join(c.only_in_process[:5]) or 'none'}; only the tracer "
            f"{', '.join(c.only_tracer[:5]) or 'none'}." for c in res.costs]
    body = [f"{report.provenance()}", "",
            f"Medians of {res.costs[0].rounds if res.costs else 0} interleaved rounds; in parentheses the ratio to "
            "the uninstrumented launch (the launch under the in-process recorder: to its wall clock; to its "
            "kernel-timed span):", "",
            md.table(["program", "uninstrumented: wall clock; kernel-timed, fork to exit",
                      "launch under the in-process recorder (goal ≤ 1.5× the kernel-timed launch)",
                      "whole `record`, in-process (goal ≤ launch + 100 ms)", "whole `record`, tracer",
                      "instrumented, runtime", "Kendall τ vs tracer; entries only in-process / only tracer"],
                     ["l", "r", "r", "r", "r", "r", "l"], rows), "",
            "The launch under the in-process recorder runs from the spawn to the program's exit on the wall clock "
            "(the trace's program-clock end plus the recorder's own time, `recorder_ns`). Its goal is held against "
            "the same span of the uninstrumented launch, fork to exit as the kernel stamps them; the wall clock of "
            "the uninstrumented launch, from this script's spawn to its wait, also holds the script's own work. "
            "The whole commands are all on that wall clock.", ""] + only + [
            ""] + _phase_markdown(res) + [
            "", f"Arming {res.arming_entries:,} entries (a generated program, the library's `arming_ns`): "
            f"{res.arming_ms:.1f} ms, goal under {ARM_GOAL_MS:.0f} ms: {_met(res.arming_passed)}.", "",
            f"Goal: {res.goal}: {verdict(res.passed)}."]
    return {"inprocess": "\n".join(body)}


def _phase_markdown(res):
    rows = _phase_rows(res)
    if not rows:
        return ["`report`'s phases were not compared: " + "; ".join(
            f"{c.program}: {c.phases_skipped}" for c in res.costs if c.phases_skipped) + "."]
    hooks = "; ".join(f"{c.program}: " + ", ".join(f"{who} `{hook}`" for who, hook in c.first_hook.items())
                      for c in res.costs if c.first_hook)
    return ["`report`'s phases and the time before main from each recorder, against the same spans of the "
            "uninstrumented launch timed by the kernel (the fork of the child, a uprobe on `main` and on the "
            "function the recorder saw first, the exit of its last thread; Benchmarks/orderfile_bench/launchprobe.py), "
            f"interleaved in the same rounds; medians, goal each within {PHASE_SHARE:.0%} or {PHASE_FLOOR_MS:g} ms:",
            "", md.table(PHASE_HEADER, ["l", "l", "l", "r", "r", "r", "l"], rows), "",
            f"First hooks: {hooks}."]


SECTION = Section(
    name="inprocess",
    help="the in-process recorder against the uninstrumented launch, the tracer and the runtime, on the example, "
         "Lua, SQLite, ninja and a Swift package; report's phases from both recorders against the launch timed by "
         "the kernel; arming 300,000 entries; agreement with the tracer (goal: launch <= 1.5x, record <= launch + "
         "100 ms, arming < 150 ms, tau 1.0, each phase within 10% or 1 ms)",
    result_type=InProcessResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

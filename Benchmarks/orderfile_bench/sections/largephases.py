"""largephases: report's phases of large programs against their kernel-timed plain launch.

The inprocess section holds report's phases against the kernel-timed launch on small programs;
here the programs have thousands of first calls, where a cost per first call that the recorder
does not take out of its clock adds up to tens of milliseconds: a generated C program whose
main calls GENERATED_FUNCTIONS functions, a generated C++ program whose static constructors and
main make thousands of first calls and which forks and execs a child that makes its own before
main's wait returns, clang compiling and linking a small C file (a large C++ program whose
main → exit is mostly its wait for two children, clang -cc1 and ld.lld, each a large C++
program too; when the bench's clang has ld.lld beside it), and the Swift toolchain's
swift-frontend -version (about 250k functions, 210 MB) when the toolchain is on PATH. Each round records the program
in-process with `--timing-launch` (a second launch trapping only the functions that mark the
phases, whose times the report shows; the recording's own, `report --own-times`, are shown
beside them) and reads `orderfile report --json`, and launches the unmodified program under the
kernel's timing (launchprobe.py, uprobes on main and on the first hook), the two in turns;
medians. Without root or uprobes the section says why and compares nothing.

A program that starts others by exec (clang's driver) waits for them, so its main → exit holds
their errors: each child is also timed alone, from its exec to its exit in the plain launch and to
its trace's end in the recording (its own clock, its recorder's time out), to say which child a
miss comes from. Those lines inform; the verdict is the phases'.
"""

import glob
import json
import os
import shutil
import statistics
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import note, verdict
from ..launchprobe import LaunchProbe, ProbeUnavailable, exec_spans
from ..model import json_name
from ..process import run_checked
from ..section import Section
from .inprocess import END_OFFSET, PHASE_FLOOR_MS, PHASE_SHARE, PhaseCheck, _first_hook, _header_u64, _phase_checks

GENERATED_FUNCTIONS = 20_000
# The C++ program: functions its static constructors call, functions main calls, and functions
# the child it starts (itself again, by fork and exec) calls before main's wait returns.
CXX_CONSTRUCTED, CXX_MAIN, CXX_CHILD = 4_000, 8_000, 4_000
ROUNDS = 9


@dataclass
class ChildSpan:
    """A program the launch started by exec, from its exec to its end: the plain launch's exit, timed
    by the kernel, against its recording's trace end on its own clock (the recorder's time out)."""
    program: str
    baseline_ms: float   # median of the plain launches
    recorder_ms: float   # median of the recordings
    paired_ms: float     # median of each round's recording less that round's plain launch


@dataclass
class LargePhases:
    program: str
    command: str
    first_calls: int
    overhead: str                # report's line on what it took out
    phases: list[PhaseCheck]
    first_hook: str
    children: list[ChildSpan] = field(default_factory=list)
    # The recording's own phases (report --own-times: its recorder's time taken out), against the
    # same plain launches; they inform, the timing launch's are the verdict.
    own_phases: list[PhaseCheck] = field(default_factory=list)


def _children(spans, program, end, launch=0):
    """The programs `program`'s process started by exec, from `exec_spans`: [(file name, ns from exec
    to `end(pid, exit)`)] in exec order, None for a child `end` cannot time. Execs before the program
    (the recorder's own) and after it ended are not its children. `launch`: which launch of the
    program, 0 the first (1: a recording's timing launch)."""
    path = os.path.realpath(program)
    top, after = None, -1
    for _ in range(launch + 1):
        # A launch's top program: the first exec of it after the launch before had ended (its
        # children may be the program again: clang's -cc1).
        top = next((i for i, span in enumerate(spans) if i > after and span[1]
                    and os.path.realpath(span[1]) == path), None)
        if top is None:
            return []
        ended = spans[top][3]
        after = next((i for i, span in enumerate(spans) if ended is not None and span[2] > ended), len(spans)) - 1
    top_exit = spans[top][3]
    out = []
    for pid, file, started, ended in spans[top + 1:]:
        if top_exit is not None and started > top_exit:
            break
        stop = end(pid, ended)
        # A program that runs itself again (execl("/proc/self/exe")) is named after itself.
        named = program if file.startswith("/proc/") else file
        out.append((os.path.basename(named), None if stop is None or stop < started else stop - started))
    return out


def _child_spans(recorded, plain):
    """ChildSpans from each round's `_children` of the recordings and of the plain launches; a child
    is kept when every round that has it names the same file at its place."""
    spans = []
    for k in range(max((len(r) for r in recorded + plain), default=0)):
        rounds = [(r[k], p[k]) for r, p in zip(recorded, plain) if k < len(r) and k < len(p)]
        rounds = [(r, p) for r, p in rounds if r[1] is not None and p[1] is not None]
        if not rounds or len({x[0] for pair in rounds for x in pair}) != 1:
            continue
        spans.append(ChildSpan(program=rounds[0][0][0],
                               baseline_ms=statistics.median(p[1] for _, p in rounds) / 1e6,
                               recorder_ms=statistics.median(r[1] for r, _ in rounds) / 1e6,
                               paired_ms=statistics.median(r[1] - p[1] for r, p in rounds) / 1e6))
    return spans


def _trace_end(trace, pid):
    """Where the last image process `pid` ran ended its trace (CLOCK_MONOTONIC ns on the program's
    clock), or None: no trace, or not closed. A process `record` saw fork and then exec keeps the
    new image in <trace>.<pid>.exec<n>; one started by posix_spawn, in <trace>.<pid>."""
    images = sorted(glob.glob(f"{trace}.{pid}.exec*"), key=lambda path: int(path.rsplit("exec", 1)[1] or 0))
    path = images[-1] if images else f"{trace}.{pid}"
    if not os.path.exists(path):
        return None
    return _header_u64(path, END_OFFSET) or None


@dataclass
class LargePhasesResult:
    goal: str
    programs: list[LargePhases]
    passed: bool = json_name("pass")
    skipped: str | None = None


def _generated(ctx, d):
    """A C program whose main calls GENERATED_FUNCTIONS distinct functions once each."""
    source, binary = os.path.join(d, "calls.c"), os.path.join(d, "calls")
    with open(source, "w") as f:
        f.write("volatile unsigned long sink;\n")
        f.writelines(f"__attribute__((noinline)) void f{i}(void) {{ sink += {i}; }}\n"
                     for i in range(GENERATED_FUNCTIONS))
        f.write("int main(void) {\n")
        f.writelines(f"  f{i}();\n" for i in range(GENERATED_FUNCTIONS))
        f.write("  return 0;\n}\n")
    run_checked([ctx.cc, "-O1", source, "-o", binary], "building the generated program")
    return binary


def _generated_cxx(ctx, d):
    """A C++ program with CXX_CONSTRUCTED first calls in static constructors (before main),
    CXX_MAIN in main, and a child: main forks and execs the program again with `child`, which
    makes CXX_CHILD first calls of its own, and waits for it, so the child's whole launch is
    inside the parent's main → exit."""
    source, binary = os.path.join(d, "calls.cpp"), os.path.join(d, "calls-cxx")
    total = CXX_CONSTRUCTED + CXX_MAIN + CXX_CHILD
    with open(source, "w") as f:
        f.write("#include <string>\n#include <vector>\n#include <unistd.h>\n#include <sys/wait.h>\n"
                "volatile unsigned long sink;\n")
        f.writelines(f"__attribute__((noinline)) void f{i}() {{ sink += {i}; }}\n" for i in range(total))
        per = 100  # first calls per constructed object: CXX_CONSTRUCTED / per objects
        for k in range(CXX_CONSTRUCTED // per):
            f.write(f"struct S{k} {{ std::vector<std::string> names; S{k}() {{ names.emplace_back(\"s{k}\");\n")
            f.writelines(f"  f{i}();\n" for i in range(k * per, (k + 1) * per))
            f.write(f"}} }} s{k};\n")
        f.write("static void child() {\n")
        f.writelines(f"  f{i}();\n" for i in range(CXX_CONSTRUCTED + CXX_MAIN, total))
        f.write("}\nint main(int argc, char **argv) {\n"
                "  if (argc > 1) { child(); return 0; }\n")
        f.writelines(f"  f{i}();\n" for i in range(CXX_CONSTRUCTED, CXX_CONSTRUCTED + CXX_MAIN))
        f.write("  pid_t pid = fork();\n"
                "  if (pid == 0) { execl(\"/proc/self/exe\", argv[0], \"child\", (char *)0); _exit(127); }\n"
                "  int status = 0;\n  waitpid(pid, &status, 0);\n"
                "  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;\n}\n")
    cxx = os.path.join(os.path.dirname(ctx.cc), "clang++")
    run_checked([cxx, "-O1", source, "-o", binary], "building the generated C++ program")
    return binary


def _clang_link(ctx, d):
    """clang compiling and linking a small C file with ld.lld: a large C++ program (the driver)
    whose main → exit is mostly the wait for two children, each a large C++ program too (clang's
    -cc1 and ld.lld), when ctx.cc is a clang with ld.lld beside it."""
    lld = os.path.join(os.path.dirname(os.path.realpath(ctx.cc)), "ld.lld")
    if not os.path.exists(lld):
        note(f"largephases: no ld.lld beside {ctx.cc}; clang's link is not measured")
        return None
    source = os.path.join(d, "hello.c")
    with open(source, "w") as f:
        f.write("#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n")
    cmd = [os.path.realpath(ctx.cc), "-O1", "-fuse-ld=lld", "-o", os.path.join(d, "hello"), source]
    return cmd, "clang compiling and linking, two children (-cc1, ld.lld)"


def _measure(ctx, probe, d, cmd, name):
    """Recordings and kernel-timed plain launches of `cmd`, in turns: a machine whose speed drifts
    over a run (page cache, other guests: the plain loader phase of swift-frontend moved from 21 to
    17.4 ms between two runs of this section) moves both alike. A first recording, not counted,
    warms the caches and names the first hook the probe times."""
    tool, trace = ctx.orderfile, os.path.join(d, "large.trace")

    def recorded():
        for old in glob.glob(trace + ".*"):
            os.remove(old)
        _, events = probe.traced(lambda: run_checked([tool, "record", "--recorder", "in-process", "--timing-launch",
                                                      "-q", "-o", trace, "--"] + cmd, f"record {name}", env=ctx.env()))
        # The children whose times the report shows: the timing launch's.
        children = _children(exec_spans(events, os.getpid()), cmd[0],
                             lambda pid, _: _trace_end(trace + ".timing", pid), launch=1)
        report = json.loads(run_checked([tool, "report", trace, "--json"], "orderfile report", env=ctx.env()))
        own = json.loads(run_checked([tool, "report", trace, "--own-times", "--json"], "orderfile report --own-times",
                                     env=ctx.env()))
        return report, own, children

    first = _first_hook(recorded()[1])
    hook = f"{first[0]} ({os.path.basename(first[1])})" if first else None
    events = {"main": probe.probe(cmd[0], "main")}
    if first:
        events[hook] = probe.probe(first[1], first[0])
    events = {label: event for label, event in events.items() if event}

    def plain():
        _, times, text = probe.launch(cmd, f"{name} (uninstrumented, kernel-timed)", ctx.env(), events)
        return times, _children(exec_spans(text, os.getpid()), cmd[0], lambda _, exit: exit)

    plain()  # warm-up
    reports, owns, probed, recorded_children, plain_children = [], [], [], [], []
    for _ in range(ROUNDS):
        report, own, children = recorded()
        reports.append(report)
        owns.append(own)
        times, launched = plain()
        if times:
            probed.append(times)
        recorded_children.append(children)
        plain_children.append(launched)
    overhead = owns[-1].get("recorderOverhead") or {}
    children = overhead.get("childrenNanoseconds", 0)
    line = (f"arming {overhead.get('armingNanoseconds', 0) / 1e6:.2f} ms, traps "
            f"{overhead.get('trapsNanoseconds', 0) / 1e6:.2f} ms"
            + (f", children's {children / 1e6:.2f} ms" if children else "")) if overhead else "none"
    return LargePhases(program=name, command=" ".join([os.path.basename(cmd[0])] + cmd[1:]),
                       first_calls=int(statistics.median(len(r["firstCalls"]) for r in reports)), overhead=line,
                       phases=_phase_checks({"in-process": reports, "tracer": []}, probed,
                                            {"in-process": hook} if hook else {}),
                       first_hook=hook or "", children=_child_spans(recorded_children, plain_children),
                       own_phases=_phase_checks({"in-process": owns, "tracer": []}, probed,
                                                {"in-process": hook} if hook else {}))


def run(ctx):
    d = os.path.join(ctx.scratch, "largephases")
    os.makedirs(d, exist_ok=True)
    goal = (f"each of report's phases of a large program within {PHASE_SHARE:.0%} or {PHASE_FLOOR_MS:g} ms of the "
            "kernel-timed uninstrumented launch's")
    try:
        probe = LaunchProbe(d)
    except ProbeUnavailable as e:
        note(f"largephases: {e}")
        return LargePhasesResult(goal=goal, programs=[], passed=False, skipped=str(e))
    subjects = [([_generated(ctx, d)], f"generated C, {GENERATED_FUNCTIONS:,} functions"),
                ([_generated_cxx(ctx, d)], f"generated C++, {CXX_CONSTRUCTED + CXX_MAIN + CXX_CHILD:,} functions, "
                                           "static constructors and a child")]
    driver = _clang_link(ctx, d)
    if driver:
        subjects.append(driver)
    frontend = shutil.which("swift-frontend", path=ctx.environ.get("PATH"))
    if frontend:
        subjects.append(([os.path.realpath(frontend), "-version"], "swift-frontend"))
    else:
        note("largephases: no swift-frontend on PATH; the generated program only")
    with probe:
        programs = [_measure(ctx, probe, d, cmd, name) for cmd, name in subjects]
    passed = all(all(check.met.values()) for p in programs for check in p.phases)
    return LargePhasesResult(goal=goal, programs=programs, passed=passed)


def _own(program, phase, base):
    """The recording's own time of `phase` (report --own-times) and its delta to `base`, or "–"."""
    own = next((c.recorder_ms.get("in-process") for c in program.own_phases if c.phase == phase), None)
    if own is None:
        return "–"
    return f"own {own:.2f} ms" + ("" if base is None else f" ({own - base:+.2f})")


def render_text(res):
    out = [f"== largephases: report's phases on large programs (goal: {res.goal}) ==", ""]
    if res.skipped:
        out.append(f"not compared: {res.skipped}")
    for p in res.programs:
        out.append(f"{p.program} ({p.command}): {p.first_calls:,} first calls; taken out: {p.overhead}; "
                   f"first hook {p.first_hook}; medians of {ROUNDS}")
        for check in p.phases:
            base, mine = check.baseline_ms.get("in-process"), check.recorder_ms.get("in-process")
            if mine is None:
                continue
            delta = "–" if base is None else f"{mine - base:+.2f} ms"
            based = "–" if base is None else f"{base:.2f} ms"
            out.append(f"  {check.phase:32s} kernel {based:>11s}  report {mine:9.2f} ms  {delta:>11s}  "
                       f"{'met' if check.met.get('in-process') else 'missed'}  {_own(p, check.phase, base)}")
        for i, child in enumerate(p.children, 1):
            out.append(f"  child {i} ({child.program}), exec → end: kernel {child.baseline_ms:.2f} ms, its trace "
                       f"{child.recorder_ms:.2f} ms, {child.paired_ms:+.2f} ms paired (informs; not a check)")
    out.append(verdict(res.passed))
    return out


def render_markdown(res, report):
    rows = []
    for p in res.programs:
        for check in p.phases:
            base, mine = check.baseline_ms.get("in-process"), check.recorder_ms.get("in-process")
            if mine is None:
                continue
            rows.append([p.program, check.phase, "–" if base is None else f"{base:.2f} ms", f"{mine:.2f} ms",
                         "–" if base is None else f"{mine - base:+.2f} ms",
                         "met" if check.met.get("in-process") else "missed", _own(p, check.phase, base)])
    taken = [f"{p.program}: {p.first_calls:,} first calls, first hook `{p.first_hook}`; taken out {p.overhead}."
             + "".join(f" Child {i} (`{c.program}`), exec → end: {c.baseline_ms:.2f} ms plain, {c.recorder_ms:.2f} ms "
                       f"on its trace, {c.paired_ms:+.2f} ms paired." for i, c in enumerate(p.children, 1))
             for p in res.programs]
    body = [report.provenance(), ""]
    if res.skipped:
        body += [f"Not compared: {res.skipped}.", ""]
    body += [f"Medians of {ROUNDS} recordings (each with its timing launch, whose times the report shows) "
             f"and {ROUNDS} kernel-timed plain launches of each program:", "",
             md.table(["program", "phase", "uninstrumented, kernel-timed", "in the report", "delta",
                       "within 10% or 1 ms", "the recording's own (informs)"], ["l", "l", "r", "r", "r", "l", "r"],
                      rows), ""] + taken + [
             "", f"Goal: {res.goal}: {verdict(res.passed)}."]
    return {"largephases": "\n".join(body)}


SECTION = Section(
    name="largephases",
    help="report's phases of large programs (a generated C program with 20,000 first calls, a generated C++ "
         "program with static constructors and a child, swift-frontend "
         "-version) against the kernel-timed uninstrumented launch; needs root and uprobes",
    result_type=LargePhasesResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

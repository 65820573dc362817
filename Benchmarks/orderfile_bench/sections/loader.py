"""loader: what each link option does to a cold launch's major faults, by section.

After code ordering, much of what a cold launch reads from the program's file is no longer
code: the loader's relocation and symbol tables, and the data it relocates. This section
links Lua and SQLite (the release build of Scripts/real-program: clang -O2 -g
-ffunction-sections, ld.lld) in steps from one set of objects: default, orderfile (this
project's first-call order, recorded without a rebuild), then the orderfile plus one link
option at a time, and the whole line `orderfile flags --release --ldflags` prints. Options
that flags does not print are measured too, to show why not.

Each layout is launched cold from a loop device with 16 KiB read-ahead (as the coldlaunch
section) and counted by the product's own referee, `orderfile estimate --measure-cold
--cold-method perf --json`: it evicts the files, runs the launch under `perf trace
--no-syscalls -F maj` (one line per major fault with its file offset) and maps each fault to
the binary's section and kind of section, so the numbers shown are the ones the product
reports. The counts repeat run after run there; the median run is shown.
"""

import json
import os
import shutil
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import BenchError, note, verdict
from ..model import json_name
from ..process import run_checked, run_measured
from ..realprograms import PROGRAMS
from ..release_build import build_from_tree
from ..section import Section
from .coldlaunch import READ_AHEAD_KB, LoopDevice

RUNS = 3
# Steps besides default and orderfile: the orderfile plus these link flags. `flags` is the
# line `orderfile flags --release --ldflags` prints, filled in per program.
OPTION_STEPS = [
    ("relr", "+ RELR", ["-Wl,-z,pack-relative-relocs"]),
    ("hash-both", "+ both hash tables (lld's own default)", ["-Wl,--hash-style=both"]),
    ("hash-gnu", "+ GNU hash only", ["-Wl,--hash-style=gnu"]),
    ("now", "+ -z now", ["-Wl,-z,now"]),
    ("gc", "+ --gc-sections", ["-Wl,--gc-sections"]),
    ("icf", "+ --icf=all", ["-Wl,--icf=all"]),
    ("rdynamic", "+ -rdynamic (every symbol exported)", ["-rdynamic"]),
]
GOAL = ("the line `orderfile flags --release` prints costs no more cold majors in the program's file than the "
        "orderfile alone")


@dataclass
class Step:
    name: str
    label: str
    flags: list[str]          # link flags besides the release build's and the ordering flag
    majors: int               # major faults in the program's file, median run
    by_section: dict[str, int]
    file_bytes: int
    # By kind of section as the referee names them (code, relocations, readOnlyData, …).
    by_kind: dict[str, int] = field(default_factory=dict)


@dataclass
class LoaderProgram:
    program: str
    launch: str
    flags_release: list[str]  # the whole link line `flags --release --ldflags` printed
    steps: list[Step]
    passed: bool = json_name("pass")


@dataclass
class LoaderResult:
    goal: str
    skipped: str | None
    runs: int
    read_ahead_kb: int
    programs: list[LoaderProgram]
    passed: bool = json_name("pass")


def _skip_reason(environ):
    path = environ.get("PATH")
    if os.geteuid() != 0:
        return "needs root (perf trace, loop devices)"
    for tool, package in (("perf", "linux-perf"), ("losetup", "mount"),
                          ("mkfs.ext4", "e2fsprogs")):
        if not shutil.which(tool, path=path):
            return f"needs {tool} (apt-get install {package})"
    if not os.path.exists("/dev/loop-control"):
        return "needs loop devices (/dev/loop-control)"
    return None


def referee_counts(report, path):
    """The major faults the product's referee counted in the file at `path`, from the JSON of
    `orderfile estimate --measure-cold --cold-method perf --json`: (by section, by kind).

    Faults the kernel takes while it maps the program name no file (`majorFaultsWithoutFile`)
    and belong to no module, so they are in neither count."""
    cold = report.get("coldLaunch") or {}
    if cold.get("method") != "perf":
        raise BenchError(f"the referee counted {path} with {cold.get('method')!r}, not perf's major faults")
    module = next((m for m in cold.get("modules", []) if m.get("path") == path), None)
    if module is None:
        raise BenchError(f"the referee's cold launch counted no file {path}")
    if module.get("residentBefore"):
        raise BenchError(f"{module['residentBefore']} pages of {path} stayed cached: the launch was not cold")

    def majors(entries, key):
        return {e[key]: e["count"]["majorFaults"] for e in entries if e["count"].get("majorFaults")}
    return majors(module.get("sections", []), "name"), majors(module.get("kinds", []), "kind")


def cold_majors(tool, trace, recorded, exe, args, env):
    """One cold launch counted by the product's referee: the major faults in `exe`'s file, by
    section and by kind of section. `recorded` is the module of the trace that `exe` is a
    relink of (the estimate beside the count is not used)."""
    out = run_checked([tool, "estimate", "--trace", trace, "--binary", exe, "--trace-module", recorded,
                       "--measure-cold", "--cold-method", "perf", "--json", "--", exe] + args,
                      f"orderfile estimate --measure-cold ({exe})", env=env)
    try:
        report = json.loads(out)
    except json.JSONDecodeError as e:
        raise BenchError(f"orderfile estimate --json printed no JSON for {exe}: {e}") from e
    return referee_counts(report, exe)


def _measure_program(ctx, program, loop):
    work = os.path.join(ctx.scratch, "loader", program.name)
    build = build_from_tree(program, ctx.sources[program.name].tree, work, ctx.env(), ctx.cc)
    tool, args = ctx.orderfile, build["launch"]
    trace, order = os.path.join(work, "launch.trace"), os.path.join(work, "launch.order")
    run_checked([tool, "record", "--no-rebuild", "-q", "-o", trace, "--", build["executable"]] + args,
                f"recording {program.name}'s launch without a rebuild", env=ctx.env())
    run_checked([tool, "generate", trace, "--module", program.name, "-o", order],
                f"orderfile generate ({program.name})", env=ctx.env())
    ordering = f"-Wl,--symbol-ordering-file={order}"
    printed = run_checked([tool, "flags", "--release", order, "--ldflags"], "orderfile flags --release",
                          env=ctx.env()).split()
    base = set(build["link"][1:]) | {ordering}
    loader_flags = [f for f in printed if f not in base]
    steps = [("default", "default", None), ("orderfile", "orderfile", [])]
    steps += [(name, label, flags) for name, label, flags in OPTION_STEPS]
    steps.append(("flags", "flags --release: " + (" ".join(loader_flags) or "no loader option"), loader_flags))
    # lld takes the union of the hash styles it is given: this is the flags line with lld's
    # own default, both tables, which shows what --hash-style=gnu saves beside RELR.
    steps.append(("flags-hash-both", "flags --release, both hash tables", loader_flags + ["-Wl,--hash-style=both"]))

    results, outputs = [], set()
    directory = os.path.join(loop.mount, program.name)
    os.makedirs(directory, exist_ok=True)
    for name, label, flags in steps:
        exe = os.path.join(directory, name)
        extra = [] if flags is None else flags + [ordering]
        run_checked(build["link"] + extra + build["objects"] + ["-o", exe] + build["libraries"],
                    f"linking {program.name} ({name})", env=ctx.env())
        outputs.add(run_measured([exe] + args, f"{program.name} ({name})", env=ctx.env())[2])
        runs = [cold_majors(tool, trace, build["executable"], exe, args, ctx.env()) for _ in range(RUNS)]
        runs.sort(key=lambda counts: sum(counts[0].values()))
        median, kinds = runs[len(runs) // 2]
        results.append(Step(name=name, label=label, flags=[] if flags is None else flags,
                            majors=sum(median.values()), by_section=median, file_bytes=os.path.getsize(exe),
                            by_kind=kinds))
    if len(outputs) != 1:
        raise BenchError(f"the layouts of {program.name} disagree on the launch's output")
    by_name = {s.name: s for s in results}
    return LoaderProgram(program=program.name, launch=program.launch_text, flags_release=printed, steps=results,
                         passed=by_name["flags"].majors <= by_name["orderfile"].majors)


def run(ctx):
    reason = _skip_reason(ctx.environ)
    if reason:
        note(f"loader: skipped: {reason}")
        return LoaderResult(goal=GOAL, skipped=reason, runs=RUNS, read_ahead_kb=READ_AHEAD_KB, programs=[],
                            passed=True)
    with LoopDevice(ctx.scratch) as loop:
        programs = [_measure_program(ctx, p, loop) for p in PROGRAMS]
    return LoaderResult(goal=GOAL, skipped=None, runs=RUNS, read_ahead_kb=READ_AHEAD_KB, programs=programs,
                        passed=all(p.passed for p in programs))


def columns(program, limit=5):
    """The sections shown as columns: those with the most faults in any step, the rest as "other"."""
    return section_columns(program.steps, limit)


def section_columns(steps, limit):
    """Of layouts with majors `by_section`, the sections with the most in any of them, most first."""
    most = {}
    for step in steps:
        for name, count in step.by_section.items():
            most[name] = max(most.get(name, 0), count)
    return sorted(most, key=lambda n: (-most[n], n))[:limit]


def _row(step, shown):
    """The code majors, then the shown sections', then the rest's."""
    other = sum(c for n, c in step.by_section.items() if n not in shown)
    return [step.by_kind.get("code", 0)] + [step.by_section.get(n, 0) for n in shown] + [other]


def _delta(step, steps):
    """The change against the step it adds to: the orderfile alone, or the flags line."""
    if step.name in ("default", "orderfile"):
        return ""
    base = next(s for s in steps if s.name == ("flags" if step.name == "flags-hash-both" else "orderfile"))
    return f"{step.majors - base.majors:+d}"


def render_text(res):
    out = ["== loader: cold major faults by section, for each link option ==", f"goal: {res.goal}"]
    if res.skipped:
        return out + [f"skipped: {res.skipped}"]
    out.append(f"every layout linked by ld.lld from the same objects; launched cold from ext4 on a loop device "
               f"(read_ahead_kb={res.read_ahead_kb}) and counted by orderfile estimate --measure-cold --cold-method "
               f"perf (perf trace -F maj), the files evicted before each launch; median of {res.runs} runs; majors "
               "in the program's own file, all code sections together, then the sections most read")
    for p in res.programs:
        shown = columns(p)
        out.append("")
        out.append(f"{p.program}, launch `{p.launch}`; flags --release --ldflags: {' '.join(p.flags_release)}")
        header = (f"  {'step':<64} {'majors':>6} {'change':>6} {'code':>6} "
                  + " ".join(f"{n[:12]:>12}" for n in shown))
        out.append(header + f" {'other':>6} {'file KiB':>9}")
        for s in p.steps:
            cells = _row(s, shown)
            out.append(f"  {s.label[:64]:<64} {s.majors:>6} {_delta(s, p.steps):>6} {cells[0]:>6} "
                       + " ".join(f"{c:>12}" for c in cells[1:-1]) + f" {cells[-1]:>6} {s.file_bytes / 1024:>9,.0f}")
        out.append(f"  goal: {verdict(p.passed)}")
    return out


def render_markdown(res, report):
    if res.skipped:
        return {"loader": f"{report.provenance()} Skipped: {res.skipped}."}
    body = [f"{report.provenance()} Every layout linked by ld.lld from one set of objects (clang -O2 -g "
            f"-ffunction-sections), launched cold from ext4 on a loop device (`read_ahead_kb={res.read_ahead_kb}`) "
            "and counted by `orderfile estimate --measure-cold --cold-method perf --json` (`perf trace -F maj`, "
            "the files evicted before each launch); majors in the program's own file: all code sections, then by "
            f"section (median of {res.runs} runs; the counts repeat). Each step after "
            "`orderfile` adds its flags to the orderfile (change: against the orderfile alone); `flags --release` is the "
            "line `orderfile flags --release --ldflags` printed, and the last step that line with both hash tables, "
            "lld's own default (change: against the line)."]
    for p in res.programs:
        shown = columns(p)
        rows = []
        for s in p.steps:
            mark = md.bold if s.name == "flags" else str
            rows.append([mark(s.label), mark(s.majors), _delta(s, p.steps)] + [str(c) for c in _row(s, shown)])
        body += ["", f"`{p.launch}`:", "",
                 md.table(["step", "majors", "change", "code"] + [f"`{n}`" if not n.startswith("(") else n
                                                                        for n in shown] + ["other"],
                          ["l", "r", "r", "r"] + ["r"] * (len(shown) + 1), rows)]
    body += ["", "Goal: " + "; ".join(f"{p.program} {verdict(p.passed)}" for p in res.programs) + "."]
    return {"loader": "\n".join(body)}


SECTION = Section(
    name="loader",
    help="cold major faults of Lua and SQLite by section, as orderfile estimate --measure-cold --cold-method perf "
         "counts them (perf trace -F maj, loop device with 16 KiB read-ahead) "
         "for default, orderfile, and the orderfile plus each link option: RELR, hash styles, -z now, "
         "--gc-sections, --icf=all, -rdynamic, and the line flags --release prints (needs root, perf, loop devices; "
         "skipped otherwise)",
    result_type=LoaderResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

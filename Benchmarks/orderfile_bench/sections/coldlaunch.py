"""coldlaunch: cold launches from phone-like storage, and the launch pages after BOLT.

Page counts hide what a user waits for: a major fault for each piece of the binary read
from storage. The root disk here reads ahead 8 MiB, so every layout of a small binary
costs one major fault; a loop device with direct I/O and 16 KiB read-ahead reads what a
launch touches in small pieces, as slow storage does.

Layouts, all linked by ld.lld 22 from one set of objects (the toolchain's clang -O2
-ffunction-sections, its own cold-code splitting off where it has it: BOLT leaves
functions a compiler already split in place):
  default, orderfile (this project's first-call order), bp (lld balanced partitioning from
  LLVM's temporal profile, as the programs section builds it), bolt (BOLT alone:
  instrumented launch profile, -reorder-functions=cdsort, blocks split), orderfile+bolt
  (`orderfile bolt`: the first-call order, blocks split).
"""

import os
import shutil
import statistics
import subprocess
import time
from dataclasses import dataclass

from .. import markdown as md
from ..common import ROOT, BenchError, note, verdict
from ..estimate import launch_pages
from ..model import json_name
from ..probe import probe_library, probe_pages
from ..process import evict_from_page_cache, interleave, parallel, run_checked, run_measured
from ..realprograms import PROGRAMS
from ..section import Section

LAYOUTS = [
    ("default", "default"),
    ("orderfile", "orderfile"),
    ("bp", "balanced partitioning"),
    ("bolt", "BOLT alone (cdsort, split)"),
    ("orderfile+bolt", "orderfile + BOLT (split)"),
]
READ_AHEAD_KB = 16
IMAGE_MIB = 1024
MIN_RUNS = 20
# What both BOLT layouts are told besides their function order: the options of
# `orderfile bolt` (Sources/OrderfileBolt/BoltOptimizer.swift), so that they differ only
# in the order.
SPLIT_OPTIONS = ["-reorder-blocks=ext-tsp", "-split-functions", "-split-all-cold", "-split-eh", "-lite=0",
                 "-no-huge-pages"]
EXAMPLE = os.path.join(ROOT, "Examples", "launchpad")


@dataclass
class ColdFigures:
    """Cold launches from the loop device: medians over the runs."""
    median_ms: float
    min_ms: float
    max_ms: float
    major_faults: float
    samples_ms: list[float]


@dataclass
class LayoutResult:
    pages_4k: int             # orderfile estimate: pages the launch's functions (entry parts) cover
    pages_16k: int
    probe_pages_4k: int       # page-touch probe: pages of the executable's code the launch ran
    probe_pages_16k: int
    file_bytes: int
    cold: ColdFigures


@dataclass
class ProgramChecks:
    below_whole_function_bound: bool | None  # 4 and 16 KiB; None for the example (not a goal)
    below_bolt_alone: bool | None
    fewest_major_faults: bool
    lowest_median_time: bool


@dataclass
class ColdProgram:
    program: str
    launch: str
    whole_function_bound_4k: int
    whole_function_bound_16k: int
    layouts: dict[str, LayoutResult]
    checks: ProgramChecks
    passed: bool = json_name("pass")


@dataclass
class ColdLaunchResult:
    goal: str
    skipped: str | None
    runs: int
    read_ahead_kb: int
    compile: str
    programs: list[ColdProgram]
    passed: bool = json_name("pass")


def _skip_reason(environ):
    if os.geteuid() != 0:
        return "needs root and loop devices (not root)"
    if not shutil.which("losetup", path=environ.get("PATH")) or not os.path.exists("/dev/loop-control"):
        return "needs root and loop devices (no losetup or /dev/loop-control)"
    if not shutil.which("mkfs.ext4", path=environ.get("PATH")):
        return "needs root and loop devices (no mkfs.ext4)"
    for name in ("llvm-bolt-22", "llvm-bolt"):
        if shutil.which(name, path=environ.get("PATH")):
            return None
    return "needs llvm-bolt (apt-get install bolt-22)"


def _bolt_tool(environ):
    return next(shutil.which(n, path=environ.get("PATH")) for n in ("llvm-bolt-22", "llvm-bolt")
                if shutil.which(n, path=environ.get("PATH")))


class LoopDevice:
    """An ext4 file system on a loop device with direct I/O and small read-ahead; removed on exit."""

    def __init__(self, scratch):
        self.image = os.path.join(scratch, "coldlaunch.img")
        self.mount = os.path.join(scratch, "coldlaunch-mnt")
        self.device = None

    def __enter__(self):
        with open(self.image, "wb") as f:
            f.truncate(IMAGE_MIB << 20)
        self.device = run_checked(["losetup", "-f", "--show", "--direct-io=on", self.image],
                                  "attaching the loop device").strip()
        run_checked(["mkfs.ext4", "-q", "-F", self.device], "mkfs.ext4 on the loop device")
        os.makedirs(self.mount, exist_ok=True)
        run_checked(["mount", self.device, self.mount], "mounting the loop device")
        with open(f"/sys/block/{os.path.basename(self.device)}/queue/read_ahead_kb", "w") as f:
            f.write(str(READ_AHEAD_KB))
        return self

    def __exit__(self, *exc):
        subprocess.run(["umount", self.mount], capture_output=True)
        if self.device:
            subprocess.run(["losetup", "-d", self.device], capture_output=True)
        if os.path.exists(self.image):
            os.unlink(self.image)


def cold_launch(exe, args, env, evict):
    """One launch after evicting `evict` from the page cache: (wall ms, major faults)."""
    for path in evict:
        evict_from_page_cache(path)
    start = time.perf_counter()
    p = subprocess.Popen([exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise BenchError(f"{exe} exited {os.waitstatus_to_exitcode(status)} on a cold launch")
    return wall * 1e3, usage.ru_majflt


def _bolt_alone(ctx, binary, args, output, work):
    """BOLT's own layout: an instrumented launch profile, cdsort, the same splitting."""
    bolt = _bolt_tool(ctx.environ)
    instrumented, profile = os.path.join(work, "bolt-instrumented"), os.path.join(work, "bolt.fdata")
    run_checked([bolt, binary, "-instrument", f"-instrumentation-file={profile}", "-o", instrumented],
                "llvm-bolt -instrument")
    run_measured([instrumented] + args, "the BOLT-instrumented launch", env=ctx.env())
    run_checked([bolt, binary, f"-data={profile}", "-o", output, "-reorder-functions=cdsort"] + SPLIT_OPTIONS,
                "llvm-bolt (cdsort, split)")


class _Subject:
    """A program measured here: its release objects and how to link them."""
    name: str
    launch_text: str
    args: list[str]
    has_bp = True
    companions: list[str] = []  # files beside the executable it loads (copied, evicted)

    def link(self, output, extra):
        raise NotImplementedError


class _RealProgram(_Subject):
    def __init__(self, ctx, program, nosplit):
        self.ctx, self.program = ctx, program
        self.name, self.launch_text, self.args = program.name, program.launch_text, program.launch_args
        self.dir = os.path.join(ctx.scratch, "coldlaunch", program.name)
        os.makedirs(self.dir, exist_ok=True)
        build = ctx.build(program)  # for the link command and its libraries, and the temporal profile
        tree = ctx.sources[program.name].tree
        sources, cflags, self.libs = program.prepare(ctx, tree, os.path.join(self.dir, "prep"))
        self.objects, jobs = [], []
        for s in sources:
            obj = os.path.join(self.dir, os.path.splitext(os.path.basename(s))[0] + ".o")
            self.objects.append(obj)
            cmd = [ctx.cc, "-O2", "-ffunction-sections"] + nosplit + cflags + ["-c", s, "-o", obj]
            jobs.append(lambda cmd=cmd, s=s: run_measured(cmd, f"compiling {os.path.basename(s)} (coldlaunch)"))
        parallel(jobs, ctx.machine.nproc)
        self.base_link = build.link
        self.profdata = ctx.launch(self.program).profdata

    def link(self, output, extra):
        run_checked(self.base_link + extra + self.objects + ["-o", output] + self.libs, f"linking {output}")

    def bp_flags(self):
        return ["-Wl,--bp-startup-sort=function", f"-Wl,--irpgo-profile={self.profdata}"]


class _Example(_Subject):
    """The bundled example, built by its own Makefile; its executable is measured."""
    name, launch_text, args, has_bp = "launchpad", "launchpad", [], False

    def __init__(self, ctx, nosplit):
        self.ctx, self.nosplit = ctx, nosplit
        self.dir = os.path.join(ctx.scratch, "coldlaunch", "launchpad")

    def link(self, output, extra):
        build = output + ".build"
        order = [f"ORDER_FILE={x.split('=', 1)[1]}" for x in extra if x.startswith("-Wl,--symbol-ordering-file=")]
        run_measured(["make", "-s", "-C", EXAMPLE, "release", "CC=" + self.ctx.cc, "BUILD_DIR=" + build,
                      "CFLAGS=" + " ".join(self.nosplit),
                      "LDFLAGS=" + " ".join(x for x in extra if not x.startswith("-Wl,--symbol-ordering-file="))]
                     + order, f"building the example ({os.path.basename(output)})", env=self.ctx.env())
        shutil.copy2(os.path.join(build, "launchpad"), output)
        shutil.copy2(os.path.join(build, "libwidgets.so"), os.path.join(os.path.dirname(output), "libwidgets.so"))
        self.companions = ["libwidgets.so"]


def _nosplit_flags(ctx):
    """`-Xclang -fno-split-cold-code` when the compiler takes it (the toolchain's clang splits
    cold code into foo.cold.1 by default), else nothing."""
    probe = os.path.join(ctx.scratch, "nosplit-probe.c")
    with open(probe, "w") as f:
        f.write("int f(int x) { return x; }\n")
    flags = ["-Xclang", "-fno-split-cold-code"]
    ok = subprocess.run([ctx.cc] + flags + ["-c", probe, "-o", probe + ".o"], capture_output=True).returncode == 0
    return flags if ok else []


def _measure(ctx, subject, loop, probe, runs):
    tool = ctx.orderfile
    d = subject.dir
    os.makedirs(d, exist_ok=True)
    exes = {"default": os.path.join(d, "default")}
    subject.link(exes["default"], ["-Wl,--emit-relocs"])
    trace, order = os.path.join(d, "launch.trace"), os.path.join(d, "launch.order")
    run_checked([tool, "record", "--no-rebuild", "-q", "-o", trace, "--", exes["default"]] + subject.args,
                f"recording {subject.name}'s launch without a rebuild", env=ctx.env())
    run_checked([tool, "generate", trace, "--module", os.path.basename(exes["default"]), "-o", order],
                f"orderfile generate ({subject.name})", env=ctx.env())
    exes["orderfile"] = os.path.join(d, "orderfile")
    subject.link(exes["orderfile"], ["-Wl,--emit-relocs", f"-Wl,--symbol-ordering-file={order}"])
    if subject.has_bp:
        exes["bp"] = os.path.join(d, "bp")
        subject.link(exes["bp"], subject.bp_flags())
    exes["bolt"] = os.path.join(d, "bolt")
    _bolt_alone(ctx, exes["default"], subject.args, exes["bolt"], d)
    exes["orderfile+bolt"] = os.path.join(d, "orderfile-bolt")
    run_checked([tool, "bolt", "--binary", exes["orderfile"], "--order", order, "-o", exes["orderfile+bolt"], "--"]
                + [exes["orderfile"]] + subject.args, f"orderfile bolt ({subject.name})", env=ctx.env())
    layouts = [name for name, _ in LAYOUTS if name in exes]

    # The layouts must behave alike.
    outputs = {name: run_measured([exes[name]] + subject.args, f"{subject.name} ({name})", env=ctx.env())[2]
               for name in layouts}
    if len(set(outputs.values())) != 1:
        raise BenchError(f"the layouts of {subject.name} disagree on the launch's output")

    pages, bound = {}, None
    for name in layouts:
        pages[name], b = launch_pages(tool, trace, exes[name])
        if name == "default":
            bound = b
    probed = {name: probe_pages(exes[name], subject.args, probe, ctx.env(), os.path.join(d, "probe.txt"))
              for name in layouts}

    # Each layout in its own directory on the loop device, with what it loads beside it.
    placed = {}
    for name in layouts:
        target = os.path.join(loop.mount, subject.name, name.replace("+", "-"))
        os.makedirs(target, exist_ok=True)
        exe = os.path.join(target, subject.name)
        shutil.copy2(exes[name], exe)
        for companion in subject.companions:
            shutil.copy2(os.path.join(os.path.dirname(exes[name]), companion), os.path.join(target, companion))
        placed[name] = (exe, [exe] + [os.path.join(target, c) for c in subject.companions])
    samples = interleave(layouts, runs, lambda name: cold_launch(placed[name][0], subject.args, ctx.env(),
                                                                  placed[name][1]),
                         f"coldlaunch: {subject.name}")
    results = {}
    for name in layouts:
        walls = [r[name][0] for r in samples]
        faults = [r[name][1] for r in samples]
        results[name] = LayoutResult(
            pages_4k=pages[name]["4096"], pages_16k=pages[name]["16384"],
            probe_pages_4k=probed[name][0], probe_pages_16k=probed[name][1],
            file_bytes=os.path.getsize(exes[name]),
            cold=ColdFigures(median_ms=statistics.median(walls), min_ms=min(walls), max_ms=max(walls),
                             major_faults=statistics.median(faults), samples_ms=walls))
    # The goals on pages are for Lua and SQLite, not the example.
    checks = judge(results, bound, pages_goal=subject.has_bp)
    passed = all(c is not False for c in (checks.below_whole_function_bound, checks.below_bolt_alone,
                                          checks.fewest_major_faults, checks.lowest_median_time))
    return ColdProgram(program=subject.name, launch=subject.launch_text, whole_function_bound_4k=bound["4096"],
                       whole_function_bound_16k=bound["16384"], layouts=results, checks=checks, passed=passed)


def judge(results, bound, pages_goal):
    """The goals for one program: `results` maps layout names to LayoutResult, `bound` the
    whole-function lower bound by page size ("4096", "16384")."""
    ob, alone = results["orderfile+bolt"], results["bolt"]
    others = [r for name, r in results.items() if name != "orderfile+bolt"]
    return ProgramChecks(
        below_whole_function_bound=(ob.pages_4k < bound["4096"] and ob.pages_16k < bound["16384"])
        if pages_goal else None,
        below_bolt_alone=(ob.pages_4k < alone.pages_4k and ob.pages_16k < alone.pages_16k) if pages_goal else None,
        fewest_major_faults=all(ob.cold.major_faults <= o.cold.major_faults for o in others),
        lowest_median_time=all(ob.cold.median_ms <= o.cold.median_ms for o in others))


GOAL = ("orderfile + BOLT: fewer launch pages than the whole-function lower bound and than BOLT's cdsort "
        "with splitting, at 4 and 16 KiB (Lua, SQLite); on cold launches with 16 KiB read-ahead the fewest "
        "major faults and the lowest median time of all layouts (every program)")


def run(ctx):
    runs = max(2 * ctx.options.runs, MIN_RUNS)
    reason = _skip_reason(ctx.environ)
    if reason:
        note(f"coldlaunch: skipped: {reason}")
        return ColdLaunchResult(goal=GOAL, skipped=reason, runs=runs, read_ahead_kb=READ_AHEAD_KB, compile="",
                                programs=[], passed=True)
    nosplit = _nosplit_flags(ctx)
    probe = probe_library(ctx)
    subjects = [_RealProgram(ctx, p, nosplit) for p in PROGRAMS] + [_Example(ctx, nosplit)]
    with LoopDevice(ctx.scratch) as loop:
        programs = [_measure(ctx, s, loop, probe, runs) for s in subjects]
    compile_text = " ".join(["clang -O2 -ffunction-sections"] + nosplit)
    return ColdLaunchResult(goal=GOAL, skipped=None, runs=runs, read_ahead_kb=READ_AHEAD_KB, compile=compile_text,
                            programs=programs, passed=all(p.passed for p in programs))


def _check_text(value):
    return "n/a" if value is None else verdict(value)


def render_text(res):
    out = ["== coldlaunch: cold launches from a loop device with small read-ahead, and pages after BOLT ==",
           f"goal: {res.goal}"]
    if res.skipped:
        return out + [f"skipped: {res.skipped}"]
    out.append(f"objects: {res.compile}; every layout linked by ld.lld 22; loop device: ext4, losetup "
               f"--direct-io=on, read_ahead_kb={res.read_ahead_kb}; binary (and its libraries beside it) "
               f"evicted with fsync + posix_fadvise(DONTNEED) before each launch; {res.runs} launches per "
               "layout, interleaved; pages: orderfile estimate (entry parts of the launch functions); probe: "
               "pages of the executable's code the launch ran (PROT_NONE + first touch)")
    for p in res.programs:
        out.append("")
        out.append(f"{p.program}, launch `{p.launch}`: whole-function lower bound {p.whole_function_bound_4k} "
                   f"pages at 4 KiB, {p.whole_function_bound_16k} at 16 KiB")
        out.append(f"  {'layout':<28} {'4K pages':>8} {'16K pages':>9} {'probe 4K':>8} {'probe 16K':>9} "
                   f"{'major faults':>12} {'median ms':>9} {'min ms':>7} {'file KiB':>9}")
        for name, label in LAYOUTS:
            if name not in p.layouts:
                continue
            l = p.layouts[name]
            out.append(f"  {label:<28} {l.pages_4k:>8} {l.pages_16k:>9} {l.probe_pages_4k:>8} "
                       f"{l.probe_pages_16k:>9} {l.cold.major_faults:>12g} {l.cold.median_ms:>9.2f} "
                       f"{l.cold.min_ms:>7.2f} {l.file_bytes / 1024:>9,.0f}")
        c = p.checks
        out.append(f"  goal: below the whole-function bound at 4 and 16 KiB: {_check_text(c.below_whole_function_bound)}; "
                   f"below BOLT alone: {_check_text(c.below_bolt_alone)}; fewest major faults: "
                   f"{verdict(c.fewest_major_faults)}; lowest median time: {verdict(c.lowest_median_time)}")
    return out


def render_markdown(res, report):
    if res.skipped:
        return {"coldlaunch": f"{report.provenance()} Skipped: {res.skipped}."}
    rows = []
    for p in res.programs:
        for i, (name, label) in enumerate(LAYOUTS):
            if name not in p.layouts:
                continue
            l = p.layouts[name]
            mark = md.bold if name == "orderfile+bolt" else str
            rows.append([f"`{p.launch}`" if i == 0 else "", label, mark(l.pages_4k), mark(l.pages_16k),
                         f"{l.probe_pages_4k}", mark(f"{l.cold.major_faults:g}"), mark(f"{l.cold.median_ms:.2f} ms")])
        rows.append(["", "whole-function lower bound", f"{p.whole_function_bound_4k}", f"{p.whole_function_bound_16k}",
                     "", "", ""])
    goals = []
    for p in res.programs:
        c = p.checks
        parts = []
        if c.below_whole_function_bound is not None:
            parts.append(f"below the whole-function bound {verdict(c.below_whole_function_bound)}")
            parts.append(f"below BOLT alone {verdict(c.below_bolt_alone)}")
        parts.append(f"fewest major faults {verdict(c.fewest_major_faults)}")
        parts.append(f"lowest median time {verdict(c.lowest_median_time)}")
        goals.append(f"{p.program}: " + ", ".join(parts))
    body = [f"{report.provenance()} Objects: `{res.compile}`, every layout linked by ld.lld 22. Cold launches: "
            f"the binary on ext4 on a loop device (`losetup --direct-io=on`, `read_ahead_kb={res.read_ahead_kb}`), "
            f"evicted before each launch, {res.runs} launches per layout, interleaved; medians. Pages: "
            "`orderfile estimate` (the launch functions' entry parts); probe: 4 KiB pages of the executable's code "
            "the launch ran, seen by the page probe `orderfile estimate --measure` uses (`Sources/OrderfilePageProbe`).", "",
            md.table(["program, launch", "layout", "4 KiB pages", "16 KiB pages", "probe 4 KiB pages",
                      "major faults", "cold launch"], ["l", "l", "r", "r", "r", "r", "r"], rows), "",
            "Goals: " + "; ".join(goals) + "."]
    return {"coldlaunch": "\n".join(body)}


SECTION = Section(
    name="coldlaunch",
    help="cold launches of Lua, SQLite and the example from a loop device with 16 KiB read-ahead (major faults, "
         "median time) and launch pages for five layouts: default, orderfile, balanced partitioning, BOLT alone "
         "(cdsort, split), orderfile + BOLT (needs root, loop devices and llvm-bolt; skipped otherwise)",
    result_type=ColdLaunchResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

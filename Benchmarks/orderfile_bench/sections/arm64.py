"""arm64: Lua and SQLite cross-built for arm64 from the pinned Debian sources with clang and
lld, recorded under qemu-user (with the instrumented build's runtime, and in-process through
`record --emulator` where the tool has it), generated against the arm64 release binary,
relinked with ld.lld and verified; launch pages at 4, 16 and 64 KiB from `estimate`, its
lower bound and the page probe run in the emulator's guest; the arm64 order against the
x86-64 order of the same program, recorded as the other sections record it."""

import json
import os
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import ROOT, BenchError, verdict
from ..debian import ensure_debian_packages
from ..estimate import launch_pages
from ..model import json_name
from ..probe import LIBRARY as PROBE_LIBRARY, probe_pages
from ..process import find_tool, first_line, run_checked, run_measured
from ..realprograms import PROGRAMS, compile_text, compile_variants, short_name
from ..section import Section
from ..toolchain import instrument_cflags
from .inprocess import _met
from .norebuild import _RealProgram, _entries, _verify, _warnings, kendall_tau

TRIPLE = "aarch64-linux-gnu"
SYSROOT = "/usr/aarch64-linux-gnu"
QEMU = "qemu-aarch64-static"
EMULATOR = f"{QEMU} -L {SYSROOT}"
SIZES = ["4096", "16384", "65536"]
RUNS = 3               # recordings per mode; the first one's order is relinked
DISTANCE_SLACK = 1     # pages: arm64's distance to the bound at 16 KiB, at most x86-64's plus this
TAU_GOAL = 0.99
NO_EMULATOR = "not run: this orderfile has no record --emulator"
GOAL = (f"at 16 KiB the relinked arm64 launch within {DISTANCE_SLACK} page of x86-64's distance to the lower "
        f"bound; Kendall tau >= {TAU_GOAL} between the x86-64 and arm64 orders; 0 lld warnings; verify passes")


@dataclass
class Arm64Mode:
    """One way of recording the arm64 launch under qemu-user, and the binary relinked with its order."""
    mode: str                          # instrumented | in-process
    not_run: str | None                # why this mode has no figures, else None
    passed: bool = json_name("pass")
    runs: int = 0
    runs_tau: float | None = None      # lowest Kendall tau of a later run's order against the first run's
    entries: int = 0                   # orderfile entries (first run)
    match_rate: float | None = None
    pages: dict[str, int] = field(default_factory=dict)     # page size -> estimate's pages, relinked binary
    bound: dict[str, int] = field(default_factory=dict)     # page size -> estimate's lower bound
    measured: dict[str, int | None] = field(default_factory=dict)  # page size -> the probe's count, relinked
    lld_warnings: int = 0
    verified: bool = False
    x86_tau: float | None = None       # against the x86-64 order, over the shared names
    shared: int = 0
    only_x86: list[str] = field(default_factory=list)
    only_arm64: list[str] = field(default_factory=list)


@dataclass
class Arm64Program:
    program: str
    command: str
    compile: str                       # the arm64 release compile command (no -I, no -D)
    default_pages: dict[str, int]      # page size -> estimate's pages of the arm64 default layout
    default_measured: dict[str, int | None]  # the same from the page probe; {} when it did not run
    x86_pages: dict[str, int]          # the x86-64 binary relinked with its own order
    x86_bound: dict[str, int]
    x86_entries: int
    modes: list[Arm64Mode]
    passed: bool = json_name("pass")


@dataclass
class Arm64Result:
    goal: str
    emulator: str
    probe: str                         # whether the page probe ran in the guest, and at what page size
    programs: list[Arm64Program]
    passed: bool = json_name("pass")


class _Cross:
    """What the section's programs share: the emulator, the runtime, page probe and in-process
    recorder cross-built for arm64, and the cross compile and link commands."""

    def __init__(self, ctx):
        ensure_debian_packages([(QEMU, "qemu-user-static"), (f"{TRIPLE}-gcc", "gcc-aarch64-linux-gnu"),
                                (f"{SYSROOT}/include/stdio.h", "libc6-dev-arm64-cross")], ctx.environ)
        self.qemu = find_tool(QEMU, ctx.environ)
        ctx.tools["qemu_version"] = first_line([self.qemu, "--version"])
        self.runtime = os.path.join(ctx.scratch, "arm64", "runtime")
        run_checked([os.path.join(ROOT, "Scripts", "build-runtime"), "--target", TRIPLE, self.runtime],
                    "cross-building the runtime for arm64", env=dict(ctx.environ, CC=ctx.cc))
        self.probe = os.path.join(self.runtime, PROBE_LIBRARY)
        self.cflags = instrument_cflags(ctx, TRIPLE, self.runtime)
        # -L, -lOrderfileRuntime and an rpath to the arm64 runtime: qemu's -L falls back to host paths.
        self.ldflags = instrument_cflags(ctx, TRIPLE, self.runtime, "--ldflags")
        help_text = run_checked([ctx.orderfile, "record", "--help"], "orderfile record --help", env=ctx.env())
        self.has_emulator = "--emulator" in help_text
        self.compile = [ctx.cc, f"--target={TRIPLE}", "-O2", "-ffunction-sections"]
        self.link = [ctx.cc, f"--target={TRIPLE}", "-fuse-ld=lld", f"--ld-path={ctx.lld}", "-Wl,--build-id"]
        self.prefix = [self.qemu, "-L", SYSROOT]


class _Build:
    """One program cross-built for arm64: release objects (the default layout and every relink)
    and the instrumented executable, under the same file name in their own directories, so the
    trace's module and the release binary match by name."""

    def __init__(self, ctx, cross, program):
        x86 = ctx.build(program)  # its directory holds the prepared sources (SQLite's amalgamation)
        self.dir = os.path.join(ctx.scratch, "arm64", program.name)
        tree = ctx.sources[program.name].tree
        sources, cflags, self.libs = program.prepare(ctx, tree, x86.dir, multiarch=TRIPLE)
        variants = {"plain": cross.compile + cflags, "instr": cross.compile + cflags + cross.cflags}
        self.compile_text = compile_text(variants)["plain"]
        self.objects = compile_variants(ctx, sources, variants, self.dir)
        self.cross, self.name = cross, program.name
        self.default, _ = self.link("default")
        self.instrumented = os.path.join(self.dir, "instr", program.name)
        os.makedirs(os.path.dirname(self.instrumented), exist_ok=True)
        run_checked(cross.link + self.objects["instr"] + ["-o", self.instrumented] + cross.ldflags + self.libs,
                    f"linking {program.name} for arm64 (instrumented)")

    def link(self, layout, order=None):
        """The release objects linked into LAYOUT/NAME, with `order` if given; (path, lld's stderr)."""
        exe = os.path.join(self.dir, layout, self.name)
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        ordering = [f"-Wl,--symbol-ordering-file={order}"] if order else []
        _, _, _, err = run_measured(self.cross.link + ordering + self.objects["plain"] + ["-o", exe] + self.libs,
                                    f"linking {self.name} for arm64 ({layout})")
        return exe, err


def _probe(ctx, cross, exe, args, out):
    """The probe's counts of `exe` run in the guest, by page size (None below its page)."""
    counts = probe_pages(exe, args, cross.probe, ctx.env(), out, [int(s) for s in SIZES], prefix=cross.prefix)
    return dict(zip(SIZES, counts))


def _record(ctx, cross, build, program, mode, d):
    """RUNS traces of the arm64 launch recorded in `mode`; the paths."""
    traces = []
    for i in range(RUNS):
        trace = os.path.join(d, f"{mode}-{i + 1}.trace")
        if mode == "instrumented":
            cmd = ([ctx.orderfile, "record", "--instrumented", "-q", "-o", trace, "--"] + cross.prefix
                   + [build.instrumented] + program.launch_args)
            env = ctx.env()
        else:
            # The release binary itself, the arm64 in-process recorder found beside the arm64 runtime.
            cmd = ([ctx.orderfile, "record", "--emulator", EMULATOR, "-q", "-o", trace, "--", build.default]
                   + program.launch_args)
            env = ctx.env({"ORDERFILE_RUNTIME_DIR": cross.runtime})
        run_checked(cmd, f"recording {program.name} on arm64 ({mode}, run {i + 1})", env=env)
        traces.append(trace)
    return traces


def _generate(ctx, build, trace, mode, out):
    """The order of the arm64 executable from `trace`; the generate report's module."""
    release = ["--release-binary", build.default] if mode == "instrumented" else []
    report = json.loads(run_checked([ctx.orderfile, "generate", trace, "--module", build.name, "-o", out, "--json"]
                                    + release, f"orderfile generate ({build.name}, arm64, {mode})", env=ctx.env()))
    return report, (report.get("modules") or [{}])[0]


def _mode(ctx, cross, build, program, mode, x86_order, probe_ok, d):
    if mode == "in-process" and not cross.has_emulator:
        return Arm64Mode(mode=mode, not_run=NO_EMULATOR, passed=True)
    traces = _record(ctx, cross, build, program, mode, d)
    orders = []
    for i, trace in enumerate(traces):
        out = os.path.join(d, f"{mode}-{i + 1}.order")
        report, module = _generate(ctx, build, trace, mode, out)
        if i == 0:
            first_report, first_module = report, module
        orders.append(_entries(out))
    order_path = os.path.join(d, f"{mode}-1.order")
    relinked, err = build.link("ordered-" + mode, order_path)
    pages, bound = launch_pages(ctx.orderfile, traces[0], relinked, env=ctx.env(), page_sizes=[int(s) for s in SIZES])
    measured = _probe(ctx, cross, relinked, program.launch_args, os.path.join(d, f"probe-{mode}.txt")) \
        if probe_ok else {}
    first = orders[0]
    in_x86, in_arm64 = set(x86_order), set(first)
    result = Arm64Mode(
        mode=mode, not_run=None, passed=False, runs=len(traces),
        runs_tau=min((kendall_tau(first, o) for o in orders[1:]), default=None),
        entries=first_module.get("entries", len(first)), match_rate=first_report.get("matchRate"),
        pages=pages, bound=bound, measured=measured, lld_warnings=_warnings(err),
        verified=_verify(ctx.orderfile, relinked, order_path), x86_tau=kendall_tau(x86_order, first),
        shared=len(in_x86 & in_arm64), only_x86=[n for n in x86_order if n not in in_arm64],
        only_arm64=[n for n in first if n not in in_x86])
    return result


def _passes(mode, x86_distance):
    return (mode.pages["16384"] - mode.bound["16384"] <= x86_distance + DISTANCE_SLACK
            and mode.x86_tau is not None and mode.x86_tau >= TAU_GOAL and mode.lld_warnings == 0 and mode.verified)


def _program(ctx, cross, program, probe_ok):
    build = _Build(ctx, cross, program)
    d = os.path.join(build.dir, "runs")
    os.makedirs(d, exist_ok=True)
    # x86-64: the launch the other sections record (instrumented build, runtime), its order
    # relinked into the release objects as they relink it.
    launch = ctx.launch(program)
    x86_order = _entries(launch.order)
    x86_exe, _ = _RealProgram(ctx, program).relink("arm64-section", launch.order)
    x86_pages, x86_bound = launch_pages(ctx.orderfile, launch.trace, x86_exe, env=ctx.env(),
                                        page_sizes=[int(s) for s in SIZES])
    modes = [_mode(ctx, cross, build, program, mode, x86_order, probe_ok, d)
             for mode in ("instrumented", "in-process")]
    # The default layout's pages, from the first trace of the instrumented mode.
    instrumented_trace = os.path.join(d, "instrumented-1.trace")
    default_pages, _ = launch_pages(ctx.orderfile, instrumented_trace, build.default, env=ctx.env(),
                                    page_sizes=[int(s) for s in SIZES])
    default_measured = _probe(ctx, cross, build.default, program.launch_args, os.path.join(d, "probe-default.txt")) \
        if probe_ok else {}
    x86_distance = x86_pages["16384"] - x86_bound["16384"]
    for m in modes:
        if m.not_run is None:
            m.passed = _passes(m, x86_distance)
    return Arm64Program(
        program=program.name, command=program.launch_text, compile=build.compile_text, default_pages=default_pages,
        default_measured=default_measured, x86_pages=x86_pages, x86_bound=x86_bound, x86_entries=len(x86_order),
        modes=modes, passed=all(m.passed for m in modes))


def _probe_works(ctx, cross):
    """Whether the page probe counts pages in the emulator's guest, tried on a small program; and
    what to say about it."""
    d = os.path.join(ctx.scratch, "arm64", "probe-check")
    os.makedirs(d, exist_ok=True)
    src, exe, out = os.path.join(d, "check.c"), os.path.join(d, "check"), os.path.join(d, "pages.txt")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    run_checked(cross.link + ["-O2", src, "-o", exe], "building the probe check for arm64")
    try:
        probe_pages(exe, [], cross.probe, ctx.env(), out, (4096,), prefix=cross.prefix)
        with open(out) as f:
            lines = f.read().splitlines()
    except (BenchError, OSError) as e:
        return False, f"the page probe did not run under {QEMU}: {str(e).splitlines()[0]}"
    size = next((int(line.split()[1], 16) for line in lines if line.startswith("pagesize ")), 4096)
    if not any(line.startswith("page 0 ") for line in lines):
        return False, f"the page probe ran under {QEMU} but counted no page of the executable"
    return True, (f"the page probe (cross-built, preloaded into the guest by LD_PRELOAD through {QEMU}) runs there; "
                  f"the guest's page is {size // 1024} KiB, so it counts {size // 1024} KiB pages and larger")


def run(ctx):
    cross = _Cross(ctx)
    probe_ok, probe_text = _probe_works(ctx, cross)
    programs = [_program(ctx, cross, p, probe_ok) for p in PROGRAMS]
    return Arm64Result(goal=GOAL, emulator=EMULATOR, probe=probe_text, programs=programs,
                       passed=all(p.passed for p in programs))


def _kib(size):
    return f"{int(size) // 1024} KiB"


def _measured(counts, size):
    if not counts:
        return "-"
    value = counts.get(size)
    return "-" if value is None else str(value)


def render_text(res):
    out = [f"== arm64: cross-built, recorded under {res.emulator} (goal: {res.goal}) ==", "", res.probe, ""]
    for p in res.programs:
        out.append(f"{p.program} ({p.command}), arm64 compile: {p.compile}")
        x86_distance = p.x86_pages["16384"] - p.x86_bound["16384"]
        out.append("  x86-64, relinked with its own order (" + f"{p.x86_entries} entries): "
                   + ", ".join(f"{_kib(s)} {p.x86_pages[s]} (bound {p.x86_bound[s]})" for s in SIZES))
        out.append("  arm64 default layout: " + ", ".join(
            f"{_kib(s)} {p.default_pages[s]} (probe {_measured(p.default_measured, s)})" for s in SIZES))
        for m in p.modes:
            if m.not_run:
                out.append(f"  {m.mode}: {m.not_run}")
                continue
            d16 = m.pages["16384"] - m.bound["16384"]
            out.append(f"  {m.mode}: {m.runs} runs (orders agree: tau >= {m.runs_tau:.3f}), {m.entries} entries, "
                       f"match {m.match_rate if m.match_rate is not None else '-'}; relinked: " + ", ".join(
                           f"{_kib(s)} {m.pages[s]} (bound {m.bound[s]}, probe {_measured(m.measured, s)})"
                           for s in SIZES))
            out.append(f"    16 KiB distance to the bound {d16} against x86-64's {x86_distance}: "
                       f"{_met(d16 <= x86_distance + DISTANCE_SLACK)}; Kendall tau vs x86-64 {m.x86_tau:.4f} over "
                       f"{m.shared} shared (only x86-64 {len(m.only_x86)} {m.only_x86[:5]}, only arm64 "
                       f"{len(m.only_arm64)} {m.only_arm64[:5]}): {_met(m.x86_tau >= TAU_GOAL)}; lld warnings "
                       f"{m.lld_warnings}: {_met(m.lld_warnings == 0)}; verify {verdict(m.verified)}")
    out.append(verdict(res.passed))
    return out


def render_markdown(res, report):
    rows, names = [], []
    for p in res.programs:
        name = short_name(p.program)
        x86_distance = p.x86_pages["16384"] - p.x86_bound["16384"]
        rows.append([name, "default", "", " / ".join(str(p.default_pages[s]) for s in SIZES),
                     " / ".join(_measured(p.default_measured, s) for s in SIZES), "", "", "", ""])
        for m in p.modes:
            if m.not_run:
                rows.append([name, m.mode, m.not_run, "", "", "", "", "", ""])
                continue
            d16 = m.pages["16384"] - m.bound["16384"]
            rows.append([
                name, f"{m.mode} order", f"{m.runs}, τ ≥ {m.runs_tau:.3f}; {m.entries}",
                " / ".join(f"{m.pages[s]} ({m.bound[s]})" for s in SIZES),
                " / ".join(_measured(m.measured, s) for s in SIZES),
                f"{d16} vs {x86_distance}, {_met(d16 <= x86_distance + DISTANCE_SLACK)}",
                f"{m.x86_tau:.3f} over {m.shared}, {_met(m.x86_tau >= TAU_GOAL)}",
                f"{m.lld_warnings}, {_met(m.lld_warnings == 0)}", verdict(m.verified)])
            names.append(f"- {name} ({m.mode}): only in the x86-64 order {len(m.only_x86)} "
                         f"({', '.join(f'`{n}`' for n in m.only_x86[:5]) or 'none'}), only in the arm64 order "
                         f"{len(m.only_arm64)} ({', '.join(f'`{n}`' for n in m.only_arm64[:5]) or 'none'}"
                         f"{', …' if len(m.only_arm64) > 5 else ''}).")
    x86 = [f"{short_name(p.program)} ({p.x86_entries} entries): "
           + " / ".join(f"{p.x86_pages[s]} ({p.x86_bound[s]})" for s in SIZES) for p in res.programs]
    body = [report.provenance(), "",
            f"Launch pages at 4 / 16 / 64 KiB of the arm64 release binary (clang `--target={TRIPLE}`, "
            f"`-O2 -ffunction-sections`, ld.lld), from `orderfile estimate`, the lower bound in parentheses; "
            f"recorded under `{res.emulator}`, {RUNS} runs per mode, the first run's order relinked:", "",
            md.table(["program", "layout", "runs, τ between them; entries", "pages (bound)", "page probe in the guest",
                      "16 KiB distance to the bound vs x86-64 (goal ≤ +1)", f"Kendall τ vs x86-64 (goal ≥ {TAU_GOAL})",
                      "lld warnings (goal 0)", "verify"],
                     ["l", "l", "l", "r", "r", "l", "l", "l", "l"], rows), "",
            "x86-64, the same sources relinked with the order the other sections record (instrumented build, "
            "runtime), pages (bound) at 4 / 16 / 64 KiB: " + "; ".join(x86) + ".", ""] + names + ["",
            res.probe[0].upper() + res.probe[1:] + ".", "",
            f"Goal: {res.goal}: {verdict(res.passed)}."]
    return {"arm64": "\n".join(body)}


SECTION = Section(
    name="arm64",
    help="Lua and SQLite cross-built for arm64 with clang and lld, recorded under qemu-user (instrumented; "
         "in-process with record --emulator), relinked and verified; pages at 4/16/64 KiB from estimate, the bound "
         "and the page probe in the guest; Kendall tau against the x86-64 order (goal: 16 KiB distance to the bound "
         "within 1 page of x86-64's, tau >= 0.99, 0 lld warnings)",
    result_type=Arm64Result,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

"""measured: what `orderfile estimate` says against what the shipped binary really touches,
on real programs no other section builds.

Programs (built by ownbuilds.py, which the inprocess section shares):
  ninja (Debian's ninja-build source, 28 C++ files), built by clang++ and by g++ with
  -O2 -ffunction-sections and linked by ld.lld; its launch is a dry run (`ninja -n`) over a
  generated manifest of 300 edges.
  A SwiftPM command-line tool written here (never committed with its dependencies) over
  swift-argument-parser, swift-collections and swift-log from the local package mirror,
  built -c release with -function-sections and linked by ld.lld.

For each: record the release binary without a rebuild, generate with --release-binary,
relink with ld.lld (its warnings counted), then `orderfile estimate --measure` on the
default and the relinked binary: the estimate beside the pages the page probe counted
(Sources/OrderfilePageProbe), and the lower bound, at 4 and 16 KiB. "simulated" is the
ordered layout as `estimate` predicts it from the default binary, before any relink.
The Swift tool is linked with a link map (BINARY.map beside it) and ordered twice: by a
symbol orderfile ("ordered") and by an lld linker-script fragment (`--format lld-script`,
"ordered (lld-script)"), the only format that also places its code without a symbol.
With root and loop devices, both layouts are also launched cold from a loop device with
small read-ahead, as the coldlaunch section does.
"""

import json
import os
import shutil
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import note, verdict
from ..model import json_name
from ..ownbuilds import SWIFT_ARGS, SWIFT_COMMAND, SWIFT_TITLE, build_ninja, swift_package_build
from ..process import interleave, run_checked, run_measured
from ..section import Section
from .coldlaunch import READ_AHEAD_KB, LoopDevice, cold_launch

PAGE_SIZES = [4096, 16384]
GOAL = ("estimate within 3 pages or 3% of the pages the page probe measured, default and ordered "
        "layouts, at 4 and 16 KiB; ordered launch within 5 pages plus 10% of the lower bound; "
        "0 lld warnings on a fresh orderfile")


@dataclass
class Layout:
    name: str                      # "default", "ordered" or "ordered (lld-script)"
    estimate: dict[str, int]       # page size (str) -> `estimate` now
    measured: dict[str, int]       # page size (str) -> pages the probe counted
    lower_bound: dict[str, int]
    simulated: dict[str, int] | None  # ordered only: predicted from the default binary (lld-script: `generate`'s
                                      # withoutSymbolCost `placed`, the order with code without a symbol placed)
    passed: bool = json_name("pass")  # estimate (and simulation) within tolerance of measured
    entries: int | None = None        # ordered layouts: the orderfile's entries
    lld_warnings: int | None = None   # ordered layouts: lld's warnings on their relink


@dataclass
class Cold:
    """Launches of one layout from the loop device, the binary evicted before each."""
    median_ms: float
    major_faults: float  # median


@dataclass
class Program:
    program: str
    compiler: str
    command: str
    entries: int
    lld_warnings: int
    warning_lines: list[str]
    layouts: list[Layout]
    passed: bool = json_name("pass")
    cold: dict[str, Cold] | None = None  # layout -> cold launches; None without a loop device


@dataclass
class MeasuredResult:
    goal: str
    programs: list[Program]
    skipped: list[str]
    passed: bool = json_name("pass")


def tolerance(measured):
    return max(3, (measured * 3 + 99) // 100)


def _agrees(estimated, measured):
    return abs(estimated - measured) <= tolerance(measured)


def bound_limit(lower_bound):
    """The most pages an ordered launch may touch: the lower bound plus 5 pages plus 10% (rounded up)."""
    return lower_bound + 5 + (lower_bound + 9) // 10


def _near_bound(layout):
    return all(layout.measured[k] <= bound_limit(layout.lower_bound[k]) for k in layout.measured)


def _warning_lines(text):
    return [line.strip() for line in text.splitlines() if "warning:" in line and "lld" in line]


def _estimate(ctx, trace, binary, args):
    out = run_checked([ctx.orderfile, "estimate", "--trace", trace, "--binary", binary, "--json", "--measure",
                       "--", binary] + args, f"orderfile estimate --measure {os.path.basename(binary)}",
                      env=ctx.env({"ORDERFILE_RUNTIME_DIR": ctx.runtime.dir}))
    report = json.loads(out)
    rows = {p["pageSize"]: p for p in report["pages"]}
    measured = {r["pageSize"]: r["measured"] for r in report["measurement"]["rows"]}
    return ({str(s): rows[s]["current"] for s in PAGE_SIZES}, {str(s): measured[s] for s in PAGE_SIZES},
            {str(s): rows[s]["lowerBound"] for s in PAGE_SIZES}, {str(s): rows[s]["ordered"] for s in PAGE_SIZES})


@dataclass
class Relink:
    """One ordered layout: its name, the orderfile format `generate` writes, and
    `relink(order) -> (binary, lld output)`."""
    layout: str
    format: str
    relink: object


def _entries(order, fmt):
    with open(order) as f:
        lines = [line.strip() for line in f if line.strip()]
    if fmt == "lld-script":  # the SECTIONS frame lines are not entries; each entry names an input section
        return sum(1 for line in lines if line.endswith(")"))
    return len(lines)


def _placed(ctx, trace, default, work, simulated):
    """The ordered layout with the code without a symbol placed too, as `generate` simulates it on the
    default binary (`withoutSymbolCost[].placed`): `estimate --order` reads only symbol orders, and
    without one it simulates a symbol order, which leaves that code where it is."""
    out = run_checked([ctx.orderfile, "generate", trace, "--module", os.path.basename(default), "--json",
                       "-o", os.path.join(work, "placed.order"), "--release-binary", default],
                      f"orderfile generate --json ({os.path.basename(default)})", env=ctx.env())
    cost = {str(c["pageSize"]): c["placed"] for m in json.loads(out)["modules"] for c in m.get("withoutSymbolCost", [])}
    return {k: cost.get(k, v) for k, v in simulated.items()}


def _measure_subject(ctx, loop, name, compiler, command, default, args, relinks, work):
    """Records, generates and relinks once per `Relink`, measures the default and every ordered layout."""
    tool = ctx.orderfile
    trace = os.path.join(work, "default.trace")
    run_checked([tool, "record", "--no-rebuild", "-q", "-o", trace, "--", default] + args,
                f"recording {name} ({compiler}) without a rebuild", env=ctx.env())
    now, measured, bound, simulated = _estimate(ctx, trace, default, args)
    layouts = [Layout("default", now, measured, bound, None, passed=all(_agrees(now[k], measured[k]) for k in now))]
    binaries = {"default": default}
    all_warnings = []
    for variant in relinks:
        slug = variant.layout.replace(" ", "-").replace("(", "").replace(")", "")
        order = os.path.join(work, f"launch-{slug}.order")
        run_checked([tool, "generate", trace, "--module", os.path.basename(default), "-o", order,
                     "--format", variant.format, "--release-binary", default],
                    f"orderfile generate ({name}, {compiler}, {variant.layout})", env=ctx.env())
        ordered, lld_output = variant.relink(order)
        warnings = _warning_lines(lld_output)
        all_warnings += warnings
        ordered_trace = os.path.join(work, f"{slug}.trace")
        run_checked([tool, "record", "--no-rebuild", "-q", "-o", ordered_trace, "--", ordered] + args,
                    f"recording {name} ({compiler}, {variant.layout})", env=ctx.env())
        after, after_measured, after_bound, _ = _estimate(ctx, ordered_trace, ordered, args)
        predicted = _placed(ctx, trace, default, work, simulated) if variant.format == "lld-script" else simulated
        layouts.append(Layout(variant.layout, after, after_measured, after_bound, predicted,
                              passed=all(_agrees(after[k], after_measured[k])
                                         and _agrees(predicted[k], after_measured[k]) for k in after),
                              entries=_entries(order, variant.format), lld_warnings=len(warnings)))
        binaries[variant.layout] = ordered
    cold = _cold(ctx, loop, name, compiler, binaries, args) if loop else None
    return Program(program=name, compiler=compiler, command=command, entries=layouts[1].entries,
                   lld_warnings=len(all_warnings), warning_lines=all_warnings[:5], layouts=layouts,
                   passed=all(layout.passed for layout in layouts) and not all_warnings
                   and all(_near_bound(layout) for layout in layouts[1:]), cold=cold)


def _cold(ctx, loop, name, compiler, binaries, args):
    """Each layout copied to the loop device and launched COLD_RUNS times, interleaved."""
    placed = {}
    for layout, binary in binaries.items():
        target = os.path.join(loop.mount, f"{name}-{compiler}-{layout}".replace(" ", "_").replace("/", "_"))
        os.makedirs(target, exist_ok=True)
        placed[layout] = os.path.join(target, os.path.basename(binary))
        shutil.copy2(binary, placed[layout])
    runs = max(ctx.options.runs, 10)
    samples = interleave(list(binaries), runs, lambda layout: cold_launch(placed[layout], args, ctx.env(),
                                                                          [placed[layout]]),
                         f"measured: cold launches of {name} ({compiler})")
    return {layout: Cold(median_ms=statistics.median(r[layout][0] for r in samples),
                         major_faults=statistics.median(r[layout][1] for r in samples)) for layout in binaries}


# ---- ninja -------------------------------------------------------------------------------

def _ninja(ctx, loop, compiler_name, compiler, lld_dir):
    work = os.path.join(ctx.scratch, "measured", f"ninja-{compiler_name}")
    build = build_ninja(ctx, work, compiler_name, compiler, lld_dir)
    default = os.path.join(work, "ninja")
    run_checked(build.link + build.objects + ["-o", default], f"linking ninja ({compiler_name})", env=build.env)

    def relink(order):
        ordered = os.path.join(work, "ninja-ordered")
        _, _, out, err = run_measured(build.link + [f"-Wl,--symbol-ordering-file={order}"] + build.objects
                                      + ["-o", ordered], f"relinking ninja ({compiler_name})", env=build.env)
        return ordered, out + err
    return _measure_subject(ctx, loop, "ninja", compiler_name, build.command, default, build.args,
                            [Relink("ordered", "lld", relink)], work)


# ---- a Swift package ---------------------------------------------------------------------

def _swift(ctx, loop):
    work = os.path.join(ctx.scratch, "measured", "swift")
    os.makedirs(work, exist_ok=True)
    _, build, env, built = swift_package_build(ctx)
    # The link map names the code without a symbol, which only an lld-script orderfile can place.
    build += ["-Xlinker", f"-Map={built}.map"]

    def take(target):
        """Copies the binary just linked and its map, which must stay beside it (BINARY.map)."""
        shutil.copy2(built, target)
        shutil.copy2(built + ".map", target + ".map")
        return target
    run_checked(build, "building the Swift package", env=env, timeout=1800)
    default = take(os.path.join(work, "Greet"))

    def relinker(flag, target):
        def relink(order):
            _, _, out, err = run_measured(build + ["-Xlinker", f"{flag}={order}"],
                                          f"relinking the Swift package ({flag})", env=env)
            return take(os.path.join(work, target)), out + err
        return relink
    relinks = [Relink("ordered", "lld", relinker("--symbol-ordering-file", "Greet-ordered")),
               Relink("ordered (lld-script)", "lld-script", relinker("--script", "Greet-ordered-script"))]
    return _measure_subject(ctx, loop, SWIFT_TITLE, "swiftc -O", SWIFT_COMMAND, default, SWIFT_ARGS, relinks, work)


def _loop_skip_reason(environ):
    if os.geteuid() != 0:
        return "cold launches need root and loop devices (not root)"
    if not shutil.which("losetup", path=environ.get("PATH")) or not os.path.exists("/dev/loop-control"):
        return "cold launches need loop devices (no losetup or /dev/loop-control)"
    if not shutil.which("mkfs.ext4", path=environ.get("PATH")):
        return "cold launches need mkfs.ext4"
    return None


def run(ctx):
    reason = _loop_skip_reason(ctx.environ)
    if reason:
        return _run(ctx, None, [reason])
    with LoopDevice(ctx.scratch) as loop:
        return _run(ctx, loop, [])


def _run(ctx, loop, skipped):
    programs = []
    cxx = os.path.join(os.path.dirname(ctx.cc), "clang++")
    lld_dir = os.path.dirname(shutil.which("ld.lld", path=os.path.dirname(ctx.cc) + os.pathsep
                                           + ctx.environ.get("PATH", "")) or "/opt/swift/usr/bin/ld.lld")
    gxx = shutil.which("g++", path=ctx.environ.get("PATH"))
    for name, compiler in [("clang++", cxx if os.path.exists(cxx) else None), ("g++", gxx)]:
        if compiler is None:
            skipped.append(f"ninja with {name}: {name} not found")
            note(f"measured: {name} not found, skipped")
            continue
        programs.append(_ninja(ctx, loop, name, compiler, lld_dir))
    programs.append(_swift(ctx, loop))
    return MeasuredResult(goal=GOAL, programs=programs, skipped=skipped,
                          passed=bool(programs) and all(p.passed for p in programs))


def _warnings(p, layout):
    """lld's warnings on this layout's relink; a report saved before layouts kept their own has the program's."""
    if layout.name == "default":
        return None
    return p.lld_warnings if layout.lld_warnings is None else layout.lld_warnings


def _rows(res):
    rows = []
    for p in res.programs:
        for layout in p.layouts:
            warnings = _warnings(p, layout)
            for s in PAGE_SIZES:
                k = str(s)
                ok = _agrees(layout.estimate[k], layout.measured[k])
                rows.append([f"{p.program}, {p.compiler}", layout.name, f"{s // 1024} KiB", str(layout.estimate[k]),
                             "" if layout.simulated is None else str(layout.simulated[k]), str(layout.measured[k]),
                             str(layout.lower_bound[k]), "" if warnings is None else str(warnings),
                             "yes" if ok else "NO"])
    return rows


def _goal(goal, misses, total, unit):
    if not misses:
        return f"{goal}: met on all {total} {unit}."
    return f"{goal}: missed on {len(misses)} of {total} {unit}: " + "; ".join(misses) + "."


def goals(res):
    """One line per goal: met or missed, with the figures of every miss."""
    estimates, simulations, bounds, warned = [], [], [], []
    rows = ordered_rows = 0
    for p in res.programs:
        where = f"{p.program}, {p.compiler}"
        for layout in p.layouts:
            for s in PAGE_SIZES:
                k, page = str(s), f"{s // 1024} KiB"
                rows += 1
                if not _agrees(layout.estimate[k], layout.measured[k]):
                    estimates.append(f"{where}, {layout.name}, {page}: estimate {layout.estimate[k]}, "
                                     f"measured {layout.measured[k]}")
                if layout.name == "default":
                    continue
                ordered_rows += 1
                if layout.simulated is not None and not _agrees(layout.simulated[k], layout.measured[k]):
                    simulations.append(f"{where}, {layout.name}, {page}: simulated {layout.simulated[k]}, "
                                       f"measured {layout.measured[k]}")
                if layout.measured[k] > bound_limit(layout.lower_bound[k]):
                    bounds.append(f"{where}, {layout.name}, {page}: measured {layout.measured[k]}, at most "
                                  f"{bound_limit(layout.lower_bound[k])} (lower bound {layout.lower_bound[k]})")
            warnings = _warnings(p, layout)
            if warnings:
                warned.append(f"{where}, {layout.name}: {warnings} warning" + ("" if warnings == 1 else "s"))
    relinks = sum(1 for p in res.programs for layout in p.layouts if layout.name != "default")
    return [_goal("Estimate within 3 pages or 3% of measured, default and ordered layouts", estimates, rows, "rows"),
            _goal("Ordered layout simulated from the default binary within 3 pages or 3% of measured", simulations,
                  ordered_rows, "rows"),
            _goal("Ordered launch within 5 pages plus 10% of the lower bound", bounds, ordered_rows, "rows"),
            _goal("0 lld warnings on a fresh orderfile", warned, relinks, "relinks")]


HEADER = ["program", "layout", "page", "estimate", "simulated", "measured", "lower bound", "lld warnings",
          "within 3%"]


def render_text(res):
    out = [f"  goal: {res.goal}",
           "  estimate: `orderfile estimate` on the binary itself; simulated: the ordered layout predicted from "
           "the default binary (lld-script: generate's withoutSymbolCost placed); measured: pages the page probe "
           "counted (estimate --measure)"]
    widths = [max(len(str(r[i])) for r in [HEADER] + _rows(res)) for i in range(len(HEADER))]
    for row in [HEADER] + _rows(res):
        out.append("  " + "  ".join(str(c).ljust(w) if i < 3 else str(c).rjust(w)
                                     for i, (c, w) in enumerate(zip(row, widths))))
    for p in res.programs:
        for line in p.warning_lines:
            out.append(f"  {p.program} ({p.compiler}): {line}")
        entries = ", ".join(f"{layout.name} {p.entries if layout.entries is None else layout.entries}"
                            for layout in p.layouts if layout.name != "default")
        out.append(f"  {p.program} ({p.compiler}): orderfile entries: {entries}: {verdict(p.passed)}")
    for p in res.programs:
        if p.cold:
            out.append(f"  {p.program} ({p.compiler}) cold launches (loop device, {READ_AHEAD_KB} KiB read-ahead): "
                       + ", ".join(f"{layout} {c.median_ms:.2f} ms, {c.major_faults:g} major faults"
                                   for layout, c in p.cold.items()))
    out += [f"  goal: {line}" for line in goals(res)]
    out += [f"  skipped: {s}" for s in res.skipped]
    return out


def render_markdown(res, report):
    body = [report.provenance(), "",
            "`estimate`: `orderfile estimate` on the binary itself (trace recorded from it without a rebuild); "
            "`simulated`: the ordered layout as `estimate` predicts it from the default binary (for `lld-script`, "
            "as `generate` does with the code without a symbol placed, `withoutSymbolCost`); `measured`: "
            "the pages the page probe counted (`estimate --measure`); `lower bound`: the launch code's bytes "
            "÷ page size.", "",
            md.table(HEADER, ["l", "l", "l", "r", "r", "r", "r", "r", "l"], _rows(res))]
    cold = [[f"{p.program}, {p.compiler}", layout, f"{c.median_ms:.2f} ms", f"{c.major_faults:g}"]
            for p in res.programs if p.cold for layout, c in p.cold.items()]
    if cold:
        body += ["", f"Cold launches from a loop device (direct I/O, {READ_AHEAD_KB} KiB read-ahead), the binary "
                 "evicted before each, layouts interleaved; medians:", "",
                 md.table(["program", "layout", "cold launch", "major faults"], ["l", "l", "r", "r"], cold)]
    body += ["", "Goals:", ""] + [f"- {line}" for line in goals(res)]
    return {"measured": "\n".join(body)}


SECTION = Section(
    name="measured",
    help="estimate against the pages the shipped binary really touches (page probe), on ninja built by clang++ "
         "and g++ and on a SwiftPM tool (ordered by symbols and by an lld-script with its link map): default and "
         "ordered layouts, lower bound, lld warnings (goals: within 3 pages or 3%, ordered within 5 pages + 10% of "
         "the lower bound, 0 warnings)",
    result_type=MeasuredResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

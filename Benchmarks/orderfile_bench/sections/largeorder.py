"""largeorder: orderfile diff and verify on a generated orderfile of 10 million lines."""

import os
import random
import statistics
import string
from dataclasses import dataclass

from .. import markdown as md
from ..common import verdict
from ..model import json_name
from ..process import run_checked, run_measured
from ..section import Section

LINES = 10_000_000
FUNCTIONS = 2_000  # functions of the program verify checks; the orderfile's first lines
RUNS = 3
SEED = 22
# The same ceiling as the scale section's generate. Before the orderfile was read as a
# stream into name tables, diff took 1.9 GiB here and verify 0.75 GiB.
GOAL_BYTES = 1 << 30


@dataclass
class LargeOrderRow:
    command: str
    seconds: float  # median
    peak_kib: int  # median
    seconds_ratio: float  # against `sort` of the same file, in the same run
    memory_ratio: float  # peak memory ÷ the orderfile's size
    memory_vs_sort: float  # peak memory ÷ sort's, in the same run
    passed: bool = json_name("pass")


@dataclass
class LargeOrderResult:
    goal: str
    lines: int
    order_bytes: int
    runs: int
    baseline_seconds: float
    baseline_peak_kib: int
    rows: list[LargeOrderRow]
    passed: bool = json_name("pass")


def _name(i):
    # Five letters and a newline: 60 MB for 10 million lines, the size the tool reads whole
    # (FileReading's 64 MiB and 10 million lines).
    out = ""
    for _ in range(5):
        i, r = divmod(i, 26)
        out = string.ascii_lowercase[r] + out
    return out


def write_orderfiles(directory, lines=LINES, seed=SEED):
    """base.order: `lines` names; head.order: the same number of lines, 1% of the entries
    replaced by new names (a deletion and an addition each) and 1% swapped (seeded).
    Returns the two paths."""
    rng = random.Random(seed)
    names = [_name(i) for i in range(lines)]
    base = os.path.join(directory, "base.order")
    with open(base, "w") as f:
        f.write("\n".join(names))
        f.write("\n")
    head = list(names)
    for k in range(lines // 100):
        head[rng.randrange(lines)] = _name(lines + k)
    for _ in range(lines // 100):
        a, b = rng.randrange(lines), rng.randrange(lines)
        head[a], head[b] = head[b], head[a]
    head_path = os.path.join(directory, "head.order")
    with open(head_path, "w") as f:
        f.write("\n".join(head))
        f.write("\n")
    return base, head_path


def build_program(ctx, directory, functions=FUNCTIONS):
    """A C program whose functions are the orderfile's first names, linked in that order."""
    src = os.path.join(directory, "program.c")
    with open(src, "w") as f:
        for i in range(functions):
            f.write(f"__attribute__((noinline)) int {_name(i)}(int x) {{ return x * {i + 3} + {i}; }}\n")
        f.write("int main(int c, char **v) { int s = 0;\n")
        for i in range(functions):
            f.write(f"  s += {_name(i)}(c);\n")
        f.write("  return s & 1; }\n")
    order = os.path.join(directory, "program.order")
    with open(order, "w") as f:
        f.write("".join(_name(i) + "\n" for i in range(functions)))
    binary = os.path.join(directory, "program")
    run_checked([ctx.cc, "-O1", "-ffunction-sections", "-fuse-ld=lld", f"-Wl,--symbol-ordering-file={order}",
                 src, "-o", binary], "building the program verify checks")
    return binary


def run(ctx):
    tool = ctx.orderfile
    d = os.path.join(ctx.scratch, "largeorder")
    os.makedirs(d, exist_ok=True)
    base, head = write_orderfiles(d)
    binary = build_program(ctx, d)
    size = os.path.getsize(base)
    commands = {
        "sort (baseline)": (["sort", "-o", os.devnull, base], True),
        "orderfile diff": ([tool, "diff", base, head, "--json"], True),
        # The program has the first 2,000 of 10 million entries: verify fails (exit 1) and
        # diagnoses the rest, its slowest path.
        "orderfile verify": ([tool, "verify", "--binary", binary, "--order", base, "--json"], False),
    }
    samples = {name: ([], []) for name in commands}
    for _ in range(RUNS):
        for name, (cmd, check) in commands.items():  # interleaved: one round each, in turn
            wall, peak, _, _ = run_measured(cmd, name, env=ctx.env({"LC_ALL": "C"}), peak=True, check=check)
            samples[name][0].append(wall)
            samples[name][1].append(peak or 0)
    base_s = statistics.median(samples["sort (baseline)"][0])
    base_kib = int(statistics.median(samples["sort (baseline)"][1]))
    rows = []
    for name in commands:
        if name.startswith("sort"):
            continue
        seconds = statistics.median(samples[name][0])
        peak = int(statistics.median(samples[name][1]))
        ratio = peak * 1024 / size
        rows.append(LargeOrderRow(command=name, seconds=seconds, peak_kib=peak, seconds_ratio=seconds / base_s,
                                  memory_ratio=ratio, memory_vs_sort=peak / max(base_kib, 1),
                                  passed=peak * 1024 < GOAL_BYTES))
    return LargeOrderResult(
        goal="peak memory under 1 GiB for each command",
        lines=LINES, order_bytes=size, runs=RUNS, baseline_seconds=base_s, baseline_peak_kib=base_kib, rows=rows,
        passed=all(r.passed for r in rows))


def render_text(res):
    out = [f"== largeorder: diff and verify on {res.lines:,} lines ({res.order_bytes / 2**20:.0f} MiB; "
           f"goal: {res.goal}) ==",
           f"medians of {res.runs} runs; peak is GNU time's maximum resident set; the baseline is sort on the "
           f"same file: {res.baseline_seconds:.2f} s, {res.baseline_peak_kib / 1024:.0f} MiB",
           "",
           f"{'command':<18} {'time':>8} {'vs sort':>8} {'peak':>9} {'vs sort':>8} {'peak/file':>10}  goal"]
    for r in res.rows:
        out.append(f"{r.command:<18} {r.seconds:>7.2f}s {r.seconds_ratio:>7.1f}x {r.peak_kib / 1024:>5.0f} MiB "
                   f"{r.memory_vs_sort:>7.1f}x {r.memory_ratio:>9.1f}x  {verdict(r.passed)}")
    return out


def render_markdown(res, report):
    rows = [[f"`{r.command}`", f"{r.seconds:.2f} s", f"{r.seconds_ratio:.1f}×", f"{r.peak_kib / 1024:.0f} MiB",
             f"{r.memory_vs_sort:.1f}×", f"{r.memory_ratio:.1f}×"] for r in res.rows]
    body = [f"{report.provenance()} {res.lines:,} lines, {res.order_bytes / 2**20:.0f} MiB; medians of {res.runs} "
            f"runs; `sort` on the same file: {res.baseline_seconds:.2f} s, {res.baseline_peak_kib / 1024:.0f} MiB.",
            "",
            md.table(["command", "time", "vs sort", "peak", "vs sort", "peak ÷ file"], ["l", "r", "r", "r", "r", "r"],
                     rows), "",
            f"Goal: {res.goal}, {verdict(res.passed)}."]
    return {"largeorder": "\n".join(body)}


SECTION = Section(
    name="largeorder",
    help="orderfile diff and verify on a generated orderfile of 10 million lines (60 MB): time and peak memory, "
         "medians, against sort of the same file (goal: peak under 1 GiB)",
    result_type=LargeOrderResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

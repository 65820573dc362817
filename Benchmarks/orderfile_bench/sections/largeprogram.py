"""largeprogram: on a program of a quarter of a million functions, what the whole `record` costs
beside the plain launch (plan cache empty and warm, as the swiftserver section measures it) and
the commands that read a trace."""

import os
import shutil
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import BenchError, verdict
from ..model import json_name
from ..process import interleave, run_checked, run_measured
from ..recordcost import RecordRow, over_plain, record_rows, render_rows_markdown, render_rows_text
from ..section import Section

# The toolchain's compiler: 210 MB, about 250,000 functions, and a launch (-version) that
# runs about 5,000 of them. Copied with its libraries' directory beside it, so the copy runs.
DEFAULT_PROGRAM = "/opt/swift/usr/bin/swift-frontend"
GOAL_SECONDS = 1.0
RECORD_GOAL_MS = 300
RUNS = 3


@dataclass
class CommandRow:
    command: str
    seconds: float  # median wall time, warm
    peak_kib: int  # the largest of the runs
    passed: bool | None = json_name("pass")  # None for a command without a goal


@dataclass
class LargeProgramResult:
    goal: str
    program: str
    program_bytes: int
    functions: int
    launch_functions: int
    runs: int
    commands: dict[str, str]
    rows: list[CommandRow]
    records: list[RecordRow]
    record_passed: bool
    passed: bool = json_name("pass")


def run(ctx):
    tool = ctx.orderfile
    source = os.path.realpath(DEFAULT_PROGRAM)
    if not os.path.exists(source):
        raise BenchError(f"no large program at '{source}' (the Swift toolchain's swift-frontend)")
    d = os.path.join(ctx.scratch, "largeprogram")
    os.makedirs(os.path.join(d, "bin"), exist_ok=True)
    program = os.path.join(d, "bin", "swift-frontend")
    shutil.copy2(source, program)
    # The copy finds its libraries through $ORIGIN/../lib, as the original does.
    os.symlink(os.path.join(os.path.dirname(os.path.dirname(source)), "lib"), os.path.join(d, "lib"))
    env = ctx.env()
    env.pop("DEBUGINFOD_URLS", None)
    trace, base, head = (os.path.join(d, n) for n in ("launch.trace", "base.order", "head.order"))
    # Each record of the timing rounds writes the same trace: the last one is what the commands read.
    records, _ = record_rows([program, "-version"], [tool, "record", "-o", trace, "--", program, "-version"],
                             env, d, RUNS, "large program record", peak=True)
    record_passed = over_plain(records) <= RECORD_GOAL_MS
    run_checked([tool, "generate", trace, "-o", base], "orderfile generate", env=env)
    with open(base) as f:
        entries = f.read().splitlines()
    # A head that moves the first hundred entries behind the next hundred: a diff with moves.
    with open(head, "w") as f:
        f.write("\n".join(entries[100:200] + entries[:100] + entries[200:]) + "\n")
    functions = sum(1 for line in run_checked(["nm", "--defined-only", program], "nm").splitlines()
                    if line.split(" ")[1:2] and line.split(" ")[1] in "tTwWi")
    variants = {
        "generate": [tool, "generate", trace, "-o", os.path.join(d, "out.order")],
        "estimate": [tool, "estimate", "--trace", trace, "--binary", program],
        "verify": [tool, "verify", "--binary", program, "--order", base],
        "diff": [tool, "diff", base, head, "--trace", trace, "--binary", program],
        "report": [tool, "report", trace],
    }
    # verify exits non-zero for a binary that does not follow the order: the timing still holds.
    run_checked([tool, "generate", trace, "-o", os.path.join(d, "out.order")], "orderfile generate (warm-up)",
                env=env)
    rounds = interleave(variants, RUNS, lambda key: run_measured(variants[key], f"orderfile {key}", env=env,
                                                                 check=key != "verify", peak=True),
                        "large program")
    rows = []
    for key in variants:
        walls = [rd[key][0] for rd in rounds]
        peak = max(rd[key][1] or 0 for rd in rounds)
        seconds = statistics.median(walls)
        rows.append(CommandRow(command=key, seconds=seconds, peak_kib=peak, passed=seconds < GOAL_SECONDS))
    commands_passed = all(r.passed for r in rows)
    return LargeProgramResult(
        goal=f"the whole record, plan cache warm, at most the plain launch + {RECORD_GOAL_MS} ms; generate, "
             f"estimate, verify, diff and report each under {GOAL_SECONDS:.0f} s warm on a program of about "
             "250,000 functions",
        program=source, program_bytes=os.path.getsize(program), functions=functions,
        launch_functions=len(entries), runs=RUNS, commands={k: " ".join(v) for k, v in variants.items()},
        rows=rows, records=records, record_passed=record_passed, passed=record_passed and commands_passed)


def render_text(res):
    out = [f"== largeprogram: record and the commands on a large program (goal: {res.goal}) ==",
           f"program: {res.program} ({res.program_bytes / 2**20:,.0f} MiB, {res.functions:,} function symbols), "
           f"its -version launch recorded ({res.launch_functions:,} orderfile entries); median wall time of "
           f"{res.runs} interleaved runs after a warm-up, peak memory the largest",
           "", *render_rows_text(res.records, RECORD_GOAL_MS, res.record_passed),
           "", f"{'command':<10} {'time':>8} {'peak MiB':>9}  verdict"]
    for r in res.rows:
        out.append(f"{r.command:<10} {r.seconds * 1e3:>6.0f}ms {r.peak_kib / 1024:>9.0f}  {verdict(r.passed)}")
    return out


def render_markdown(res, report):
    rows = [[f"`orderfile {r.command}`", f"{r.seconds * 1e3:,.0f} ms", f"{r.peak_kib / 1024:,.0f} MiB",
             verdict(r.passed)] for r in res.rows]
    body = [f"{report.provenance()} `{os.path.basename(res.program)}` ({res.program_bytes / 2**20:,.0f} MiB, "
            f"{res.functions:,} function symbols), its `-version` launch ({res.launch_functions:,} entries), "
            f"median of {res.runs} interleaved warm runs.", "",
            *render_rows_markdown(res.records, RECORD_GOAL_MS, res.record_passed), "",
            md.table(["command", "time", "peak memory", f"verdict (< {GOAL_SECONDS:.0f} s)"], ["l", "r", "r", "l"],
                     rows)]
    return {"largeprogram": "\n".join(body)}


SECTION = Section(
    name="largeprogram",
    help="the Swift toolchain's swift-frontend (about 250,000 functions): its plain -version launch against the "
         "whole record, plan cache empty and warm (goal: + 300 ms), and generate, estimate, verify, diff and "
         "report on its trace, each command's warm time and peak memory (goal: each under 1 s)",
    result_type=LargeProgramResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

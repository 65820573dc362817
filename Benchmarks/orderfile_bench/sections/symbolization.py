"""symbolization: orderfile symbolize versus llvm-symbolizer on a large binary."""

import os
import random
import statistics
from dataclasses import dataclass

from .. import markdown as md
from ..common import BenchError, verdict
from ..model import json_name
from ..process import find_tool, interleave, run_checked, run_measured
from ..realprograms import PROGRAMS, GenerateTiming
from ..section import Section

DEFAULT_BINARY = "/opt/swift/usr/bin/swift-package"
COUNTS = (10_000, 100_000)
GOAL = 5.0
RUNS = 3
SEED = 6


@dataclass
class SymbolizeRow:
    addresses: int
    mode: str  # names or lines
    orderfile_seconds: float
    llvm_seconds: float
    orderfile_per_second: float
    llvm_per_second: float
    orderfile_peak_kib: int
    llvm_peak_kib: int
    speedup: float
    gated: bool
    passed: bool | None = json_name("pass")  # None when not gated


@dataclass
class SymbolizationResult:
    goal: str
    binary: str
    binary_bytes: int
    function_addresses: int
    stripped_bytes: int
    runs: int
    commands: dict[str, str]
    rows: list[SymbolizeRow]
    names_agree: float
    lines_agree: float
    lines_compared: int
    context_llvm_full_vs_orderfile_names: float
    startup_seconds: dict[str, float]
    per_address_microseconds: dict[str, float]
    generate: dict[str, GenerateTiming]  # from the programs section, when it ran first
    passed: bool = json_name("pass")


def _inputs(d, addresses):
    """Address files: COUNTS addresses drawn at random, and one address (the start-up cost)."""
    rng = random.Random(SEED)
    inputs = {}
    for n in COUNTS:
        chosen = rng.sample(addresses, n) if n <= len(addresses) else [rng.choice(addresses) for _ in range(n)]
        path = os.path.join(d, f"addresses-{n}.txt")
        with open(path, "w") as f:
            f.write("".join(f"0x{a:x}\n" for a in chosen))
        inputs[n] = path
    # One address: what each tool costs before its first answer (opening, indexing).
    inputs[1] = os.path.join(d, "addresses-1.txt")
    with open(inputs[COUNTS[0]]) as f, open(inputs[1], "w") as one:
        one.write(f.readline())
    return inputs


def run(ctx):
    tool = ctx.orderfile
    binary = os.path.realpath(ctx.options.symbolize_binary or DEFAULT_BINARY)
    if not os.path.exists(binary):
        raise BenchError(f"no binary to symbolize at '{binary}' (give one with --symbolize-binary)")
    symbolizer = find_tool("llvm-symbolizer", ctx.environ)
    if os.path.exists("/opt/swift/usr/bin/llvm-symbolizer"):
        symbolizer = "/opt/swift/usr/bin/llvm-symbolizer"
    nm = find_tool("llvm-nm", ctx.environ)
    objcopy = find_tool("llvm-objcopy", ctx.environ)
    version = run_checked([symbolizer, "--version"], "llvm-symbolizer --version").split()[-3:]
    ctx.tools["llvm_symbolizer"] = f"{symbolizer} ({' '.join(version)})"
    d = os.path.join(ctx.scratch, "symbolization")
    os.makedirs(d, exist_ok=True)
    listing = run_checked([nm, "--defined-only", binary], "listing function symbols")
    addresses = sorted({int(f[0], 16) for f in (line.split() for line in listing.splitlines())
                        if len(f) >= 3 and f[1] in ("t", "T")})
    stripped = os.path.join(d, os.path.basename(binary) + ".nodebug")
    run_checked([objcopy, "--strip-debug", binary, stripped], "copying the binary without debug info")
    inputs = _inputs(d, addresses)
    # "TOOL MODE" -> command
    variants = {
        "orderfile names": [tool, "symbolize", "--binary", binary, "--no-demangle"],
        "orderfile lines": [tool, "symbolize", "--binary", binary, "--no-demangle", "--lines"],
        "llvm names": [symbolizer, f"--obj={stripped}", "--no-inlines", "--no-demangle", "--no-debuginfod"],
        "llvm lines": [symbolizer, f"--obj={binary}", "--no-inlines", "--no-demangle", "--no-debuginfod"],
    }
    env = ctx.env()
    env.pop("DEBUGINFOD_URLS", None)

    def measure(key, n):
        tool_name, mode = key.split()
        return run_measured(variants[key], f"{tool_name} symbolize ({mode})", env=env, stdin_path=inputs[n],
                            peak=True)

    # (key, n) -> one (wall, peak KiB, stdout, stderr) per round
    runs = {}
    for n in (1,) + COUNTS:
        rounds = interleave(variants, RUNS, lambda key: measure(key, n), f"symbolization: {n} addresses")
        for key in variants:
            runs[(key, n)] = [rd[key] for rd in rounds]

    def median(key, n):
        return statistics.median(wall for wall, _, _, _ in runs[(key, n)])

    def peak(key, n):
        return max(kib for _, kib, _, _ in runs[(key, n)])

    # Do the two agree on the names? llvm-symbolizer prints a block per address: name, file:line:col.
    n = COUNTS[-1]
    llvm_blocks = [block.split("\n") for block in runs[("llvm lines", n)][-1][2].strip().split("\n\n")]
    ours_rows = [line.split("\t") for line in runs[("orderfile lines", n)][-1][2].splitlines()]
    agree = sum(1 for a, b in zip(ours_rows, llvm_blocks) if a[1] == b[0])
    # Lines: where llvm-symbolizer has a line (not 0), does ours name the same file:line?
    with_line = [(a[2], b[1].rsplit(":", 1)[0]) for a, b in zip(ours_rows, llvm_blocks)
                 if len(b) > 1 and b[1].rsplit(":", 2)[-2:-1] != ["0"]]
    lines_agree = sum(1 for a, b in with_line if a == b) / max(1, len(with_line))
    rows = []
    for n in COUNTS:
        for mode in ("names", "lines"):
            ours, llvm = median(f"orderfile {mode}", n), median(f"llvm {mode}", n)
            gated = n == COUNTS[-1]
            rows.append(SymbolizeRow(
                addresses=n, mode=mode, orderfile_seconds=ours, llvm_seconds=llvm,
                orderfile_per_second=n / ours, llvm_per_second=n / llvm,
                orderfile_peak_kib=peak(f"orderfile {mode}", n), llvm_peak_kib=peak(f"llvm {mode}", n),
                speedup=llvm / ours, gated=gated, passed=(llvm / ours >= GOAL) if gated else None))
    # The same binary, llvm-symbolizer's only way: names and lines together, versus our names only.
    n = COUNTS[-1]
    context_ratio = median("llvm lines", n) / median("orderfile names", n)
    startup = {key: median(key, 1) for key in variants}
    per_address = {key: (median(key, n) - startup[key]) / (n - 1) * 1e6 for key in variants}
    generate = {p.name: launch.generate for p in PROGRAMS if (launch := ctx.recorded_launch(p))}
    return SymbolizationResult(
        goal=f"orderfile symbolize >= {GOAL:.0f}x llvm-symbolizer's throughput at {COUNTS[-1]:,} addresses, "
             "names only and with file:line",
        binary=binary, binary_bytes=os.path.getsize(binary), function_addresses=len(addresses),
        stripped_bytes=os.path.getsize(stripped), runs=RUNS,
        commands={k: " ".join(v) for k, v in variants.items()},
        rows=rows, names_agree=agree / max(1, len(ours_rows)),
        lines_agree=lines_agree, lines_compared=len(with_line),
        context_llvm_full_vs_orderfile_names=context_ratio,
        startup_seconds=startup, per_address_microseconds=per_address,
        generate=generate, passed=all(r.passed for r in rows if r.gated))


def _mode(row):
    return "names" if row.mode == "names" else "file:line"


def render_text(res):
    out = [f"== symbolization: throughput on a large binary (goal: {res.goal}) ==",
           f"binary: {res.binary} ({res.binary_bytes / 2**20:,.0f} MiB, {res.function_addresses:,} "
           f"function addresses); addresses drawn at random (seed {SEED}) from its function symbols",
           "names only: orderfile symbolize (symbol table) versus llvm-symbolizer on a copy without debug "
           f"sections ({res.stripped_bytes / 2**20:,.0f} MiB; llvm-symbolizer has no names-only mode and "
           "reads DWARF whenever it is there)",
           "file:line: orderfile symbolize --lines versus llvm-symbolizer on the binary; both --no-demangle, "
           f"llvm-symbolizer --no-inlines; median wall time of {res.runs} interleaved runs, including startup",
           "",
           f"{'addresses':>9} {'mode':<9} {'orderfile':>10} {'llvm-symb.':>10} {'orderfile/s':>12} "
           f"{'llvm/s':>10} {'speedup':>8} {'peak MiB (ours/llvm)':>21}  verdict"]
    for r in res.rows:
        text = (verdict(r.passed) + f" (goal >= {GOAL:.0f}x)") if r.gated else ""
        out.append(f"{r.addresses:>9,} {_mode(r):<9} {r.orderfile_seconds:>9.3f}s {r.llvm_seconds:>9.3f}s "
                   f"{r.orderfile_per_second:>12,.0f} {r.llvm_per_second:>10,.0f} {r.speedup:>7.2f}x "
                   f"{r.orderfile_peak_kib / 1024:>10.0f} / {r.llvm_peak_kib / 1024:<8.0f}  {text}")
    out.append(f"names agree with llvm-symbolizer's on {res.names_agree * 100:.1f}% of the addresses, file:line "
               f"on {res.lines_agree * 100:.1f}% of the {res.lines_compared:,} it gives a line for; "
               f"llvm-symbolizer on the binary itself (names and lines) takes "
               f"{res.context_llvm_full_vs_orderfile_names:.2f}x as long as orderfile symbolize names only")
    out.append("start-up (1 address) and time per further address (median at 100,000 minus start-up): "
               + "; ".join(f"{k} {res.startup_seconds[k]:.3f} s + {res.per_address_microseconds[k]:.1f} us"
                           for k in res.startup_seconds))
    for name, g in res.generate.items():
        out.append(f"orderfile generate end to end on {name}'s launch trace: {g.wall.median * 1e3:.0f} ms "
                   f"(median of {len(g.wall.samples)}), peak {g.peak_kib / 1024:.0f} MiB")
    if not res.generate:
        out.append("orderfile generate on the real programs: run with the programs section")
    return out


def render_markdown(res, report):
    rows = []
    for r in res.rows:
        ours, llvm = f"{r.orderfile_seconds:.3f} s", f"{r.llvm_seconds:.3f} s"
        if r.gated:
            ours += f" ({r.orderfile_per_second:,.0f}/s)"
            llvm += f" ({r.llvm_per_second:,.0f}/s)"
        rows.append([f"{r.addresses:,}", _mode(r), ours, llvm, f"{r.speedup:.2f}×",
                     f"{r.orderfile_peak_kib / 1024:.0f} / {r.llvm_peak_kib / 1024:.0f} MiB",
                     verdict(r.passed) if r.gated else ""])
    s, u = res.startup_seconds, res.per_address_microseconds
    body = [f"{report.provenance()} `{os.path.basename(res.binary)}` ({res.binary_bytes / 2**20:,.0f} MiB, "
            f"{res.function_addresses:,} function addresses), median of {res.runs} interleaved runs.", "",
            md.table(["addresses", "mode", "`orderfile symbolize`", "`llvm-symbolizer`", "speedup",
                      "peak memory (ours / llvm)", "verdict"], ["r", "l", "r", "r", "r", "r", "l"], rows), "",
            f"Names agree on {res.names_agree * 100:.1f}% of the addresses, file:line on "
            f"{res.lines_agree * 100:.1f}% of the {res.lines_compared:,} that `llvm-symbolizer` gives a line for. "
            f"Start-up, measured with one address: ours {s['orderfile names']:.3f} s "
            f"({s['orderfile lines']:.3f} s with the line tables), `llvm-symbolizer` {s['llvm names']:.3f} s "
            f"({s['llvm lines']:.3f} s). Each further address costs ours {u['orderfile names']:.1f} µs for a name "
            f"and {u['orderfile lines']:.1f} µs with file:line, `llvm-symbolizer` {u['llvm names']:.1f} µs and "
            f"{u['llvm lines']:.1f} µs. Against `llvm-symbolizer` reading the whole binary, names and lines "
            f"together (its only mode there), `orderfile symbolize` names only is "
            f"{res.context_llvm_full_vs_orderfile_names:.2f}× faster."]
    return {"symbolization": "\n".join(body)}


SECTION = Section(
    name="symbolization",
    help="orderfile symbolize versus llvm-symbolizer on 10k and 100k addresses of a large binary, names "
         "only and with file:line (goal: at least 5x the throughput at 100k)",
    result_type=SymbolizationResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)

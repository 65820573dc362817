"""What the whole `orderfile record` costs beside the plain launch it records: the plain launch,
then the record with an empty plan cache (a fresh ORDERFILE_CACHE_DIR every run) and with a warm
one, interleaved. Shared by the sections that measure it on a real program."""

import re
import shutil
import statistics
import tempfile
import os
from dataclasses import dataclass

from . import markdown as md
from .common import verdict
from .process import interleave, run_checked, timed_run

NAMES = {"plain": "plain launch", "first": "record, plan cache empty", "cached": "record, plan cache warm"}


@dataclass
class RecordRow:
    name: str            # one of NAMES' values
    command: str
    median_ms: float
    runs_ms: list[float]
    cpu_ms: float                    # median user + system time, the program's included
    planned_ms: float | None = None  # what record's summary line says it planned in (median)
    armed_ms: float | None = None
    peak_kib: int | None = None      # the largest peak RSS of the runs, when measured
    recorder: str | None = None      # "in-process" or "tracer", as record's summary says


def record_rows(plain, record, env, work, runs, what, shown_plain=None, peak=False):
    """The three rows, the medians of `runs` interleaved runs each, and the entries the cached
    record says it planned. `plain` and `record` are commands; `env` is the launch's environment;
    fresh caches go under `work`; `shown_plain` is how the plain command is written in the row.
    With peak, each run goes under GNU time for its peak memory."""
    cached = os.path.join(work, "cache-warm")
    run_checked(record, f"orderfile record (warming the plan cache, {what})",
                env=dict(env, ORDERFILE_CACHE_DIR=cached))
    summaries = {"first": [], "cached": []}

    def measure(name):
        if name == "plain":
            return timed_run(plain, env, peak=peak)
        cache = cached if name == "cached" else tempfile.mkdtemp(prefix="cache-", dir=work)
        timed = timed_run(record, dict(env, ORDERFILE_CACHE_DIR=cache), peak=peak)
        if name == "first":
            shutil.rmtree(cache, ignore_errors=True)
        summaries[name].append(timed.stdout + timed.stderr)
        return timed

    rounds = interleave(list(NAMES), runs, measure, what)
    commands = {"plain": shown_plain or " ".join(plain), "first": " ".join(record), "cached": " ".join(record)}
    rows = []
    for name in NAMES:
        said = summaries.get(name, [])
        peaks = [rd[name].peak_kib for rd in rounds if rd[name].peak_kib is not None]
        rows.append(RecordRow(name=NAMES[name], command=commands[name],
                              median_ms=statistics.median(rd[name].wall * 1e3 for rd in rounds),
                              runs_ms=[rd[name].wall * 1e3 for rd in rounds],
                              cpu_ms=statistics.median(rd[name].cpu * 1e3 for rd in rounds),
                              planned_ms=_said_median(said, r"planned in ([\d.]+) ms"),
                              armed_ms=_said_median(said, r"armed in ([\d.]+) ms"),
                              peak_kib=max(peaks) if peaks else None, recorder=_recorder(said)))
    entries = [int(m) for s in summaries["cached"] for m in re.findall(r"(\d+) entries planned", s)]
    return rows, (entries[0] if entries else 0)


def _said_median(summaries, pattern):
    figures = [float(m) for s in summaries for m in re.findall(pattern, s)]
    return statistics.median(figures) if figures else None


def _recorder(summaries):
    """Which recorder the runs used: the in-process one unless it is not installed."""
    if not summaries:
        return None
    return "in-process" if all("without a rebuild, in-process" in s for s in summaries) else "tracer"


def _recorders(rows):
    used = sorted({r.recorder for r in rows if r.recorder})
    return " and ".join(used) if used else None


def over_plain(rows):
    """The whole cached record's median over the plain launch's, in ms."""
    by_name = {r.name: r for r in rows}
    return by_name[NAMES["cached"]].median_ms - by_name[NAMES["plain"]].median_ms


def _with_peak(rows):
    return any(r.peak_kib is not None for r in rows)


def _ms(value):
    return f"{value:.1f}" if value is not None else ""


def render_rows_text(rows, goal_ms, passed):
    """The rows as the text report's lines, with the verdict against plain launch + goal_ms."""
    peak = _with_peak(rows)
    out = [f"record (median of {len(rows[0].runs_ms)} interleaved runs, wall):",
           f"  {'':<28} {'median':>9} {'CPU':>9} {'planned':>9} {'armed':>8}"
           + (f" {'peak MiB':>9}" if peak else "") + "  runs (ms)"]
    for r in rows:
        out.append(f"  {r.name:<28} {r.median_ms:>7.1f}ms {r.cpu_ms:>7.1f}ms {_ms(r.planned_ms):>9} "
                   f"{_ms(r.armed_ms):>8}" + (f" {(r.peak_kib or 0) / 1024:>9.0f}" if peak else "") + "  "
                   + " ".join(f"{w:.0f}" for w in r.runs_ms))
    out.append(f"  record, cached, over the plain launch: {over_plain(rows):+.1f} ms (goal +{goal_ms} ms): "
               f"{verdict(passed)}")
    if _recorders(rows):
        out.append(f"  recorder: {_recorders(rows)}")
    return out


def render_rows_markdown(rows, goal_ms, passed):
    """The rows as a Markdown table and the verdict's sentence."""
    peak = _with_peak(rows)
    cells = [[r.name, f"{r.median_ms:,.1f} ms", f"{r.cpu_ms:,.1f} ms",
              f"{r.planned_ms:.1f} ms" if r.planned_ms is not None else "",
              f"{r.armed_ms:.1f} ms" if r.armed_ms is not None else ""]
             + ([f"{r.peak_kib / 1024:,.0f} MiB" if r.peak_kib is not None else ""] if peak else []) for r in rows]
    return [md.table(["", "wall", "CPU", "planned", "armed"] + (["peak memory"] if peak else []),
                     ["l", "r", "r", "r", "r"] + (["r"] if peak else []), cells), "",
            f"The whole cached `record` over the plain launch: {over_plain(rows):+,.1f} ms (goal +{goal_ms} ms): "
            f"{verdict(passed)}." + (f" Recorder: {_recorders(rows)}." if _recorders(rows) else "")]

"""The command line of Scripts/bench: options, the run, the outputs."""

import json
import os
import shutil
import sys
import textwrap
import time
from dataclasses import dataclass, field

from . import markdown
from .common import (EXIT_DATA, EXIT_GOAL, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, BadInput, BenchError,
                     doc_files, note, progress_done)
from .context import Context
from .model import to_json
from .report import Report, load_report, render_text
from .sections import BY_NAME, SECTIONS

WORKLOAD_MODES = ("mixed", "wide")

HEADER = """\
bench - orderfile's benchmarks.

Usage:
  Scripts/bench [SECTION...] [options]

Sections (default: all of them, in this order):"""

FOOTER = """\
The real-program sections fetch sources with apt-get source (a temporary
deb-src entry in a private apt configuration, deleted afterwards), install
clang-22, lld-22, llvm-22 and libclang-rt-22-dev when missing (the arm64
section also qemu-user-static and the arm64 cross toolchain), and build the
orderfile tool with SwiftPM in .build-bench, its runtime and in-process
recorder beside it (or use --orderfile).

Options:
  --runs N          timed runs per variant (default 15), interleaved; the
                    programs' launch scenarios get 3N (at least 30)
  --workloads LIST  overhead workloads as MODE:THREADS, comma-separated
                    (default mixed:1,mixed:2,wide:1; modes: mixed, wide)
  --scale N         workload size passed to callheavy -s (default 40)
  --runtime-dir DIR use the libOrderfileRuntime.so in DIR instead of building it
  --orderfile PATH  use this orderfile tool instead of building it
  --source-cache DIR  where Debian sources are kept and reused
                    (default out/bench-sources; never committed)
  --symbolize-binary PATH  the large binary for the symbolization section
                    (default /opt/swift/usr/bin/swift-package)
  --scale-functions N  functions in the scale program (default 100000)
  --json            print the report as JSON instead of text
  --markdown        print the documentation's blocks (tables and their
                    figures) instead of text
  --save FILE       also write the JSON report to FILE
  --update-docs     write each section's figures into the file of Docs/ that
                    holds its <!-- bench:NAME --> and <!-- /bench:NAME -->
                    lines (most are in Docs/Performance.md)
  --doc FILE        a file --update-docs writes, instead of those in Docs/
                    (repeat it for several)
  --report FILE     render FILE, a report written by --save, instead of
                    measuring (SECTION names then pick sections from it)
  --check           exit 1 if a goal is missed (default: report it, exit 0)
  --keep            keep the scratch directory and print its path
  -h, --help        this text

stdout is the report; build commands and progress go to stderr. Timings on a
shared machine are noisy: the report quotes medians, and the overhead gate is
the median over rounds of the runtime/empty ratio within each round (the
variants of a round run back to back); workloads whose timings spread by more
than 5% are flagged noisy.

Exit status: 0 done (goals met, or missed without --check), 1 a goal missed
with --check, 64 usage error, 65 a --report or documentation file is malformed,
70 internal error (a build or a run failed)."""

USAGE = ("usage: Scripts/bench [" + "|".join(s.name for s in SECTIONS) + "]... [--runs N] "
         "[--workloads LIST] [--scale N] [--runtime-dir DIR] [--orderfile PATH] [--source-cache DIR] "
         "[--symbolize-binary PATH] [--scale-functions N] [--json | --markdown] [--save FILE] "
         "[--update-docs] [--doc FILE]... [--report FILE] [--check] [--keep]")


def help_text():
    lines = [HEADER]
    for s in SECTIONS:
        lines.append(textwrap.fill(s.help, width=78, break_on_hyphens=False, initial_indent=f"  {s.name:<16} ",
                                   subsequent_indent=" " * 19))
    return "\n".join(lines) + "\n\n" + FOOTER


@dataclass
class Options:
    sections: list[str] = field(default_factory=list)
    runs: int = 15
    workloads: list[tuple[str, int]] = field(default_factory=lambda: [("mixed", 1), ("mixed", 2), ("wide", 1)])
    scale: int = 40
    runtime_dir: str | None = None
    orderfile: str | None = None
    source_cache: str | None = None
    symbolize_binary: str | None = None
    scale_functions: int = 100_000
    save: str | None = None
    json: bool = False
    markdown: bool = False
    update_docs: bool = False
    docs: list[str] = field(default_factory=list)
    report: str | None = None
    check: bool = False
    keep: bool = False
    help: bool = False


class UsageError(Exception):
    pass


def _positive_int(flag, text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise UsageError(f"{flag} wants a positive integer, got '{text}'")
    return n


def _workload(flag, text):
    mode, _, threads = text.partition(":")
    if mode not in WORKLOAD_MODES:
        raise UsageError(f"{flag}: unknown mode '{mode}' (modes: {', '.join(WORKLOAD_MODES)})")
    return mode, _positive_int(flag, threads or "1")


def parse_args(argv):
    o = Options()
    it = iter(argv)

    def value(flag):
        v = next(it, None)
        if v is None:
            raise UsageError(f"{flag} needs a value")
        return v

    strings = {"--runtime-dir": "runtime_dir", "--orderfile": "orderfile", "--source-cache": "source_cache",
               "--symbolize-binary": "symbolize_binary", "--save": "save",
               "--report": "report"}
    numbers = {"--runs": "runs", "--scale": "scale", "--scale-functions": "scale_functions"}
    flags = {"--json": "json", "--markdown": "markdown", "--update-docs": "update_docs", "--check": "check",
             "--keep": "keep", "-h": "help", "--help": "help"}
    for a in it:
        if a in strings:
            setattr(o, strings[a], value(a))
        elif a == "--doc":
            o.docs.append(value(a))
        elif a in numbers:
            setattr(o, numbers[a], _positive_int(a, value(a)))
        elif a in flags:
            setattr(o, flags[a], True)
        elif a == "--workloads":
            o.workloads = [_workload(a, w) for w in value(a).split(",")]
        elif a.startswith("-"):
            raise UsageError(f"unknown option '{a}'")
        elif a in BY_NAME:
            o.sections.append(a)
        else:
            raise UsageError(f"unknown section '{a}' (sections: {', '.join(BY_NAME)})")
    if o.json and o.markdown:
        raise UsageError("--json and --markdown exclude each other")
    if o.docs and not o.update_docs:
        raise UsageError("--doc names a file --update-docs writes; add --update-docs")
    return o


# Options that only say where output goes or which local files to use, with the number of
# values each takes: a report's command (quoted in the documentation's blocks) leaves them out.
NOT_QUOTED = {"--save": 1, "--doc": 1, "--report": 1, "--orderfile": 1, "--runtime-dir": 1,
              "--source-cache": 1, "--json": 0, "--markdown": 0, "--update-docs": 0, "--check": 0, "--keep": 0}


def quoted_args(argv):
    """argv without the options of NOT_QUOTED: what decides which figures a run measures."""
    out, skip = [], 0
    for a in argv:
        if skip:
            skip -= 1
        elif a in NOT_QUOTED:
            skip = NOT_QUOTED[a]
        else:
            out.append(a)
    return out


def measure(options, argv):
    """Runs the chosen sections (all by default) and returns the Report."""
    ctx = Context(options, os.environ)
    try:
        sections = {}
        for name in options.sections or list(BY_NAME):
            sections[name] = BY_NAME[name].run(ctx)
        ctx.machine.loadavg_end = list(os.getloadavg())
        return Report(machine=ctx.machine, tools=ctx.tools, sections=sections, runtime=ctx.runtime_if_built(),
                      sources=ctx.sources_if_fetched(), date=time.strftime("%Y-%m-%d %H:%M %Z"),
                      passed=all(r.passed for r in sections.values()), command=quoted_args(argv))
    finally:
        if options.keep:
            note(f"scratch directory kept: {ctx.scratch}")
        else:
            shutil.rmtree(ctx.scratch, ignore_errors=True)


def read_report(options):
    path = options.report
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    except ValueError as e:
        raise BadInput(f"{path}: not JSON: {e}")
    report = load_report(data, BY_NAME, path)
    if options.sections:
        absent = [name for name in options.sections if name not in report.sections]
        if absent:
            raise BadInput(f"{path}: has no section '{absent[0]}' (it has: {', '.join(report.sections)})")
        report.sections = {name: report.sections[name] for name in options.sections}
        report.passed = all(r.passed for r in report.sections.values())
    return report


def markdown_blocks(report):
    blocks = {}
    for name, result in report.sections.items():
        blocks.update(BY_NAME[name].render_markdown(result, report))
    return {name: markdown.wrap_prose(body) for name, body in blocks.items()}


def write_json(path, report):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(to_json(report), f, indent=2)
    os.replace(tmp, path)


def main(argv):
    try:
        options = parse_args(argv)
    except UsageError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    if options.help:
        print(help_text())
        return EXIT_OK
    try:
        report = read_report(options) if options.report else measure(options, argv)
    except BenchError as e:
        progress_done()
        print(f"bench: error: {e}", file=sys.stderr)
        return EXIT_INTERNAL
    except BadInput as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return EXIT_DATA
    if options.save:
        write_json(options.save, report)
    if options.json:
        print(json.dumps(to_json(report), indent=2))
    elif options.markdown:
        print(markdown.render_blocks(markdown_blocks(report)))
    else:
        print(render_text(report, BY_NAME))
    if options.update_docs:
        paths = options.docs or doc_files()
        try:
            replaced, missing = markdown.update_files(paths, markdown_blocks(report))
        except BadInput as e:
            print(f"bench: error: {e}", file=sys.stderr)
            return EXIT_DATA
        for path, names in replaced.items():
            if names:
                note(f"updated {', '.join('bench:' + n for n in names)} in {path}")
        for name in missing:
            note(f"warning: no block bench:{name} in {', '.join(paths)} (add <!-- bench:{name} --> and "
                 f"<!-- /bench:{name} --> lines where its figures belong)")
    return EXIT_GOAL if options.check and not report.passed else EXIT_OK

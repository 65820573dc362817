"""What every part of the bench shares: paths, exit statuses, the error type, stderr output."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIME_SRC = os.path.join(ROOT, "Sources", "OrderfileRuntime")
TRACE_FORMAT_SRC = os.path.join(ROOT, "Sources", "OrderfileTraceFormat")
OVERHEAD_SRC = os.path.join(ROOT, "Benchmarks", "overhead")
PROGRAMS_SRC = os.path.join(ROOT, "Benchmarks", "programs")
SCALE_SRC = os.path.join(ROOT, "Benchmarks", "scale")
DOCS = os.path.join(ROOT, "Docs")


def doc_files():
    """The Markdown files of Docs/, where the blocks --update-docs writes live (each in the
    file whose subject it measures: most in Performance.md)."""
    return sorted(os.path.join(DOCS, name) for name in os.listdir(DOCS) if name.endswith(".md"))

EXIT_OK, EXIT_GOAL, EXIT_USAGE, EXIT_DATA, EXIT_INTERNAL = 0, 1, 64, 65, 70

# The overhead budget of the runtime against empty hooks, shared by the overhead and
# instrumentation sections.
OVERHEAD_GOAL = 1.10
# Interquartile range over median above which a variant's timings are flagged noisy.
NOISE_LIMIT = 0.05


class BenchError(Exception):
    """A build or a run failed; the message says which and why."""


class BadInput(Exception):
    """A file the bench was asked to read or update is malformed; the message names it."""


def note(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def _on_terminal():
    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"


def progress(msg):
    if _on_terminal():
        print(f"\r\033[K{msg}", end="", file=sys.stderr, flush=True)


def progress_done():
    if _on_terminal():
        print("\r\033[K", end="", file=sys.stderr, flush=True)


def verdict(passed):
    return "PASS" if passed else "FAIL"

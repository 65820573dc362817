"""The record rows: a fresh plan cache for every empty-cache run, the warmed one for the cached
runs, record's own figures read from what it prints, and peak memory from GNU time."""

import os
import shutil
import sys
import tempfile
import unittest

from orderfile_bench.process import GNU_TIME, timed_run
from orderfile_bench.recordcost import NAMES, RecordRow, over_plain, record_rows, render_rows_markdown, \
    render_rows_text

# A stand-in for `orderfile record`: plans slowly into an empty ORDERFILE_CACHE_DIR, fast from a
# warm one, and says so as the tool does.
FAKE_RECORD = """#!/bin/sh
if [ -e "$ORDERFILE_CACHE_DIR/plan" ]; then
  planned=2.0
else
  planned=50.0
  mkdir -p "$ORDERFILE_CACHE_DIR" && touch "$ORDERFILE_CACHE_DIR/plan"
fi
echo "recorded without a rebuild, in-process: 1234 entries planned in $planned ms, armed in 1.5 ms" >&2
"""


class RecordRowsTests(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="recordcost-")
        self.addCleanup(shutil.rmtree, self.work)
        self.record = os.path.join(self.work, "record")
        with open(self.record, "w") as f:
            f.write(FAKE_RECORD)
        os.chmod(self.record, 0o755)

    def test_empty_and_warm_caches_and_what_record_says(self):
        rows, entries = record_rows(["true"], [self.record], dict(os.environ), self.work, 3, "test")
        self.assertEqual([r.name for r in rows], list(NAMES.values()))
        plain, first, cached = rows
        self.assertEqual((first.planned_ms, cached.planned_ms), (50.0, 2.0))
        self.assertEqual((cached.armed_ms, plain.planned_ms, plain.peak_kib), (1.5, None, None))
        self.assertEqual(entries, 1234)
        self.assertEqual([r.recorder for r in rows], [None, "in-process", "in-process"])
        self.assertEqual([len(r.runs_ms) for r in rows], [3, 3, 3])
        # The empty caches are gone; only the warmed one is left.
        self.assertEqual(sorted(n for n in os.listdir(self.work) if n.startswith("cache")), ["cache-warm"])

    @unittest.skipUnless(os.access(GNU_TIME, os.X_OK), f"needs GNU time at {GNU_TIME} (Debian package time)")
    def test_peak_memory_is_the_commands_own(self):
        timed = timed_run([sys.executable, "-c", "b = bytearray(200 << 20); b[::4096] = b'x' * len(b[::4096])"],
                          dict(os.environ), peak=True)
        self.assertGreater(timed.peak_kib, 200 << 10)
        self.assertLess(timed.peak_kib, 400 << 10)
        self.assertGreater(timed.cpu, 0)
        rows, _ = record_rows(["true"], [self.record], dict(os.environ), self.work, 1, "test", peak=True)
        self.assertTrue(all(r.peak_kib and r.peak_kib < 100 << 10 for r in rows), rows)


def rows(peak=None):
    return [RecordRow(name=NAMES["plain"], command="p", median_ms=22.0, runs_ms=[22.0], cpu_ms=20.0, peak_kib=peak),
            RecordRow(name=NAMES["first"], command="r", median_ms=2000.0, runs_ms=[2000.0], cpu_ms=1900.0,
                      planned_ms=1500.0, armed_ms=15.0, peak_kib=peak),
            RecordRow(name=NAMES["cached"], command="r", median_ms=400.0, runs_ms=[400.0], cpu_ms=300.0,
                      planned_ms=100.0, armed_ms=15.0, peak_kib=peak)]


class RenderTests(unittest.TestCase):
    def test_verdict_and_the_peak_column_only_when_measured(self):
        self.assertEqual(over_plain(rows()), 378.0)
        text = "\n".join(render_rows_text(rows(), 300, False))
        self.assertIn("+378.0 ms (goal +300 ms): FAIL", text)
        self.assertNotIn("peak", text)
        tracer = rows()
        tracer[2].recorder = "tracer"
        self.assertIn("recorder: tracer", "\n".join(render_rows_text(tracer, 300, False)))
        block = "\n".join(render_rows_markdown(rows(300 << 10), 300, False))
        self.assertIn("| record, plan cache warm | 400.0 ms | 300.0 ms | 100.0 ms | 15.0 ms | 300 MiB |", block)


if __name__ == "__main__":
    unittest.main()

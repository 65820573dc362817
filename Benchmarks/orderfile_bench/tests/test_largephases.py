"""The largephases section's children: which programs a launch started by exec, timed from their
exec to their end, in the plain launch and in a recording."""

import os
import struct
import tempfile
import unittest

from orderfile_bench.launchprobe import exec_spans
from orderfile_bench.sections.inprocess import END_OFFSET
from orderfile_bench.sections.largephases import _child_spans, _children, _trace_end

# The bench (100) starts the recorder (150), which runs readelf (151) and then the program (200):
# clang, which starts -cc1 (201) and ld.lld (202). ld.lld's last thread (203) ends after its main
# thread. Process 300 is none of the bench's.
TRACE = """\
# tracer: nop
         python3-100     [000] ..... 1000.000100: sched_process_fork: comm=python3 pid=100 child_comm=python3 child_pid=150
       orderfile-150     [000] ..... 1000.000200: sched_process_exec: filename=/usr/bin/orderfile pid=150 old_pid=150
       orderfile-150     [000] ..... 1000.000300: sched_process_fork: comm=orderfile pid=150 child_comm=orderfile child_pid=151
         readelf-151     [001] ..... 1000.000400: sched_process_exec: filename=/usr/bin/readelf pid=151 old_pid=151
         readelf-151     [001] ..... 1000.000500: sched_process_exit: comm=readelf pid=151 prio=120 group_dead=true
       orderfile-150     [000] ..... 1000.000600: sched_process_fork: comm=orderfile pid=150 child_comm=orderfile child_pid=200
        clang-21-200     [000] ..... 1000.001000: sched_process_exec: filename=/usr/bin/clang-21 pid=200 old_pid=200
        clang-21-200     [000] ..... 1000.002000: sched_process_fork: comm=clang-21 pid=200 child_comm=clang-21 child_pid=201
        clang-21-201     [000] ..... 1000.002100: sched_process_exec: filename=/usr/bin/clang-21 pid=201 old_pid=201
           other-300     [001] ..... 1000.002200: sched_process_exec: filename=/usr/bin/other pid=300 old_pid=300
        clang-21-201     [000] ..... 1000.012100: sched_process_exit: comm=clang-21 pid=201 prio=120 group_dead=true
        clang-21-200     [000] ..... 1000.013000: sched_process_fork: comm=clang-21 pid=200 child_comm=clang-21 child_pid=202
          ld.lld-202     [000] ..... 1000.013100: sched_process_exec: filename=/usr/bin/ld.lld pid=202 old_pid=202
          ld.lld-202     [000] ..... 1000.014000: sched_process_fork: comm=ld.lld pid=202 child_comm=ld.lld child_pid=203
          ld.lld-202     [000] ..... 1000.018000: sched_process_exit: comm=ld.lld pid=202 prio=120 group_dead=false
          ld.lld-203     [001] ..... 1000.018100: sched_process_exit: comm=ld.lld pid=203 prio=120 group_dead=true
        clang-21-200     [000] ..... 1000.020000: sched_process_exit: comm=clang-21 pid=200 prio=120 group_dead=true
       orderfile-150     [000] ..... 1000.021000: sched_process_fork: comm=orderfile pid=150 child_comm=orderfile child_pid=152
             nm-152     [001] ..... 1000.021100: sched_process_exec: filename=/usr/bin/nm pid=152 old_pid=152
"""


class ExecSpansTests(unittest.TestCase):
    def test_every_exec_of_the_family_with_its_last_threads_exit(self):
        spans = exec_spans(TRACE, 100)
        self.assertEqual([(pid, path) for pid, path, _, _ in spans],
                         [(150, "/usr/bin/orderfile"), (151, "/usr/bin/readelf"), (200, "/usr/bin/clang-21"),
                          (201, "/usr/bin/clang-21"), (202, "/usr/bin/ld.lld"), (152, "/usr/bin/nm")])
        lld = next(span for span in spans if span[0] == 202)
        self.assertEqual(lld[2:], (1000_013_100_000, 1000_018_100_000))  # the worker's exit, not main's
        self.assertIsNone(spans[-1][3])  # nm's exit came after the events

    def test_children_are_the_programs_execs_while_it_ran(self):
        spans = exec_spans(TRACE, 100)
        plain = _children(spans, "/usr/bin/clang-21", lambda _, exit: exit)
        self.assertEqual(plain, [("clang-21", 10_000_000), ("ld.lld", 5_000_000)])
        ends = {201: 1000_011_000_000}  # -cc1's trace ended; ld.lld left none
        recorded = _children(spans, "/usr/bin/clang-21", lambda pid, _: ends.get(pid))
        self.assertEqual(recorded, [("clang-21", 8_900_000), ("ld.lld", None)])

    def test_the_timing_launchs_children(self):
        # The recorder runs the program again (pid 400) after the first launch ended: its own
        # -cc1 (401), whose file is the program's, is the second launch's child, not a third launch.
        second = TRACE + """\
       orderfile-150     [000] ..... 1000.030000: sched_process_fork: comm=orderfile pid=150 child_comm=orderfile child_pid=400
        clang-21-400     [000] ..... 1000.031000: sched_process_exec: filename=/usr/bin/clang-21 pid=400 old_pid=400
        clang-21-400     [000] ..... 1000.032000: sched_process_fork: comm=clang-21 pid=400 child_comm=clang-21 child_pid=401
        clang-21-401     [000] ..... 1000.032100: sched_process_exec: filename=/usr/bin/clang-21 pid=401 old_pid=401
        clang-21-401     [000] ..... 1000.039100: sched_process_exit: comm=clang-21 pid=401 prio=120 group_dead=true
        clang-21-400     [000] ..... 1000.040000: sched_process_exit: comm=clang-21 pid=400 prio=120 group_dead=true
"""
        spans = exec_spans(second, 100)
        exits = lambda _, exit: exit
        self.assertEqual(_children(spans, "/usr/bin/clang-21", exits, launch=1), [("clang-21", 7_000_000)])
        self.assertEqual(_children(spans, "/usr/bin/clang-21", exits), [("clang-21", 10_000_000), ("ld.lld", 5_000_000)])
        self.assertEqual(_children(spans, "/usr/bin/clang-21", exits, launch=2), [])

    def test_a_program_never_run_has_no_children(self):
        self.assertEqual(_children(exec_spans(TRACE, 100), "/usr/bin/swift-frontend", lambda _, e: e), [])


class ChildSpanTests(unittest.TestCase):
    def test_paired_medians_per_child(self):
        recorded = [[("clang-21", 12e6), ("ld.lld", 6e6)], [("clang-21", 11e6), ("ld.lld", None)],
                    [("clang-21", 15e6), ("ld.lld", 7e6)]]
        plain = [[("clang-21", 10e6), ("ld.lld", 5e6)], [("clang-21", 10e6), ("ld.lld", 5e6)],
                 [("clang-21", 11e6), ("ld.lld", 5.5e6)]]
        cc1, lld = _child_spans(recorded, plain)
        self.assertEqual((cc1.program, cc1.baseline_ms, cc1.recorder_ms, cc1.paired_ms), ("clang-21", 10, 12, 2))
        self.assertEqual((lld.program, lld.baseline_ms, lld.recorder_ms, lld.paired_ms), ("ld.lld", 5.25, 6.5, 1.25))

    def test_a_child_named_differently_in_some_round_is_left_out(self):
        self.assertEqual(_child_spans([[("a", 2e6)], [("b", 2e6)]], [[("a", 1e6)], [("b", 1e6)]]), [])


class TraceEndTests(unittest.TestCase):
    def _trace(self, path, end):
        with open(path, "wb") as f:
            f.write(bytes(END_OFFSET) + struct.pack("<Q", end))

    def test_the_last_image_of_the_process(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "t.trace")
            self._trace(f"{trace}.7", 100)
            self.assertEqual(_trace_end(trace, 7), 100)  # started by posix_spawn: its only image
            self._trace(f"{trace}.7.exec1", 200)
            self._trace(f"{trace}.7.exec10", 300)
            self._trace(f"{trace}.7.exec2", 250)
            self.assertEqual(_trace_end(trace, 7), 300)  # forked, then exec ten times
            self._trace(f"{trace}.8", 0)
            self.assertIsNone(_trace_end(trace, 8))  # never closed
            self.assertIsNone(_trace_end(trace, 9))  # no trace


if __name__ == "__main__":
    unittest.main()

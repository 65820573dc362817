"""The kernel-timed baseline of the inprocess section: reading tracefs's events, and holding
report's phases against the same spans of the baseline."""

import unittest

from orderfile_bench.launchprobe import _times
from orderfile_bench.sections.inprocess import _phase_checks

# A launch as tracefs prints it: the bench (pid 100) forks 200, which hits main and the first
# hook, starts a thread 201 and exits after it; another process (300) exits in between.
TRACE = """\
# tracer: nop
         python3-100     [000] ..... 1000.000100: sched_process_fork: comm=python3 pid=100 child_comm=python3 child_pid=200
       launchpad-200     [000] DBZff 1000.001000: p1: (0x55d9f43dfab0)
       launchpad-200     [000] DBZff 1000.001600: p0: (0x55d9f43dfab0)
       launchpad-200     [000] DBZff 1000.001700: p0: (0x55d9f43dfab0)
       launchpad-200     [000] ..... 1000.002000: sched_process_fork: comm=launchpad pid=200 child_comm=launchpad child_pid=201
           other-300     [001] ..... 1000.009000: sched_process_exit: comm=other pid=300 prio=120 group_dead=true
          warm-0-201     [000] ..... 1000.004000: sched_process_exit: comm=warm-0 pid=201 prio=120 group_dead=false
       launchpad-200     [000] ..... 1000.005100: sched_process_exit: comm=launchpad pid=200 prio=120 group_dead=true
"""


def _report(first_hook, main, end):
    return {"boundaries": [{"kind": "processStart", "timeNanoseconds": 0},
                           {"kind": "firstHook", "timeNanoseconds": first_hook},
                           {"kind": "main", "timeNanoseconds": main},
                           {"kind": "exit", "timeNanoseconds": end}],
            "phases": [{"name": "process start → first hook", "startNanoseconds": 0, "endNanoseconds": first_hook},
                       {"name": "first hook → main", "startNanoseconds": first_hook, "endNanoseconds": main},
                       {"name": "main → exit", "startNanoseconds": main, "endNanoseconds": end}],
            "preMain": {"mainNanoseconds": main}}


class KernelTimesTests(unittest.TestCase):
    def test_times_from_the_fork_of_the_child(self):
        times = _times(TRACE, 100, {"main": "p0", "_init (lib.so)": "p1"})
        self.assertEqual(times, {"_init (lib.so)": 900_000, "main": 1_500_000, "exit": 5_000_000})

    def test_other_processes_and_later_hits_do_not_count(self):
        # Process 300 exits last but is none of the bench's; main's second hit is not its entry.
        times = _times(TRACE, 100, {"main": "p0"})
        self.assertEqual(times["exit"], 5_000_000)
        self.assertEqual(times["main"], 1_500_000)

    def test_no_fork_of_the_bench_means_no_times(self):
        self.assertEqual(_times(TRACE, 999, {"main": "p0"}), {})


class PhaseCheckTests(unittest.TestCase):
    def test_each_span_against_the_baseline(self):
        baseline = [{"_init": 1_000_000, "main": 1_500_000, "exit": 5_000_000}]
        # In-process: close to the baseline. Tracer: main 3 ms late (over 1 ms and 10%).
        reports = {"in-process": [_report(1_100_000, 1_600_000, 5_200_000)],
                   "tracer": [_report(1_000_000, 4_500_000, 8_000_000)]}
        checks = {c.phase: c for c in _phase_checks(reports, baseline, {"in-process": "_init", "tracer": "_init"})}
        self.assertEqual(list(checks), ["process start → first hook", "first hook → main", "main → exit",
                                        "before main"])
        self.assertAlmostEqual(checks["before main"].baseline_ms["tracer"], 1.5)
        self.assertAlmostEqual(checks["before main"].recorder_ms["tracer"], 4.5)
        self.assertEqual(checks["before main"].met, {"in-process": True, "tracer": False})
        self.assertAlmostEqual(checks["first hook → main"].baseline_ms["in-process"], 0.5)
        self.assertEqual(checks["main → exit"].met, {"in-process": True, "tracer": True})

    def test_ten_percent_above_the_floor(self):
        # A 20 ms launch: 1.5 ms off is within 10% (2 ms); 2.5 ms is not.
        baseline = [{"_init": 1_000_000, "main": 2_000_000, "exit": 22_000_000}]
        reports = {"in-process": [_report(1_000_000, 2_000_000, 23_500_000)],
                   "tracer": [_report(1_000_000, 2_000_000, 24_500_000)]}
        checks = {c.phase: c for c in _phase_checks(reports, baseline, {"in-process": "_init", "tracer": "_init"})}
        self.assertEqual(checks["main → exit"].met, {"in-process": True, "tracer": False})

    def test_a_first_hook_the_baseline_did_not_see_is_not_met(self):
        baseline = [{"main": 1_500_000, "exit": 5_000_000}]
        reports = {"in-process": [_report(1_000_000, 1_500_000, 5_000_000)], "tracer": []}
        checks = {c.phase: c for c in _phase_checks(reports, baseline, {"in-process": "_init"})}
        self.assertIsNone(checks["process start → first hook"].baseline_ms["in-process"])
        self.assertFalse(checks["process start → first hook"].met["in-process"])
        self.assertTrue(checks["before main"].met["in-process"])


if __name__ == "__main__":
    unittest.main()

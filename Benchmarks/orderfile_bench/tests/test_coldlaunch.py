"""The coldlaunch section's goals and its report without a loop device."""

import unittest

from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.coldlaunch import (GOAL, ColdFigures, ColdLaunchResult, LayoutResult, judge,
                                                 render_text)


def layout(pages_4k, pages_16k, faults, median_ms):
    return LayoutResult(pages_4k=pages_4k, pages_16k=pages_16k, probe_pages_4k=pages_4k, probe_pages_16k=pages_16k,
                        file_bytes=1, cold=ColdFigures(median_ms=median_ms, min_ms=median_ms, max_ms=median_ms,
                                                       major_faults=faults, samples_ms=[median_ms]))


BOUND = {"4096": 16, "16384": 5}


class JudgeTests(unittest.TestCase):
    def test_orderfile_and_bolt_best_everywhere_passes(self):
        results = {"default": layout(36, 12, 20, 9.0), "bolt": layout(13, 4, 9, 5.0),
                   "orderfile+bolt": layout(12, 3, 8, 4.5)}
        checks = judge(results, BOUND, pages_goal=True)
        self.assertTrue(checks.below_whole_function_bound)
        self.assertTrue(checks.below_bolt_alone)
        self.assertTrue(checks.fewest_major_faults)
        self.assertTrue(checks.lowest_median_time)

    def test_equal_pages_to_bolt_alone_fail_and_slower_time_fails(self):
        results = {"bolt": layout(12, 3, 8, 4.0), "orderfile+bolt": layout(12, 3, 8, 4.5)}
        checks = judge(results, BOUND, pages_goal=True)
        self.assertFalse(checks.below_bolt_alone)
        self.assertTrue(checks.fewest_major_faults)  # a tie is not beaten
        self.assertFalse(checks.lowest_median_time)

    def test_at_the_bound_is_not_below_it(self):
        results = {"bolt": layout(20, 6, 8, 5.0), "orderfile+bolt": layout(16, 4, 8, 4.0)}
        self.assertFalse(judge(results, BOUND, pages_goal=True).below_whole_function_bound)

    def test_no_pages_goal_for_the_example(self):
        results = {"bolt": layout(1, 1, 3, 5.0), "orderfile+bolt": layout(1, 1, 2, 4.0)}
        checks = judge(results, BOUND, pages_goal=False)
        self.assertIsNone(checks.below_whole_function_bound)
        self.assertIsNone(checks.below_bolt_alone)


class SkippedReportTests(unittest.TestCase):
    def test_skipped_says_why_and_round_trips(self):
        result = ColdLaunchResult(goal=GOAL, skipped="needs root and loop devices (not root)", runs=20,
                                  read_ahead_kb=16, compile="", programs=[], passed=True)
        self.assertIn("skipped: needs root and loop devices (not root)", render_text(result))
        self.assertEqual(from_json(ColdLaunchResult, to_json(result)), result)


if __name__ == "__main__":
    unittest.main()

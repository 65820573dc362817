"""The measured section: its tolerance, its JSON round trip, and what its tables flag."""

import unittest

from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.measured import (Cold, Layout, MeasuredResult, Program, _rows, bound_limit, goals,
                                               render_markdown, render_text, tolerance)


def _program(measured_4k, warnings=0):
    default = Layout("default", {"4096": 100, "16384": 30}, {"4096": measured_4k, "16384": 30},
                     {"4096": 40, "16384": 10}, None, passed=abs(100 - measured_4k) <= tolerance(measured_4k))
    ordered = Layout("ordered", {"4096": 45, "16384": 12}, {"4096": 45, "16384": 12}, {"4096": 40, "16384": 10},
                     {"4096": 44, "16384": 12}, passed=True)
    return Program("ninja", "g++", "ninja -n", 300, warnings, ["ld.lld: warning: x"] * warnings,
                   [default, ordered], passed=default.passed and warnings == 0)


class MeasuredTests(unittest.TestCase):
    def test_tolerance_is_three_pages_or_three_percent(self):
        self.assertEqual(tolerance(10), 3)
        self.assertEqual(tolerance(100), 3)
        self.assertEqual(tolerance(200), 6)
        self.assertEqual(tolerance(101), 4)  # rounded up: 3.03 pages

    def test_round_trip(self):
        program = _program(98)
        program.cold = {"default": Cold(12.5, 40), "ordered": Cold(9.25, 31)}
        result = MeasuredResult(goal="g", programs=[program, _program(100)], skipped=["x"], passed=True)
        self.assertEqual(from_json(MeasuredResult, to_json(result)), result)

    def test_cold_launches_get_their_table(self):
        program = _program(98)
        program.cold = {"default": Cold(12.5, 40), "ordered": Cold(9.25, 31)}

        class Report:
            def provenance(self):
                return "run"
        block = render_markdown(MeasuredResult(goal="g", programs=[program], skipped=[], passed=True), Report())
        self.assertIn("| ninja, g++ | ordered | 9.25 ms | 31 |", block["measured"])

    def test_a_miss_is_flagged_in_the_rows(self):
        rows = _rows(MeasuredResult(goal="g", programs=[_program(90)], skipped=[], passed=False))
        default_4k = rows[0]
        self.assertEqual(default_4k[1:4], ["default", "4 KiB", "100"])
        self.assertEqual(default_4k[-1], "NO")
        self.assertEqual(rows[2][-1], "yes")  # ordered, 4 KiB: 45 against 45

    def test_warnings_fail_the_program_and_are_shown(self):
        text = "\n".join(render_text(MeasuredResult(goal="g", programs=[_program(100, warnings=1)], skipped=[],
                                                    passed=False)))
        self.assertIn("ld.lld: warning: x", text)
        self.assertIn("FAIL", text)

    def test_bound_limit_is_five_pages_plus_ten_percent(self):
        self.assertEqual(bound_limit(0), 5)
        self.assertEqual(bound_limit(10), 16)
        self.assertEqual(bound_limit(29), 37)  # 10% rounded up: 2.9 -> 3

    def _with_script_layout(self, measured_4k, warnings):
        program = _program(100)
        program.layouts.append(Layout("ordered (lld-script)", {"4096": 41, "16384": 11},
                                      {"4096": measured_4k, "16384": 11}, {"4096": 40, "16384": 10},
                                      {"4096": 44, "16384": 12}, passed=True, entries=320, lld_warnings=warnings))
        return MeasuredResult(goal="g", programs=[program], skipped=[], passed=False)

    def test_each_ordered_layout_shows_its_own_warnings(self):
        rows = _rows(self._with_script_layout(41, 2))
        self.assertEqual([(r[1], r[7]) for r in rows[::2]],
                         [("default", ""), ("ordered", "0"), ("ordered (lld-script)", "2")])
        self.assertEqual(from_json(MeasuredResult, to_json(self._with_script_layout(41, 2))),
                         self._with_script_layout(41, 2))

    def test_goals_say_met_or_missed_with_the_figures(self):
        met = goals(self._with_script_layout(41, 0))
        self.assertEqual(len(met), 4)
        self.assertIn("met on all 6 rows", met[0])
        self.assertIn("met on all 4 rows", met[2])
        self.assertIn("met on all 2 relinks", met[3])
        missed = goals(self._with_script_layout(60, 2))
        self.assertIn("missed on 1 of 6 rows: ninja, g++, ordered (lld-script), 4 KiB: estimate 41, measured 60",
                      missed[0])
        self.assertIn("measured 60, at most 49 (lower bound 40)", missed[2])
        self.assertIn("missed on 1 of 2 relinks: ninja, g++, ordered (lld-script): 2 warnings", missed[3])
        self.assertIn("- " + missed[2], render_markdown(self._with_script_layout(60, 2), _Report())["measured"])


class _Report:
    def provenance(self):
        return "run"


if __name__ == "__main__":
    unittest.main()

"""The arm64 section's goals and its report read back (--report) with a mode that did not run."""

import json
import unittest

from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.arm64 import NO_EMULATOR, Arm64Mode, Arm64Program, Arm64Result, _passes, render_text


def mode(pages16=5, bound16=5, tau=1.0, warnings=0, verified=True):
    return Arm64Mode(mode="instrumented", not_run=None, passed=True, runs=3, runs_tau=1.0, entries=10,
                     match_rate=1.0, pages={"4096": 18, "16384": pages16, "65536": 2},
                     bound={"4096": 17, "16384": bound16, "65536": 2}, measured={"4096": None, "16384": 6, "65536": 3},
                     lld_warnings=warnings, verified=verified, x86_tau=tau, shared=10)


class Arm64GoalTests(unittest.TestCase):
    def test_one_page_more_than_x86_64_from_the_bound_is_met_two_is_missed(self):
        self.assertTrue(_passes(mode(pages16=6), x86_distance=0))
        self.assertFalse(_passes(mode(pages16=7), x86_distance=0))

    def test_tau_warnings_and_verify_are_goals(self):
        self.assertFalse(_passes(mode(tau=0.98), x86_distance=0))
        self.assertFalse(_passes(mode(warnings=1), x86_distance=0))
        self.assertFalse(_passes(mode(verified=False), x86_distance=0))

    def test_a_saved_report_reads_back_with_its_mode_not_run(self):
        program = Arm64Program(program="lua", command="lua -e ''", compile="clang", default_pages={
            "4096": 41, "16384": 13, "65536": 4}, default_measured={}, x86_pages={"4096": 19, "16384": 6, "65536": 2},
            x86_bound={"4096": 18, "16384": 5, "65536": 2}, x86_entries=10,
            modes=[mode(), Arm64Mode(mode="in-process", not_run=NO_EMULATOR, passed=True)], passed=True)
        result = Arm64Result(goal="g", emulator="qemu", probe="the probe", programs=[program], passed=True)
        again = from_json(Arm64Result, json.loads(json.dumps(to_json(result))))
        self.assertEqual(again, result)
        text = "\n".join(render_text(again))
        self.assertIn(f"in-process: {NO_EMULATOR}", text)
        self.assertIn("probe -", text)  # no 4 KiB count where the probe's page is larger


if __name__ == "__main__":
    unittest.main()

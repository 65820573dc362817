"""The largeprogram section's report: the record rows beside the command rows, and its verdicts."""

import unittest

from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.largeprogram import CommandRow, LargeProgramResult, render_markdown, render_text
from orderfile_bench.tests.test_recordcost import rows as record_rows


class Report:
    def provenance(self):
        return "Run of today."


def result():
    commands = [CommandRow(command="generate", seconds=0.6, peak_kib=170 << 10, passed=True),
                CommandRow(command="diff", seconds=1.1, peak_kib=200 << 10, passed=False)]
    return LargeProgramResult(goal="g", program="/opt/swift/usr/bin/swift-frontend", program_bytes=200 << 20,
                              functions=246022, launch_functions=4960, runs=3,
                              commands={"generate": "orderfile generate", "diff": "orderfile diff"}, rows=commands,
                              records=record_rows(peak=150 << 10), record_passed=False, passed=False)


class ReportTests(unittest.TestCase):
    def test_round_trip_text_and_markdown(self):
        res = result()
        self.assertEqual(from_json(LargeProgramResult, to_json(res)), res)
        text = "\n".join(render_text(res))
        self.assertIn("record, plan cache empty", text)
        self.assertIn("+378.0 ms (goal +300 ms): FAIL", text)
        self.assertIn("diff         1100ms       200  FAIL", text)
        block = render_markdown(res, Report())["largeprogram"]
        self.assertIn("| plain launch | 22.0 ms | 20.0 ms | | | 150 MiB |", block)
        self.assertIn("The whole cached `record` over the plain launch: +378.0 ms (goal +300 ms): FAIL.", block)
        self.assertIn("| `orderfile diff` | 1,100 ms | 200 MiB | FAIL |", block)


if __name__ == "__main__":
    unittest.main()

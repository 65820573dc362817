"""The swiftserver section: the build lines read from what `flags` prints, and its report."""

import unittest

from orderfile_bench.common import BenchError
from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.swiftserver import (ColdLayout, RecordRow, SwiftServerResult, _added,
                                                  _swift_build_flags, _with_ordering_only, cold_columns,
                                                  render_markdown, render_text)

RELEASE = """# The release build, recorded as it is (orderfile record -- ./app):
swift build -c release -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \\
  -Xswiftc -use-ld=lld -Xlinker --build-id
"""
ORDERED = """# The release build with the order applied:
swift build -c release -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld -Xlinker --build-id -Xlinker --symbol-ordering-file=/w/launch.order -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --hash-style=gnu
# Loader options (cut what the loader reads at launch):
#   relr: -Wl,-z,pack-relative-relocs
"""


class FlagsTests(unittest.TestCase):
    def test_the_printed_lines_flags_and_what_the_ordered_one_adds(self):
        release = _swift_build_flags(RELEASE)
        self.assertEqual(release, ["-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections", "-Xcc",
                                   "-ffunction-sections", "-Xswiftc", "-use-ld=lld", "-Xlinker", "--build-id"])
        added = _added(_swift_build_flags(ORDERED), release)
        self.assertEqual(added, ["-Xlinker", "--symbol-ordering-file=/w/launch.order", "-Xlinker", "-z", "-Xlinker",
                                 "pack-relative-relocs", "-Xlinker", "--hash-style=gnu"])
        self.assertEqual(_with_ordering_only(added, "/w/launch.order"),
                         ["-Xlinker", "--symbol-ordering-file=/w/launch.order"])

    def test_no_build_line_an_ordered_line_of_another_build_or_no_ordering_flag_is_an_error(self):
        with self.assertRaises(BenchError):
            _swift_build_flags("# nothing here\n")
        with self.assertRaises(BenchError):
            _added(["-Xlinker", "--symbol-ordering-file=x"], ["-Xswiftc", "-O"])
        with self.assertRaises(BenchError):
            _with_ordering_only(["-Xlinker", "--hash-style=gnu"], "/w/launch.order")


def result():
    records = [RecordRow(name="plain launch", command="Server", median_ms=20.0, runs_ms=[19.0, 20.0, 21.0], cpu_ms=15.0),
               RecordRow(name="record, plan cache empty", command="orderfile record", median_ms=900.0,
                         runs_ms=[880.0, 900.0, 950.0], cpu_ms=800.0, planned_ms=700.0, armed_ms=9.0),
               RecordRow(name="record, plan cache warm", command="orderfile record", median_ms=110.0,
                         runs_ms=[100.0, 110.0, 120.0], cpu_ms=60.0, planned_ms=30.0, armed_ms=9.0)]
    cold = [ColdLayout(name="default", link_flags=[], majors=250, runs=[250, 250, 251],
                       by_section={".text": 195, ".rela.dyn": 13, ".eh_frame_hdr": 7}, by_kind={"code": 195}),
            ColdLayout(name="lld-script + what flags --release prints for it", link_flags=["-Xlinker", "-z"], majors=60,
                       runs=[60, 60, 60], by_section={".text": 16, ".eh_frame_hdr": 7, "swift5_typeref": 8},
                       by_kind={"code": 16}),
            ColdLayout(name="lld-script from record --data + what flags --release prints", link_flags=["-Xlinker", "-z"],
                       majors=43, runs=[43, 43, 43], by_section={".text": 13, ".eh_frame_hdr": 2, "swift5_typeref": 1},
                       by_kind={"code": 13})]
    return SwiftServerResult(goal="g", package="/tmp/swiftserver", build="swift build", binary_bytes=40 << 20,
                             map_bytes=27 << 20, functions=46619, launch_functions=5000, records=records, cold=cold,
                             cold_skipped=None, read_ahead_kb=16, record_passed=True, cold_passed=False,
                             passed=False)


class Report:
    def provenance(self):
        return "Run of today."


class ReportTests(unittest.TestCase):
    def test_round_trip_text_and_markdown(self):
        res = result()
        self.assertEqual(from_json(SwiftServerResult, to_json(res)), res)
        self.assertEqual(cold_columns(res.cold), [".text", ".rela.dyn", "swift5_typeref", ".eh_frame_hdr"])
        text = "\n".join(render_text(res))
        self.assertIn("+90.0 ms (goal +100 ms): PASS", text)
        self.assertIn("goal (at most 45 by the README's flow: lld-script from record --data + what flags --release prints): FAIL",
                      text)
        block = render_markdown(res, Report())["swiftserver"]
        self.assertIn("| lld-script + what flags --release prints for it | 60 | 16 |", block)
        self.assertIn("| lld-script from record --data + what flags --release prints | **43** | 13 |", block)

    def test_skipped_cold_part_says_why(self):
        res = result()
        res.cold, res.cold_skipped, res.cold_passed = [], "needs root (perf trace, loop devices)", None
        self.assertIn("cold majors: skipped: needs root", "\n".join(render_text(res)))
        self.assertIn("Cold launches skipped", render_markdown(res, Report())["swiftserver"])


if __name__ == "__main__":
    unittest.main()

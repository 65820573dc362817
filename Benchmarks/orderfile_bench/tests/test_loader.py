"""The loader section: perf trace's major-fault lines mapped to sections, and its report."""

import copy
import unittest

from orderfile_bench.common import BenchError
from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.loader import (GOAL, LoaderProgram, LoaderResult, Step, columns, referee_counts,
                                             render_text)

REFEREE = {"coldLaunch": {"method": "perf", "modules": [
    {"path": "/mnt/lua", "residentBefore": 0,
     "kinds": [{"kind": "code", "count": {"pagesRead": 9, "majorFaults": 2}},
               {"kind": "relocations", "count": {"pagesRead": 4, "majorFaults": 1}}],
     "sections": [{"name": ".text", "kind": "code", "count": {"pagesRead": 9, "majorFaults": 2}},
                  {"name": ".rela.dyn", "kind": "relocations", "count": {"pagesRead": 4, "majorFaults": 1}},
                  {"name": ".rodata", "kind": "readOnlyData", "count": {"pagesRead": 3, "majorFaults": 0}}]},
    {"path": "/usr/lib/libc.so.6", "residentBefore": 0, "kinds": [], "sections": []}]}}


class RefereeCountsTests(unittest.TestCase):
    def test_the_files_majors_by_section_and_kind_without_sections_read_ahead_only(self):
        by_section, by_kind = referee_counts(REFEREE, "/mnt/lua")
        self.assertEqual(by_section, {".text": 2, ".rela.dyn": 1})
        self.assertEqual(by_kind, {"code": 2, "relocations": 1})

    def test_a_file_the_referee_did_not_count_or_a_warm_one_or_no_perf_is_an_error(self):
        with self.assertRaises(BenchError):
            referee_counts(REFEREE, "/mnt/lu")
        warm = copy.deepcopy(REFEREE)
        warm["coldLaunch"]["modules"][0]["residentBefore"] = 3
        with self.assertRaises(BenchError):
            referee_counts(warm, "/mnt/lua")
        pages = copy.deepcopy(REFEREE)
        pages["coldLaunch"]["method"] = "page-cache"
        with self.assertRaises(BenchError):
            referee_counts(pages, "/mnt/lua")


def step(name, majors, by_section):
    return Step(name=name, label=name, flags=[], majors=majors, by_section=by_section, file_bytes=1024,
                by_kind={"code": by_section.get(".text", 0)})


class ReportTests(unittest.TestCase):
    def test_round_trip_and_text(self):
        program = LoaderProgram(program="sqlite3", launch="sqlite3 :memory: 'select 1'",
                                flags_release=["-fuse-ld=lld", "-Wl,-z,pack-relative-relocs"],
                                steps=[step("default", 70, {".text": 58, ".rela.dyn": 3}),
                                       step("orderfile", 30, {".text": 18, ".rela.dyn": 3, ".rodata": 6}),
                                       step("flags", 28, {".text": 18, ".rodata": 7})], passed=True)
        result = LoaderResult(goal=GOAL, skipped=None, runs=3, read_ahead_kb=16, programs=[program], passed=True)
        self.assertEqual(from_json(LoaderResult, to_json(result)), result)
        self.assertEqual(columns(program), [".text", ".rodata", ".rela.dyn"])
        text = "\n".join(render_text(result))
        self.assertIn("-2", text)
        self.assertIn("goal: PASS", text)


if __name__ == "__main__":
    unittest.main()

"""The loader section: perf trace's major-fault lines mapped to sections, and its report."""

import unittest

from orderfile_bench.model import from_json, to_json
from orderfile_bench.sections.loader import (GOAL, KERNEL_LOAD, OUTSIDE, LoaderProgram, LoaderResult, Step,
                                             columns, majors_by_section, render_text)

SECTIONS = [(0x0, 0x40, ".note"), (0x1140, 0x2e20, ".rela.dyn"), (0x11000, 0x30000, ".text"),
            (0x43f28, 0x18, ".data")]
TRACE = """\
     0.000 ( 0.000 ms): lua/1 majfault [elf_load+0x28a] => 0x562ba8f93f28 (?k)
     8.433 ( 0.000 ms): lua/1 majfault [_start+0x0] => /mnt/lua@0x11fe0 (d.)
     8.544 ( 0.000 ms): lua/1 majfault [main+0x0] => /mnt/lua@0x38ec0 (d.)
     9.000 ( 0.000 ms): lua/1 majfault [_dl_relocate_object+0x10] => /mnt/lua@0x2000 (d.)
     9.100 ( 0.000 ms): lua/1 majfault [memcpy+0x0] => /usr/lib/libc.so.6@0x1000 (x.)
     9.200 ( 0.000 ms): lua/1 majfault [foo+0x0] => /mnt/lua@0x10000 (d.)
     9.300 ( 0.000 ms): lua/1 minfault [foo+0x0] => /mnt/lua@0x11000 (d.)
"""


class MajorsBySectionTests(unittest.TestCase):
    def test_faults_in_the_file_map_to_sections_others_are_left_out(self):
        counts = majors_by_section(TRACE, "/mnt/lua", SECTIONS)
        self.assertEqual(counts, {".text": 2, ".rela.dyn": 1, KERNEL_LOAD: 1, OUTSIDE: 1})

    def test_a_path_that_prefixes_another_is_matched_whole(self):
        self.assertEqual(majors_by_section(TRACE, "/mnt/lu", SECTIONS), {KERNEL_LOAD: 1})


def step(name, majors, by_section):
    return Step(name=name, label=name, flags=[], majors=majors, by_section=by_section, file_bytes=1024)


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

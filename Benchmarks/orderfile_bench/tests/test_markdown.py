"""The README exporter: blocks between markers are replaced, everything else kept."""

import os
import tempfile
import unittest

from orderfile_bench import markdown
from orderfile_bench.common import BadInput

README = """# Title

Prose before.

<!-- bench:alpha -->
old alpha
<!-- /bench:alpha -->

Prose between.
<!-- bench:beta -->
<!-- /bench:beta -->
Prose after.
"""


class ReplaceBlocksTests(unittest.TestCase):
    def test_replaces_only_the_named_blocks(self):
        text, replaced, missing = markdown.replace_blocks(README, {"alpha": "new\nalpha\n"}, "README.md")
        self.assertEqual(replaced, ["alpha"])
        self.assertEqual(missing, [])
        self.assertIn("<!-- bench:alpha -->\nnew\nalpha\n<!-- /bench:alpha -->", text)
        self.assertNotIn("old alpha", text)
        self.assertIn("Prose before.", text)
        self.assertIn("<!-- bench:beta -->\n<!-- /bench:beta -->", text)

    def test_fills_an_empty_block_and_is_idempotent(self):
        once, _, _ = markdown.replace_blocks(README, {"beta": "| a |"}, "README.md")
        twice, _, _ = markdown.replace_blocks(once, {"beta": "| a |"}, "README.md")
        self.assertEqual(once, twice)
        self.assertIn("<!-- bench:beta -->\n| a |\n<!-- /bench:beta -->\nProse after.", once)

    def test_reports_blocks_the_file_lacks(self):
        _, replaced, missing = markdown.replace_blocks(README, {"gamma": "x"}, "README.md")
        self.assertEqual((replaced, missing), ([], ["gamma"]))

    def test_an_unclosed_block_is_an_error_naming_file_and_line(self):
        with self.assertRaisesRegex(BadInput, r"^README.md:2: block 'bench:alpha' is never closed$"):
            markdown.replace_blocks("x\n<!-- bench:alpha -->\ny\n", {"alpha": "z"}, "README.md")

    def test_a_stray_end_marker_is_an_error(self):
        with self.assertRaisesRegex(BadInput, r"^R.md:1: '/bench:alpha' closes a block that is not open$"):
            markdown.replace_blocks("<!-- /bench:alpha -->\n", {}, "R.md")

    def test_a_block_twice_is_an_error(self):
        text = "<!-- bench:a -->\n<!-- /bench:a -->\n<!-- bench:a -->\n<!-- /bench:a -->\n"
        with self.assertRaisesRegex(BadInput, r"R.md:3: block 'bench:a' appears twice"):
            markdown.replace_blocks(text, {"a": "x"}, "R.md")

    def test_update_file_rewrites_in_place(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "README.md")
            with open(path, "w") as f:
                f.write(README)
            replaced, _ = markdown.update_file(path, {"alpha": "fresh"})
            with open(path) as f:
                self.assertIn("<!-- bench:alpha -->\nfresh\n<!-- /bench:alpha -->", f.read())
            self.assertEqual(replaced, ["alpha"])
            self.assertEqual(os.listdir(d), ["README.md"])

    def test_a_demo_block_is_replaced_and_bench_blocks_are_left_alone(self):
        text = README + "<!-- demo:alpha -->\nold demo\n<!-- /demo:alpha -->\n"
        new, replaced, missing = markdown.replace_blocks(text, {"alpha": "fresh"}, "R.md", kind="demo")
        self.assertEqual((replaced, missing), (["alpha"], []))
        self.assertIn("<!-- demo:alpha -->\nfresh\n<!-- /demo:alpha -->", new)
        self.assertIn("<!-- bench:alpha -->\nold alpha\n<!-- /bench:alpha -->", new)

    def test_require_all_names_the_missing_block_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "README.md")
            with open(path, "w") as f:
                f.write(README)
            with self.assertRaisesRegex(BadInput, r"README.md has no <!-- demo:alpha --> block$"):
                markdown.update_file(path, {"alpha": "fresh"}, kind="demo", require_all=True)
            with open(path) as f:
                self.assertEqual(f.read(), README)
            self.assertEqual(os.listdir(d), ["README.md"])


class WrapTests(unittest.TestCase):
    def test_wraps_prose_but_not_table_rows(self):
        row = "| " + " | ".join(["cell"] * 30) + " |"
        text = markdown.wrap_prose(("word " * 30).strip() + "\n\n" + row, width=20)
        lines = text.split("\n")
        self.assertTrue(all(len(line) <= 20 for line in lines[:-1]), lines)
        self.assertEqual(lines[-1], row)
        self.assertEqual(" ".join(lines[:-2]), ("word " * 30).strip())


class TableTests(unittest.TestCase):
    def test_aligns_columns_and_escapes_pipes(self):
        self.assertEqual(markdown.table(["a", "b"], ["l", "r"], [["x|y", "1"], ["", "2"]]),
                         "| a | b |\n| --- | ---: |\n| x\\|y | 1 |\n| | 2 |")


if __name__ == "__main__":
    unittest.main()

"""The block exporter: blocks between markers are replaced, everything else kept."""

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
            replaced, _ = markdown.update_files([path], {"alpha": "fresh"})
            with open(path) as f:
                self.assertIn("<!-- bench:alpha -->\nfresh\n<!-- /bench:alpha -->", f.read())
            self.assertEqual(replaced, {path: ["alpha"]})
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
                markdown.update_files([path], {"alpha": "fresh"}, kind="demo", require_all=True)
            with open(path) as f:
                self.assertEqual(f.read(), README)
            self.assertEqual(os.listdir(d), ["README.md"])


class UpdateFilesTests(unittest.TestCase):
    """Blocks spread over several files, as they are over Docs/."""

    def write(self, directory, name, text):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def read(self, path):
        with open(path) as f:
            return f.read()

    def test_each_block_is_written_in_the_file_that_holds_it(self):
        with tempfile.TemporaryDirectory() as d:
            first = self.write(d, "A.md", "<!-- bench:alpha -->\nold\n<!-- /bench:alpha -->\n")
            second = self.write(d, "B.md", "Prose.\n<!-- bench:beta -->\nold\n<!-- /bench:beta -->\n")
            untouched = self.write(d, "C.md", "No blocks here.\n")
            replaced, missing = markdown.update_files([first, second, untouched],
                                                      {"alpha": "new a", "beta": "new b", "gamma": "g"})
            self.assertEqual(replaced, {first: ["alpha"], second: ["beta"], untouched: []})
            self.assertEqual(missing, ["gamma"])
            self.assertEqual(self.read(first), "<!-- bench:alpha -->\nnew a\n<!-- /bench:alpha -->\n")
            self.assertEqual(self.read(second), "Prose.\n<!-- bench:beta -->\nnew b\n<!-- /bench:beta -->\n")
            self.assertEqual(self.read(untouched), "No blocks here.\n")

    def test_a_block_in_two_files_is_an_error_and_nothing_is_written(self):
        with tempfile.TemporaryDirectory() as d:
            text = "<!-- bench:alpha -->\nold\n<!-- /bench:alpha -->\n"
            first, second = self.write(d, "A.md", text), self.write(d, "B.md", text)
            with self.assertRaisesRegex(BadInput, r"^<!-- bench:alpha --> is in both .*A.md and .*B.md: keep one$"):
                markdown.update_files([first, second], {"alpha": "new"})
            self.assertEqual((self.read(first), self.read(second)), (text, text))

    def test_require_all_across_files_names_the_block_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            text = "<!-- demo:alpha -->\nold\n<!-- /demo:alpha -->\n"
            first, second = self.write(d, "A.md", text), self.write(d, "B.md", "Prose.\n")
            with self.assertRaisesRegex(BadInput, r"^none of .*A.md, .*B.md has a <!-- demo:beta --> block$"):
                markdown.update_files([first, second], {"alpha": "new", "beta": "b"}, kind="demo", require_all=True)
            self.assertEqual(self.read(first), text)
            self.assertEqual(sorted(os.listdir(d)), ["A.md", "B.md"])

    def test_a_malformed_file_is_an_error_and_the_others_are_left_alone(self):
        with tempfile.TemporaryDirectory() as d:
            good = self.write(d, "A.md", "<!-- bench:alpha -->\nold\n<!-- /bench:alpha -->\n")
            bad = self.write(d, "B.md", "x\n<!-- bench:beta -->\n")
            with self.assertRaisesRegex(BadInput, r"B.md:2: block 'bench:beta' is never closed$"):
                markdown.update_files([good, bad], {"alpha": "new"})
            self.assertIn("old", self.read(good))


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

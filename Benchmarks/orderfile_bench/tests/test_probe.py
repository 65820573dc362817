import os
import tempfile
import unittest

from orderfile_bench.probe import pages_of_output


class PagesOfOutputTest(unittest.TestCase):
    def counts(self, text, sizes=(4096, 16384, 65536)):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pages.txt")
            with open(path, "w") as f:
                f.write(text)
            return pages_of_output(path, sizes)

    def test_a_16k_probe_page_gives_no_4k_count(self):
        text = "pagesize 4000\nmodule 0 5500000000 /app\npage 0 0\npage 0 4000\npage 0 14000\nmodule 1 0 /lib.so\n" \
               "page 1 8000\n"
        self.assertEqual(self.counts(text), (None, 3, 2))

    def test_a_4k_probe_page_counts_every_size(self):
        text = "pagesize 1000\nmodule 0 0 /app\npage 0 1000\npage 0 2000\npage 0 5000\n"
        self.assertEqual(self.counts(text), (3, 2, 1))


if __name__ == "__main__":
    unittest.main()

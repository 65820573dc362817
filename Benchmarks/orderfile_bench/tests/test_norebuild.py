"""Kendall's tau over two orders, as the norebuild section compares recordings."""

import unittest

from orderfile_bench.sections.norebuild import kendall_tau


class KendallTauTests(unittest.TestCase):
    def test_same_order_is_one(self):
        self.assertEqual(kendall_tau(["a", "b", "c", "d"], ["a", "b", "c", "d"]), 1.0)

    def test_reversed_order_is_minus_one(self):
        self.assertEqual(kendall_tau(["a", "b", "c", "d"], ["d", "c", "b", "a"]), -1.0)

    def test_only_shared_names_count(self):
        # x and y are seen by one recording only; the shared a, b, c keep their order.
        self.assertEqual(kendall_tau(["x", "a", "b", "c"], ["a", "y", "b", "c"]), 1.0)

    def test_one_swap_of_four(self):
        # 6 pairs, one discordant: (5 - 1) / 6.
        self.assertAlmostEqual(kendall_tau(["a", "b", "c", "d"], ["a", "c", "b", "d"]), 4 / 6)

    def test_fewer_than_two_shared_is_one(self):
        self.assertEqual(kendall_tau(["a"], ["b", "a"]), 1.0)


if __name__ == "__main__":
    unittest.main()

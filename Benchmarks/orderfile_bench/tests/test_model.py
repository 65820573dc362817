"""Results go to JSON and come back as the same dataclasses."""

import unittest
from dataclasses import dataclass

from orderfile_bench.common import BadInput
from orderfile_bench.model import from_json, json_name, to_json
from orderfile_bench.sections.scale import ScaleChecks, ScalePages, ScaleResult, ScaleStep
from orderfile_bench.stats import Summary


@dataclass
class Inner:
    value: float
    note: str | None = None


@dataclass
class Outer:
    items: list[Inner]
    by_name: dict[str, Summary]
    passed: bool = json_name("pass")


class ModelTests(unittest.TestCase):
    def test_round_trip_with_renamed_field(self):
        value = Outer(items=[Inner(1.5), Inner(2.0, "x")], by_name={"a": Summary.of([3.0, 1.0, 2.0])}, passed=True)
        data = to_json(value)
        self.assertEqual(data["pass"], True)
        self.assertNotIn("passed", data)
        self.assertEqual(data["by_name"]["a"]["median"], 2.0)
        self.assertEqual(from_json(Outer, data), value)

    def test_a_bad_value_names_its_path(self):
        data = {"items": [{"value": "fast"}], "by_name": {}, "pass": True}
        with self.assertRaisesRegex(BadInput, r"^r\.items\[0\]\.value: expected a number, got 'fast'$"):
            from_json(Outer, data, "r")

    def test_a_missing_field_is_named(self):
        with self.assertRaisesRegex(BadInput, r"no 'pass'"):
            from_json(Outer, {"items": [], "by_name": {}})

    def test_a_section_result_round_trips(self):
        result = ScaleResult(goal="g", functions=10, files=1,
                             steps=[ScaleStep(step="s", seconds=0.5, peak_kib=100, detail="d")],
                             trace_bytes=1, generate_seconds=0.1, generate_peak_kib=2,
                             pages_16k=ScalePages(1, 1, 1, 1), checks=ScaleChecks(True, False), passed=False)
        self.assertEqual(from_json(ScaleResult, to_json(result)), result)


if __name__ == "__main__":
    unittest.main()

"""Checks bench/lib/report.py's statistics on synthetic runs whose answers are known.

Usage: test_report.py <bench/lib>
"""
import random
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1))
import report  # noqa: E402


def runs(program, mode, walls, kind="program", status="ok"):
    return [{"jdk": "17", "program": program, "kind": kind, "mode": mode, "rep": i, "status": status,
             "wall_s": w, "maxrss_kb": 1024, "output_bytes": 0} for i, w in enumerate(walls)]


class Ratios(unittest.TestCase):
    def test_constant_runs_give_a_point_interval(self):
        summary = report.cells(runs("a", "baseline", [10.0] * 5) + runs("a", "m", [11.0] * 5) +
                               runs("b", "baseline", [4.0] * 5) + runs("b", "m", [5.0] * 5))
        geo = report.ratios(summary)
        self.assertAlmostEqual(summary[("17", "a", "m")]["ratio"], 1.1)
        self.assertEqual(tuple(round(x, 9) for x in summary[("17", "a", "m")]["ratio_ci"]), (1.1, 1.1))
        value, lower_bound, ci = geo[("17", "m", "program")]
        self.assertAlmostEqual(value, (1.1 * 1.25) ** 0.5)
        self.assertFalse(lower_bound)
        self.assertAlmostEqual(ci[0], value)
        self.assertAlmostEqual(ci[1], value)

    def test_noisy_runs_bracket_the_true_ratio(self):
        rng = random.Random(7)
        base = [10 * rng.uniform(0.87, 1.13) for _ in range(10)]
        mode = [10.2 * rng.uniform(0.87, 1.13) for _ in range(10)]
        summary = report.cells(runs("a", "baseline", base) + runs("a", "m", mode))
        report.ratios(summary)
        low, high = summary[("17", "a", "m")]["ratio_ci"]
        self.assertLess(low, 1.02)
        self.assertGreater(high, 1.02)
        self.assertGreater(high - low, 0.05)  # 13 % noise cannot give a tight interval with 10 runs

    def test_one_run_has_no_interval(self):
        summary = report.cells(runs("a", "baseline", [10.0]) + runs("a", "m", [12.0]))
        geo = report.ratios(summary)
        self.assertIsNone(summary[("17", "a", "m")]["ratio_ci"])
        self.assertIsNone(geo[("17", "m", "program")][2])
        self.assertEqual(report.geo_text(geo[("17", "m", "program")]), "1.20")

    def test_a_stopped_run_makes_the_mean_a_lower_bound_without_interval(self):
        stopped = runs("b", "m", [60.0], status="timeout")
        summary = report.cells(runs("a", "baseline", [10.0, 10.0]) + runs("a", "m", [12.0, 12.0]) +
                               runs("b", "baseline", [5.0, 5.0]) + stopped)
        value, lower_bound, ci = report.ratios(summary)[("17", "m", "program")]
        self.assertTrue(lower_bound)
        self.assertIsNone(ci)
        self.assertAlmostEqual(value, (1.2 * 12.0) ** 0.5)
        self.assertTrue(report.geo_text((value, lower_bound, ci)).startswith("> "))

    def test_micro_benchmarks_are_averaged_apart(self):
        summary = report.cells(runs("a", "baseline", [10.0] * 3) + runs("a", "m", [10.0] * 3) +
                               runs("u", "baseline", [1.0] * 3, kind="micro") +
                               runs("u", "m", [3.0] * 3, kind="micro"))
        geo = report.ratios(summary)
        self.assertAlmostEqual(geo[("17", "m", "program")][0], 1.0)
        self.assertAlmostEqual(geo[("17", "m", "micro")][0], 3.0)


if __name__ == "__main__":
    unittest.main()

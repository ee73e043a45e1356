"""Checks bench/lib/report.py's statistics on synthetic runs whose answers are known.

Usage: test_report.py <bench/lib>
"""
import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))
import report  # noqa: E402


def runs(program, mode, walls, kind="program", status="ok", cpus=None):
    return [{"jdk": "17", "program": program, "kind": kind, "mode": mode, "rep": i, "status": status,
             "wall_s": w, "maxrss_kb": 1024, "output_bytes": 0, **({"cpu_s": cpus[i]} if cpus else {})}
            for i, w in enumerate(walls)]


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


def before_after_runs():
    """Two programs; CPU: baseline 10 and 20 s, mode 12 and 22 s (now), before-mode 15 and 30 s.
    Wall times are the same everywhere: a busy machine stretches them, not CPU time."""
    out = []
    for program, cpu in (("a", (10.0, 12.0, 15.0)), ("b", (20.0, 22.0, 30.0))):
        for mode, c in zip(("baseline", "m", "before-m"), cpu):
            out += runs(program, mode, [30.0] * 3, cpus=[c] * 3)
    return out


class CpuTimeAndBeforeAfter(unittest.TestCase):
    def test_cpu_ratios_come_from_cpu_time_not_wall_time(self):
        summary = report.cells(before_after_runs())
        geo = {metric: report.ratios(summary, metric) for metric in report.METRICS}
        self.assertAlmostEqual(summary[("17", "a", "m")]["cpu_ratio"], 1.2)
        self.assertAlmostEqual(summary[("17", "b", "before-m")]["cpu_ratio"], 1.5)
        self.assertAlmostEqual(geo["cpu"][("17", "m", "program")][0], (1.2 * 1.1) ** 0.5)
        self.assertAlmostEqual(geo["cpu"][("17", "m", "program")][2][1], (1.2 * 1.1) ** 0.5)
        self.assertAlmostEqual(geo["wall"][("17", "m", "program")][0], 1.0)

    def test_runs_without_cpu_time_give_no_cpu_ratio(self):
        summary = report.cells(runs("a", "baseline", [10.0] * 2) + runs("a", "m", [12.0] * 2))
        self.assertEqual(report.ratios(summary, "cpu"), {})
        self.assertNotIn("cpu_ratio", summary[("17", "a", "m")])

    def test_each_mode_is_paired_with_its_before_mode(self):
        self.assertEqual(report.paired(["baseline", "before-m", "x", "m", "before-y"]),
                         ["baseline", "x", "m", "before-m", "before-y"])
        summary = report.cells(before_after_runs())
        geo = {metric: report.ratios(summary, metric) for metric in report.METRICS}
        [row] = report.before_after(summary, geo, ["baseline", "m", "before-m"])
        self.assertEqual((row["mode"], row["jdk"], row["kind"], row["programs"]), ("m", "17", "program", 2))
        self.assertAlmostEqual(row["cpu_before"][0], 1.5)
        change = (12 / 15 * 22 / 30) ** 0.5
        self.assertAlmostEqual(row["change"][0], change)
        self.assertAlmostEqual(row["change"][2][0], change)
        self.assertAlmostEqual(row["change"][0], row["cpu_after"][0] / row["cpu_before"][0])

    def test_report_writes_the_before_after_table(self):
        with tempfile.TemporaryDirectory() as raw:
            with open(os.path.join(raw, "runs.jsonl"), "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in before_after_runs())
            meta = {"commit": "c", "dirty": False, "date": "d", "agent": "new", "before_agent": "old",
                    "jdks": ["17"], "machine": "m", "load_start": "1", "quick": False, "reps": 3, "scale": "1",
                    "modes": ["baseline", "before-m", "m"], "programs": ["a", "b"], "command": "run"}
            with open(os.path.join(raw, "meta.json"), "w", encoding="utf-8") as f:
                json.dump(meta, f)
            sys.argv = ["report.py", raw]
            report.main()
            with open(os.path.join(raw, "report.md"), encoding="utf-8") as f:
                text = f.read()
        self.assertIn("- before-agent (before-* modes): old", text)
        self.assertIn("| m | 17 | programs | 1.50 [1.50, 1.50] | 1.15 [1.15, 1.15] | 0.77 [0.77, 0.77] | 2 | "
                      "1.00 → 1.00 |", text)
        self.assertLess(text.index("### JDK 17: m\n"), text.index("### JDK 17: before-m\n"))


if __name__ == "__main__":
    unittest.main()

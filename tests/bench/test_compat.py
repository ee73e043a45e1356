"""Checks the compatibility harness's own logic, without running a JVM: the ascii grammar
checker (bench/compat/lib/grammar.py) on well-formed and broken profiles, the stdout normaliser
and the classification of cells (bench/compat/lib/cells.py), how the table merges a cell's
repetitions (bench/compat/lib/table.py), the overhead table's floor ratio and verdict
(overhead.py), and that every line of bench/compat/programs.conf and
modes.conf is usable.

Usage: test_compat.py <bench>
"""
import json
import os
import re
import sys
import tempfile
import unittest

BENCH = sys.argv.pop(1)
sys.path.insert(0, os.path.join(BENCH, "compat", "lib"))
sys.path.insert(0, os.path.join(BENCH, "lib"))
import cells  # noqa: E402
import grammar  # noqa: E402
import matrix  # noqa: E402
import overhead  # noqa: E402
import table  # noqa: E402

DATE = "Thu Nov 26 00:14:51 2026"
GOOD = f"""JAVA PROFILE 1.0.1, created {DATE}

A prelude describing the records.

--------

THREAD START (obj=1, id = 200001, name="main", group="main")
TRACE 300001:
\tDemo.run(Demo.java:12)
\tDemo.main(Demo.java:3)
TRACE 300002: (thread=200001)
\tjava.lang.Object.wait(Object.java:Native method)
SITES BEGIN (ordered by live bytes) {DATE}
          percent          live          alloc'ed  stack class
 rank   self  accum     bytes objs     bytes  objs trace name
    1 60.00% 60.00%       600   10      1200    20 300001 byte[]
    2 40.00% 100.00%       400    5       400     5 300002 java.lang.String
SITES END
CPU SAMPLES BEGIN (total = 3) {DATE}
rank   self  accum   count trace method
   1 66.67% 66.67%       2 300001 Demo.run
   2 33.33% 100.00%       1 300002 java.lang.Object.wait
CPU SAMPLES END
MONITOR DUMP BEGIN
    THREAD 200001, trace 300002, status: CW
    MONITOR java.lang.Object
\towner: thread 200001, entry count: 1
\twaiting to enter:
\twaiting to be notified: thread 200001
MONITOR DUMP END
HEAP DUMP BEGIN (2 objects, 64 bytes) {DATE}
ROOT 1 (kind=<thread>, id=200001, trace=300001)
OBJ 2a (sz=24, trace=300001, class=java.lang.String@5)
\tvalue\t\t2b
ARR 2b (sz=40, trace=300000, nelems=3, elem type=byte[])
CLS 5 (name=java.lang.String, trace=300000)
\tsuper\t\tb
HEAP DUMP END
THREAD END (id = 200001)
"""


def check(text, name="java.hprof.txt"):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return grammar.check_file(path)


class Grammar(unittest.TestCase):
    def test_well_formed_profile_passes(self):
        self.assertEqual(check(GOOD), [])

    def test_every_section_row_is_checked(self):
        broken = {
            "SITES rank": GOOD.replace("    2 40.00%", "    3 40.00%"),
            "SITES row": GOOD.replace("   600   10 ", "   600 ten "),
            "CPU SAMPLES row": GOOD.replace("       2 300001 Demo.run", "       2 Demo.run"),
            "MONITOR DUMP row": GOOD.replace("status: CW", "status:"),
            "HEAP DUMP row": GOOD.replace("ROOT 1 (kind=<thread>", "ROOT 1 (kind=thread"),
            "cites TRACE 300003": GOOD.replace("1 300002 java.lang.Object.wait", "1 300003 java.lang.Object.wait"),
            "BEGIN line": GOOD.replace(f"CPU SAMPLES BEGIN (total = 3) {DATE}", "CPU SAMPLES BEGIN (total = 3)"),
        }
        for what, text in broken.items():
            with self.subTest(what):
                problems = check(text)
                self.assertEqual(len(problems), 1, problems)
                self.assertIn(what.split()[-1], problems[0])

    def test_frame_errors_come_from_the_strict_parser(self):
        self.assertIn("no SITES END", check(GOOD.replace("SITES END\n", ""))[0])
        self.assertIn("does not end with a newline", check(GOOD[:-1])[0])
        self.assertIn("bad header", check("JAVA PROFILE 1.0.1\n" + GOOD.split("\n", 1)[1])[0])
        self.assertEqual(check(""), ["empty file"])

    def test_a_trace_cited_before_it_is_written_fails(self):
        late = GOOD.replace("TRACE 300002: (thread=200001)\n\tjava.lang.Object.wait(Object.java:Native method)\n", "")
        late = late.replace("THREAD END", "TRACE 300002:\n\t<empty>\nTHREAD END")
        self.assertTrue(all("before it was written" in p for p in check(late)))
        self.assertGreater(len(check(late)), 0)

    def test_cpu_old_format(self):
        good = "count callee caller time\n7 A.f()V B.g()V 12\n1 A.f()V <unknown caller> 0\n"
        self.assertEqual(check(good), [])
        self.assertIn("bad cpu=old row", check(good + "7 A.f()V\n")[0])


class Cells(unittest.TestCase):
    def test_normaliser(self):
        out = b"Dumping allocation sites ... done.\nresult 3 (12ms)\ncompat: a\nthread dump\n"
        self.assertEqual(cells.normalise(out, "-"), "result 3 (12ms)\ncompat: a\nthread dump\n")
        self.assertEqual(cells.normalise(out, r"sub:\d+ms"), "result 3 (<v>)\ncompat: a\nthread dump\n")
        self.assertEqual(cells.normalise(out, "keep:^compat:"), "compat: a\n")
        self.assertEqual(cells.normalise(b"made /r/none/x\n", "-", "/r/none"), "made <rundir>/x\n")

    def classify(self, files, exit_code=0, timed_out=False, baseline=None, agent=True, busy=None):
        with tempfile.TemporaryDirectory() as d:
            for name, data in files.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data)
            result = {"exit": exit_code, "wall_s": 1.0, "timed_out": timed_out, "busy": busy}
            return cells.classify(d, result, baseline, "-", "/bin/false", agent)

    def test_outcomes_in_order_of_severity(self):
        base = {"exit": 0, "stdout": "x\n"}
        good = {"stdout": b"x\n", "prof.txt": GOOD.encode()}
        self.assertEqual(self.classify(good, baseline=base)["outcome"], "ok")
        self.assertEqual(self.classify(dict(good, stdout=b"y\n"), baseline=base)["outcome"], "changed")
        self.assertEqual(self.classify(good, exit_code=1, baseline=base)["outcome"], "changed")
        self.assertEqual(self.classify(dict(good, stderr=b"HPROF ERROR: no\n"), baseline=base)["outcome"], "error")
        self.assertEqual(self.classify({"stdout": b"x\n"}, baseline=base)["outcome"], "malformed")
        bad = dict(good, **{"prof.txt": GOOD.replace("SITES END\n", "").encode()})
        self.assertEqual(self.classify(bad, baseline=base)["outcome"], "malformed")
        self.assertEqual(self.classify(good, timed_out=True, baseline=base)["outcome"], "hang")
        answered = dict(good, **{"threads.txt": b'Full thread dump\n"main" #1 runnable\n'})
        self.assertEqual(self.classify(answered, timed_out=True, baseline=base, busy=0.9)["outcome"], "slow")
        self.assertEqual(self.classify(answered, timed_out=True, baseline=base, busy=0.0)["outcome"], "hang")
        crashed = dict(bad, **{"hs_err_pid1.log": b"#  SIGSEGV (0xb) at pc=0x1\n# Problematic frame:\n# C  [libhprof.so+0x10]\n"})
        result = self.classify(crashed, exit_code=134, baseline=base)
        self.assertEqual(result["outcome"], "crash")
        self.assertIn("libhprof.so+0x10", result["details"][0])
        self.assertEqual(self.classify(good, exit_code=-11, baseline=base)["outcome"], "crash")

    def test_allocated_objects_are_the_sites_alloc_column(self):
        base = {"exit": 0, "stdout": "x\n"}
        result = self.classify({"stdout": b"x\n", "prof.txt": GOOD.encode()}, baseline=base)
        self.assertEqual(result["sites_objs"], 25)
        no_sites = GOOD[:GOOD.index("SITES BEGIN")] + GOOD[GOOD.index("SITES END\n") + 10:]
        self.assertIsNone(self.classify({"stdout": b"x\n", "prof.txt": no_sites.encode()}, baseline=base)["sites_objs"])

    def test_binary_output_goes_to_hprof_verify(self):
        base = {"exit": 0, "stdout": "x\n"}
        files = {"stdout": b"x\n", "prof.hprof": b"JAVA PROFILE 1.0.2\0"}
        result = self.classify(files, baseline=base)  # the "verifier" here is /bin/false
        self.assertEqual(result["outcome"], "malformed")
        self.assertIn("hprof verify", result["details"][0])


class Table(unittest.TestCase):
    def run_record(self, mode, rep, wall, cpu, outcome="ok"):
        return {"jdk": "17", "program": "p", "kind": "real", "mode": mode, "rep": rep, "wall_s": wall,
                "cpu_s": cpu, "outcome": outcome, "details": [] if outcome == "ok" else [f"{outcome}: x"],
                "action": "-", "command": "java p"}

    def load(self, records):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "meta.json"), "w", encoding="utf-8") as f:
                json.dump({}, f)
            with open(os.path.join(d, "cells.jsonl"), "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in records)
            return {c["mode"]: c for c in table.load([d])[1]}

    def test_repetitions_give_medians_and_the_worst_outcome(self):
        runs = [self.run_record("none", i, w, c) for i, (w, c) in enumerate([(1.0, 2.0), (3.0, 2.2), (1.2, 9.0)])]
        runs += [self.run_record("heap-all", i, w, c) for i, (w, c) in enumerate([(3.0, 5.0), (2.4, 4.4), (9.9, 6.6)])]
        cell = self.load(runs)["heap-all"]
        self.assertEqual((cell["reps"], cell["wall_s"], cell["cpu_s"]), (3, 3.0, 5.0))
        self.assertEqual(table.cell_text(cell), "ok 2.50 / CPU 2.27")
        runs.append(self.run_record("heap-all", 3, 1.0, 1.0, "changed"))
        self.assertEqual(table.cell_text(self.load(runs)["heap-all"]), "**CHANGED**")

    def test_runs_without_cpu_time_show_the_wall_ratio(self):
        runs = [self.run_record(m, 0, w, 0) for m, w in (("none", 2.0), ("heap-all", 3.0))]
        for r in runs:
            del r["cpu_s"]
        self.assertEqual(table.cell_text(self.load(runs)["heap-all"]), "ok 1.50")


class Overhead(unittest.TestCase):
    def test_floor_ratio_and_verdict(self):
        def cell(mode, cpus, **extra):
            return dict(jdk="17", program="p", mode=mode, outcome="ok", cpus=cpus, cpu_s=sorted(cpus)[1],
                        base_cpu=1.0, base_cpus=[0.9, 1.0, 1.1], **extra)
        cells = [cell("none", [0.9, 1.0, 1.1]), cell("heap-all", [3.9, 4.0, 4.1]),
                 cell("sites-all", [2.0, 2.0, 2.0], sites_objs=50_000_000)]
        lines, over = overhead.rows(cells, "17", "heap-all", "sites-all", 80.0, 3)
        self.assertEqual(over, 1)
        self.assertIn("| 4.00 [", lines[0])
        self.assertIn("| 50.00 | 5.00 | over; the floor alone is 5.00x |", lines[0])
        self.assertEqual(overhead.verdict(4.0, None, 2.0, 3), "**over 3x**")
        self.assertEqual(overhead.verdict(2.9, (2.5, 3.2), None, 3), "≤ 3x (interval reaches over)")


class Conf(unittest.TestCase):
    def test_every_program_line_is_usable(self):
        programs = matrix.programs()
        self.assertGreaterEqual(sum(p["kind"] in ("real", "lang") for p in programs.values()), 20)
        for name, p in programs.items():
            with self.subTest(name):
                self.assertIn(p["kind"], ("real", "lang", "module", "hostile"))
                self.assertTrue(p["jdk"] == "all" or re.fullmatch(r">=\d+|<\d+", p["jdk"]))
                self.assertTrue(re.fullmatch(r"\*|\d+", p["exit"]))
                self.assertTrue(re.fullmatch(r"-|sigquit:\d+|dump2|sigterm", p["action"]))
                self.assertTrue(p["rule"] == "-" or p["rule"].startswith(("sub:", "keep:")))
                if p["rule"] != "-":
                    re.compile(p["rule"].split(":", 1)[1])
                self.assertFalse(p["template"].startswith("@"))

    def test_modes_start_without_agent(self):
        modes = matrix.conf.modes("compat/modes.conf")
        self.assertEqual(next(iter(modes)), "none")
        self.assertEqual(modes["none"], "")
        self.assertTrue(all(v.startswith("-agentpath:{agent}=") for k, v in modes.items() if k != "none"))
        self.assertEqual(json.loads(json.dumps(list(modes))), list(modes))


if __name__ == "__main__":
    unittest.main(verbosity=2)

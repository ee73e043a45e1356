"""cpu=times and cpu=old on a real JVM: exact call counts per trace (plain,
recursive, exceptional, uncaught, many threads), under -Xverify:all, the 3:1
CPU split, the old prof format, and the per-dump reset."""
import os
import re
import subprocess
import sys
import time
import unittest

import hproftest as ht

ROW = re.compile(r"\s*(\d+)\s+(\d+\.\d\d)%\s+(\d+\.\d\d)%\s+(\d+)\s+(\d+) (\S+)$")
OLD_ROW = re.compile(r"(\d+) (<unknown callee>|\S+) (<unknown caller>|\S+) (\d+)$")
N, M = 12345, 3000
CALLS = "CpuTimesCalls"


def cpu_rows(prof, index=-1):
    """[(count, self_pct, trace frames as 'Class.method' list)] of one CPU TIME section."""
    sections = prof.sections_named("CPU TIME (ms)")
    assert sections, "no CPU TIME section"
    title, body = sections[index]
    assert re.match(r"CPU TIME \(ms\) BEGIN \(total = \d+\) " + ht.DATE + "$", title), title
    rows = []
    if body:
        assert body[0] == "rank   self  accum   count trace method", body[0]
        for rank, line in enumerate(body[1:], 1):
            m = ROW.match(line)
            assert m, f"bad row {line!r}"
            assert int(m.group(1)) == rank
            serial = int(m.group(5))
            assert serial in prof.traces, f"trace {serial} not written before the table"
            thread, frames = prof.traces[serial]
            names = [f"{c}.{meth}" for c, meth, _, _ in frames]
            assert names and names[0] == m.group(6), line
            rows.append((int(m.group(4)), float(m.group(2)), names, thread))
    return rows


def count_path(rows, path):
    return sum(r[0] for r in rows if r[2] == path)


def count_top(rows, method):
    return sum(r[0] for r in rows if r[2][0] == method)


def make_case(env):
    class CpuTimes(unittest.TestCase):
        def setUp(self):
            self.dir = os.path.join(env.work, "cpu_times", self._testMethodName)
            os.makedirs(self.dir, exist_ok=True)

        def run_ok(self, options, args, extra_jvm=()):
            r = ht.run_java(env, options, args, cwd=self.dir, extra_jvm=extra_jvm)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("HPROF ERROR", r.stderr)
            self.assertNotIn("warning", r.stderr)
            return r

        def check_calls(self, rows):
            c = "CpuTimesCalls"
            self.assertEqual(count_path(rows, [f"{c}.leaf", f"{c}.main"]), N)
            self.assertEqual(count_path(rows, [f"{c}.jdk", f"{c}.main"]), 20 * N)
            self.assertEqual(count_path(rows, ["java.lang.Integer.compare", f"{c}.jdk", f"{c}.main"]),
                             20 * N)
            # an intrinsic: left uninstrumented, rather than losing the calls
            # the JIT-compiled intrinsic makes
            self.assertEqual(count_top(rows, "java.lang.Math.max"), 0)
            # method-handle plumbing counts as its caller, as the spun
            # LambdaForms do: one trace, whichever LambdaForm ran
            self.assertEqual(count_path(rows, [f"{c}.viaHandle", f"{c}.main"]), N)
            self.assertEqual(count_top(rows, "java.lang.invoke.Invokers.checkExactType"), 0)
            # rec(6) five times: 7 frames deep; depth=4 keeps the top 4 frames
            self.assertEqual(count_path(rows, [f"{c}.rec", f"{c}.main"]), 5)
            self.assertEqual(count_path(rows, [f"{c}.rec"] * 2 + [f"{c}.main"]), 5)
            self.assertEqual(count_path(rows, [f"{c}.rec"] * 3 + [f"{c}.main"]), 5)
            self.assertEqual(count_path(rows, [f"{c}.rec"] * 4), 20)
            # thrower(3) nine times, each throwing out of 4 frames
            self.assertEqual(count_path(rows, [f"{c}.thrower", f"{c}.catcher", f"{c}.main"]), 9)
            self.assertEqual(count_path(rows, [f"{c}.thrower"] * 2 + [f"{c}.catcher", f"{c}.main"]), 9)
            self.assertEqual(count_path(rows, [f"{c}.thrower"] * 3 + [f"{c}.catcher"]), 9)
            self.assertEqual(count_path(rows, [f"{c}.thrower"] * 4), 9)
            self.assertEqual(count_path(rows, [f"{c}.catcher", f"{c}.main"]), 9)
            # the thread killed by an uncaught exception
            self.assertEqual(count_path(rows, [f"{c}.dies", f"{c}$Dying.run"]), 1)
            self.assertEqual(count_top(rows, f"{c}$Dying.run"), 1)
            # 8 threads x M calls
            self.assertEqual(count_path(rows, [f"{c}.work", f"{c}$Worker.run"]), 8 * M)
            self.assertEqual(count_path(rows, [f"{c}.brief", f"{c}$Brief.run"]), 200 * 100)
            self.assertEqual(count_top(rows, f"{c}.main"), 1)

        def test_exact_counts(self):
            self.run_ok("cpu=times,cutoff=0,file=out.txt", [CALLS, str(N), str(M)])
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            rows = cpu_rows(prof)
            self.check_calls(rows)
            # ranked by self time
            pcts = [r[1] for r in rows]
            self.assertEqual(pcts, sorted(pcts, reverse=True))

        def test_exact_counts_verify_all(self):
            """Every rewritten class, java.base included, passes the verifier."""
            self.run_ok("cpu=times,cutoff=0,file=out.txt", [CALLS, str(N), str(M)],
                        extra_jvm=["-Xverify:all"])
            self.check_calls(cpu_rows(ht.read_ascii(os.path.join(self.dir, "out.txt"))))

        def test_threads_separate(self):
            self.run_ok("cpu=times,cutoff=0,thread=y,file=out.txt", [CALLS, "10", str(M)])
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            rows = cpu_rows(prof)
            work = [r for r in rows if r[2] == ["CpuTimesCalls.work", "CpuTimesCalls$Worker.run"]]
            self.assertEqual(len(work), 8, work)
            self.assertTrue(all(r[0] == M for r in work), work)
            self.assertEqual(len({r[3] for r in work}), 8)

        def test_threads_taking_turns(self):
            # Each thread finds its state through the field cpu=times gives
            # java.lang.Thread at start-up (no shared `last` rewritten at
            # every switch); calls of threads alternating are each counted.
            r = self.run_ok("cpu=times,cutoff=0,thread=y,file=out.txt", ["CpuTimesTurns", "20000"])
            self.assertIn("field=true", r.stdout)
            rows = cpu_rows(ht.read_ascii(os.path.join(self.dir, "out.txt")))
            turns = [r for r in rows if r[2][0] == "CpuTimesTurns.turn"]
            self.assertEqual(sorted(r[0] for r in turns), [20000, 20000], turns)
            self.assertEqual(len({r[3] for r in turns}), 2, turns)

        def test_virtual_threads(self):
            # Virtual threads end without ThreadEnd: one at a time and in
            # waves, each new one takes over the state of one that ended
            # (HprofTracker.reusable); every call is still counted.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            for wave in (1, 50):
                self.run_ok("cpu=times,cutoff=0,file=out.txt", ["CpuTimesVirtual", "200", str(wave), "100"])
                rows = cpu_rows(ht.read_ascii(os.path.join(self.dir, "out.txt")))
                self.assertEqual(count_top(rows, "CpuTimesVirtual.vwork"), 200 * 100, wave)
                self.assertEqual(count_top(rows, "CpuTimesVirtual.task"), 200, wave)

        def test_virtual_threads_time(self):
            # A carrier's frames are not charged while a virtual thread runs
            # on it: before, VirtualThread.mount stayed open on the carrier
            # and took about half of the self time, counted a second time
            # under the virtual threads' own frames. 8 virtual threads x 50
            # rounds of ~4 ms of burn() between 1 ms sleeps. On JDK 25 a
            # yield also returned from the virtual thread's bottom frame:
            # the frames above it were counted then, and burn() ran under
            # Continuation.run alone after the first sleep.
            if env.java_version() < 21:
                self.skipTest("no virtual threads before JDK 21")
            self.run_ok("cpu=times,cutoff=0,file=out.txt", ["CpuTimesVirtualBusy", "8", "50", "4"])
            rows = cpu_rows(ht.read_ascii(os.path.join(self.dir, "out.txt")))
            self.assertEqual(count_top(rows, "CpuTimesVirtualBusy.burn"), 400)
            under_task = [r for r in rows if r[2][:2] == ["CpuTimesVirtualBusy.burn", "CpuTimesVirtualBusy.task"]]
            self.assertEqual(sum(r[0] for r in under_task), 400, under_task)
            self.assertEqual(count_top(rows, "CpuTimesVirtualBusy.task"), 8)
            burn = sum(r[1] for r in rows if r[2][0] == "CpuTimesVirtualBusy.burn")
            self.assertGreater(burn, 75, rows[:5])
            for switcher in ("java.lang.VirtualThread.mount", "java.lang.VirtualThread.unmount"):
                self.assertEqual(count_top(rows, switcher), 0, rows[:5])

        def test_cpu_ratio(self):
            self.run_ok("cpu=times,file=out.txt", ["CpuTimesRatio", "10000000"])
            rows = cpu_rows(ht.read_ascii(os.path.join(self.dir, "out.txt")))
            heavy = sum(r[1] for r in rows if r[2][0] == "CpuTimesRatio.heavy")
            light = sum(r[1] for r in rows if r[2][0] == "CpuTimesRatio.light")
            self.assertGreater(heavy + light, 0)
            share = 100 * heavy / (heavy + light)
            self.assertTrue(65 <= share <= 85, f"heavy {heavy}% light {light}%: {share:.1f}%")
            self.assertEqual(count_top(rows, "CpuTimesRatio.heavy"), 20)
            # frames whose time is in their callees have (almost) no self time
            for outer in ("CpuTimesRatio.main", "CpuTimesRatio.rounds"):
                own = sum(r[1] for r in rows if r[2][0] == outer)
                self.assertLess(own, light / 4, f"{outer}: {own}%")
            # sleeping costs wall time, not CPU time: far below light()
            sleepy = sum(r[1] for r in rows if r[2][0] == "CpuTimesRatio.sleepy")
            self.assertLess(sleepy, light / 2, rows[:10])

        def test_cpu_old(self):
            self.run_ok("cpu=old,file=old.txt", [CALLS, str(N), str(M)])
            with open(os.path.join(self.dir, "old.txt")) as f:
                lines = f.read().split("\n")
            # no header, prelude or THREAD START/END: the old prof format only
            self.assertEqual(lines[0], "count callee caller time")
            self.assertEqual(lines[-1], "")
            rows = []
            for line in lines[1:-1]:
                m = OLD_ROW.match(line)
                self.assertTrue(m, f"bad line {line!r}")
                rows.append((int(m.group(1)), m.group(2), m.group(3), int(m.group(4))))
            counts = [r[0] for r in rows]
            self.assertEqual(counts, sorted(counts, reverse=True))
            self.assertTrue(all(c > 0 for c in counts))
            got = {(r[1], r[2]): r[0] for r in rows}
            c = "CpuTimesCalls"
            self.assertEqual(got[(f"{c}.leaf(I)V", f"{c}.main([Ljava/lang/String;)V")], N)
            self.assertEqual(got[(f"{c}.viaHandle(I)I", f"{c}.main([Ljava/lang/String;)V")], N)
            self.assertEqual(got[(f"{c}.rec(I)I", f"{c}.rec(I)I")], 30)
            self.assertEqual(got[(f"{c}.thrower(I)V", f"{c}.thrower(I)V")], 27)
            self.assertEqual(got[(f"{c}.work()V", f"{c}$Worker.run()V")], 8 * M)
            self.assertEqual(got[(f"{c}.main([Ljava/lang/String;)V", "<unknown caller>")], 1)

        def test_reset_after_dump(self):
            out = os.path.join(self.dir, "out.txt")
            proc = ht.start_java(env, f"cpu=times,cutoff=0,doe=y,file={out}",
                                 ["CpuTimesDumps"], cwd=self.dir)
            try:
                ht.wait_for_line(proc.stdout, "READY")
                for word in ["one", "dump", "two", "three"]:
                    if word == "dump":
                        j = subprocess.run([env.jcmd, str(proc.pid), "JVMTI.data_dump"],
                                           capture_output=True, text=True, timeout=60)
                        self.assertEqual(j.returncode, 0, j.stdout + j.stderr)
                        ht.wait_for_line(proc.stderr, r"Dumping.* done\.")
                        continue
                    proc.stdin.write(word + "\n")
                    proc.stdin.flush()
                    ht.wait_for_line(proc.stdout, "OK " + word)
                proc.stdin.write("exit\n")
                proc.stdin.flush()
                proc.wait(120)
            finally:
                if proc.poll() is None:
                    proc.kill()
                for s in (proc.stdout, proc.stderr, proc.stdin):
                    s.close()
            self.assertEqual(proc.returncode, 0)
            prof = ht.read_ascii(out)
            self.assertEqual(len(prof.sections_named("CPU TIME (ms)")), 2)
            path = ["CpuTimesDumps.leaf", "CpuTimesDumps.main"]
            self.assertEqual(count_path(cpu_rows(prof, 0), path), 1000)
            self.assertEqual(count_path(cpu_rows(prof, 1), path), 2000)

    return CpuTimes


if __name__ == "__main__":
    ht.main(make_case)

"""Every frame of exact heap=sites and cpu=times traces carries its line: the
top frame its allocation's (heap=sites) or its method's first line
(cpu=times), each caller the line of its call (checked against the source's
markers), ascii and binary; lineno=n prints Unknown line; methods of classes
unloaded before the report keep their names (cpu=old, cpu=times,
heap=sites)."""
import os
import re
import sys
import unittest

import hproftest as ht

P = "LinesProg"


def ascii_traces(path):
    """[[(Class.method, line or None)]] of an ascii profile's traces."""
    prof = ht.read_ascii(path)
    return [[(f"{c}.{m}", int(line) if line.isdigit() else None) for c, m, _, line in frames]
            for _, frames in prof.traces.values()]


def binary_traces(path):
    prof = ht.read_binary(path)
    return [[(f"{c}.{m}", line if line > 0 else None) for c, m, _, _, line in frames]
            for _, frames in prof.traces.values()]


def make_case(env):
    folder = dict(zip(sys.argv[1::2], sys.argv[2::2]))["--source"]
    line = ht.source_markers([os.path.join(folder, f) for f in os.listdir(folder)],
                             ["CALL", "ALLOC"])
    calls = [  # expected frames, top first: (method, marker of its line)
        [("inner", "inner"), ("middle", "middle_inner"), ("outer", "outer_middle"),
         ("main", "main_outer")],
        [("inner", "inner"), ("twice", "twice_first"), ("main", "main_twice")],
        [("inner", "inner"), ("lambda$lambdas$0", "lambda_inner"), ("each", "each_run"),
         ("lambdas", "lambdas_each"), ("main", "main_lambdas")],
    ]
    second = [("inner", "inner"), ("twice", "twice_second"), ("main", "main_twice")]

    class Lines(unittest.TestCase):
        def run_prog(self, name, options, args, extra_jvm=()):
            out = os.path.join(env.work, "lines", name)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            r = ht.run_java(env, f"{options},file={out}", [P] + args, extra_jvm=extra_jvm)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("HPROF ERROR", r.stderr)
            return out, r

        def expect(self, traces, frames, top_line):
            """A trace starts with `frames` at the markers' lines; every trace
            of these methods does unless it is twice()'s other call."""
            names = [f"{P}.{m}" for m, _ in frames]
            want = [top_line(frames[0])] + [line[k] for _, k in frames[1:]]
            found = [[f[1] for f in t[:len(names)]] for t in traces
                     if [f[0] for f in t[:len(names)]] == names]
            self.assertIn(want, found, names)
            twice = [line["twice_first"], line["twice_second"]]
            others = [f for f in found if f != want and not (f"{P}.twice" in names
                                                              and f[1] in twice)]
            self.assertEqual(others, [], names)

        def check_sites(self, traces):
            for frames in calls + [second]:
                self.expect(traces, frames, lambda f: line[f[1]])
            # the list's growth: JDK frames, then the caller at its call
            grow = [t for t in traces if t[0][0] == "java.util.Arrays.copyOf"
                    and f"{P}.grow" in [f[0] for f in t]]
            self.assertTrue(grow, "no trace of the list's growth")
            for t in grow:
                at = [f[0] for f in t].index(f"{P}.grow")
                self.assertEqual(t[at:], [(f"{P}.grow", line["grow_add"]),
                                          (f"{P}.outer", line["outer_grow"]),
                                          (f"{P}.main", line["main_outer"])][:len(t) - at], t)
                self.assertTrue(all(f[1] for f in t), f"a JDK frame without its line: {t}")

        def check_dynamic(self, traces):
            # every trace through dynamic() names one of its three
            # invokedynamic lines or its invokeExact's, and each appears; but for class
            # loading the JVM calls (an upcall: no call's line to give)
            seen = {t[i][1] for t in traces for i in range(1, len(t))
                    if t[i][0] == f"{P}.dynamic" and t[i - 1][0] != "java.lang.ClassLoader.loadClass"}
            self.assertEqual(seen, {line["dynamic_concat1"], line["dynamic_concat2"],
                                    line["dynamic_capture"], line["dynamic_mh"]})

        def test_heap_sites_ascii(self):
            out, _ = self.run_prog("sites.txt", "heap=sites,depth=8,cutoff=0", ["calls"])
            self.check_sites(ascii_traces(out))
            self.check_dynamic(ascii_traces(out))

        def test_heap_sites_binary(self):
            out, _ = self.run_prog("sites.bin", "heap=sites,depth=8,cutoff=0,format=b", ["calls"])
            self.check_sites(binary_traces(out))

        def test_heap_sites_window(self):
            """depth 2..4 keeps callers in the window, not the shadow stack."""
            out, _ = self.run_prog("sites4.txt", "heap=sites,depth=4,cutoff=0", ["calls"])
            for frames in calls + [second]:
                self.expect(ascii_traces(out), frames[:4], lambda f: line[f[1]])
            self.check_dynamic(ascii_traces(out))

        def test_cpu_times(self):
            out, _ = self.run_prog("times.txt", "cpu=times,depth=6,cutoff=0", ["calls"])
            # the top frame is at its method's first line (inner's only line)
            traces = ascii_traces(out)
            for frames in calls:
                self.expect(traces, frames, lambda f: line[f[1]])
            # no call hook: two calls of inner in twice() show the lowest line
            self.assertFalse([t for t in traces if (f"{P}.twice", line["twice_second"]) in t])

        def test_lineno_n(self):
            for name, opts in (("sites-n.txt", "heap=sites,depth=8"),
                               ("times-n.txt", "cpu=times,depth=6")):
                out, _ = self.run_prog(name, opts + ",cutoff=0,lineno=n", ["calls"])
                traces = ascii_traces(out)
                self.assertTrue(any(f[0] == f"{P}.middle" for t in traces for f in t))
                self.assertEqual([f for t in traces for f in t if f[1] is not None], [])

        def unload(self, name, options):
            out, r = self.run_prog(name, options, ["unload", "2000"])
            m = re.search(r"unloaded (\d+) of 2000", r.stdout)
            self.assertTrue(m and int(m.group(1)) >= 1900, r.stdout)
            return out

        def test_unloaded_cpu_old(self):
            with open(self.unload("old.txt", "cpu=old")) as f:
                rows = f.read().split("\n")[1:-1]
            unknown = [r for r in rows if "<unknown callee>" in r]
            self.assertEqual(unknown[:3], [], f"{len(unknown)} rows without a callee")
            run = [r for r in rows if r.split(" ")[1:3] == ["LinesGen.run()V", f"{P}.run(Ljava/lang/Runnable;)V"]]
            self.assertEqual(sum(int(r.split(" ")[0]) for r in run), 2000)

        def test_unloaded_cpu_times(self):
            traces = ascii_traces(self.unload("times-unload.txt", "cpu=times,cutoff=0"))
            gen = [t for t in traces if t[0][0] == "LinesGen.helper"]
            self.assertEqual(len(gen), 2000)
            for t in gen:
                self.assertEqual(t[:3], [("LinesGen.helper", line["gen_helper"]),
                                         ("LinesGen.run", line["run_helper"]),
                                         (f"{P}.run", line["churn_run"])])

        def test_unloaded_heap_sites(self):
            out = self.unload("sites-unload.bin", "heap=sites,cutoff=0,format=b")
            prof = ht.read_binary(out)
            gen = [fr for _, fr in prof.traces.values() if fr and fr[0][0] == "LinesGen"]
            self.assertEqual(len(gen), 2 * 2000)
            for fr in gen:
                self.assertEqual(fr[0][3], "LinesGen.java")
                self.assertIn((fr[0][1], fr[0][4]), [("run", line["gen_run"]),
                                                     ("helper", line["gen_helper"])])

    return Lines


if __name__ == "__main__":
    ht.main(make_case)

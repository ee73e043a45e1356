"""Exact heap=sites attached with jcmd: CountTarget makes known numbers of
objects at known sites on request, and the SITES tables count exactly
those made after the attach, allocated and live (objects made before it
are neither), cumulatively over a data dump and the final dump of stop;
stop gives the classes their own bytes back (the JVM TI probe); exact
heap=sites and cpu=times again on the same JVM; the shadow-stack route
(depth=8); another depth refused once the tracker class kept one; a target
that exits during a recording; exact heap=sites and heap=all started with
the JVM, stopped (java.lang.Thread keeps its rewrite), then cpu=times. The
target's output and exit code are checked. Usage (from CTest):
test_attach_sites.py --java-home H --agent LIB --jar JAR --probe LIB"""
import os
import sys

import hproftest as ht
from test_attach import TARGET_EXIT, run
from test_attach_exact import CountTargetTest, counted_per_dump

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "heap_sites"))
import sites  # noqa: E402  (tests/heap_sites/sites.py: the SITES table reader)

FOO = "CountTarget$Foo"


def made(path, cls, method):
    """Per SITES table: (allocated, live) objects of class `cls` made in
    CountTarget.method, and the traces' lengths."""
    per_table, depths = [], set()
    for table in sites.ascii_tables(path)[1]:
        rows = [r for r in table.rows
                if r["cls"] == cls and r["frames"][:1]
                and r["frames"][0][:2] == ("CountTarget", method)]
        per_table.append((sum(r["alloc_objs"] for r in rows), sum(r["live_objs"] for r in rows)))
        depths |= {len(r["frames"]) for r in rows}
    return per_table, depths


class SitesAttachTest(CountTargetTest):
    folder = "attach_sites"

    def test_counts_exactly_dump_stop_restores_attach_again(self):
        self.start_counting()
        self.go(300, "foos")  # before the attach: kept live, never counted
        original = self.probe("makeFoos")
        self.load(f"heap=sites,cutoff=0,file={self.path('sites.txt')}")
        self.assertGreater(self.probe("makeFoos"), original)  # rewritten
        self.go(1000, "foos")
        self.go(500, "ints")
        self.jcmd("JVMTI.data_dump")
        self.go(200, "foos")
        self.go(100, "ints")
        self.load("stop")
        self.assertEqual(self.probe("makeFoos"), original)  # its own bytes again
        # main() was running at the attach: traces start at makeFoos.
        self.assertEqual(made(self.path("sites.txt"), FOO, "makeFoos"),
                         ([(1000, 1000), (1200, 1200)], {1}))
        ints, _ = made(self.path("sites.txt"), "int[]", "makeInts")
        self.assertEqual([allocated for allocated, _ in ints], [500, 600])
        self.assertEqual(ints[0][1], 500)  # every one tagged: live exactly
        prelude = " ".join(ht.read_ascii(self.path("sites.txt")).prelude)
        self.assertIn("SITES without alloc_interval count the allocations", prelude)
        self.go(100, "foos")  # between recordings: not counted
        self.load(f"heap=sites,cutoff=0,file={self.path('again.txt')}")
        self.go(700, "foos")
        self.load("stop")
        self.assertEqual(made(self.path("again.txt"), FOO, "makeFoos"), ([(700, 700)], {1}))
        self.load(f"cpu=times,cutoff=0,file={self.path('times.txt')}")
        self.go(50)
        self.load("stop")
        self.assertEqual(counted_per_dump(self.path("times.txt")), [50])
        self.assertEqual(self.probe("makeFoos"), original)
        self.finish()

    def test_shadow_stack_other_depth_refused_target_exits(self):
        self.start_counting()
        self.load(f"heap=sites,depth=8,cutoff=0,file={self.path('deep.txt')}")
        self.go(1000, "foos")
        self.load("stop")
        self.assertEqual(made(self.path("deep.txt"), FOO, "makeFoos"), ([(1000, 1000)], {1}))
        self.load(f"heap=sites,depth=4,file={self.path('other.txt')}", ok=False)
        self.assertIn("attached to this JVM before with depth=8", self.target.stderr())
        self.assertFalse(os.path.exists(self.path("other.txt")))
        self.load(f"heap=sites,depth=8,cutoff=0,file={self.path('deep2.txt')}")
        self.go(300, "ints")
        self.assertEqual(self.target.quit(), TARGET_EXIT)  # the exit dump ends the report
        self.assertEqual(self.target.stdout(), self.expected_out + "done\n")
        self.assertEqual(made(self.path("deep2.txt"), "int[]", "makeInts"), ([(300, 300)], {1}))

    def startup_stopped(self, options):
        """Exact heap=sites (or heap=all) started with the JVM: 1000 Foos
        counted, stop restores makeFoos but keeps Thread's rewrite; exact
        heap=sites cannot attach again, cpu=times can. Returns the report."""
        self.start_counting()
        counted, foos = self.probe(), self.probe("makeFoos")
        self.finish()
        report = self.path("startup.txt")
        self.start_counting(f"{options},cutoff=0,file={report}")
        self.go(1000, "foos")
        self.assertGreater(self.probe("makeFoos"), foos)
        self.load("stop")
        self.assertEqual(self.probe("makeFoos"), foos)
        self.assertIn("class java/lang/Thread keeps the fields", self.target.stderr())
        (table,), _ = made(report, FOO, "makeFoos")
        self.assertEqual(table, (1000, 1000))
        self.go(100, "foos")  # after the stop: counted nowhere
        self.load(f"heap=sites,file={self.path('again.txt')}", ok=False)
        self.assertIn("keeps its state in Thread fields", self.target.stderr())
        self.assertFalse(os.path.exists(self.path("again.txt")))
        self.times_again(counted)
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), self.expected_out + "done\n")
        for bad in ("SIGSEGV", "hs_err", "Exception", "cannot rewrite", "cannot restore"):
            self.assertNotIn(bad, self.target.stderr())
        return report

    def test_startup_stopped_restored_then_cpu_times(self):
        self.startup_stopped("heap=sites")

    def test_startup_heap_all_stopped(self):
        report = self.startup_stopped("heap=all")
        self.assertTrue(ht.read_ascii(report).sections_named("HEAP DUMP"))


if __name__ == "__main__":
    run(SitesAttachTest)

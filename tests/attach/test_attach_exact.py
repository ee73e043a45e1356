"""The exact modes attached with jcmd: cpu=times and cpu=old count exactly
the calls made after the attach (CountTarget makes a known number on
request); stop gives every class its own bytes back (a JVM TI probe reads a
method's bytecode length before, during and after the recording); another
recording on the same JVM; a target that exits during a recording. Started
with the JVM, cpu=times and cpu=old stop the same way and a recording can
be attached after. The target's output and exit code are checked. Exact
heap=sites attached: test_attach_sites.py.
Usage (from CTest): test_attach_exact.py --java-home H --agent LIB --jar JAR
--probe LIB"""
import os
import re
import sys
import time

import hproftest as ht
from test_attach import TARGET_EXIT, Target, TargetTest, run

ROW = re.compile(r"^\s*\d+\s+\S+%\s+\S+%\s+(\d+)\s+(\d+) \S+$")
PROBE = re.compile(r"^PROBE CountTarget\.\w+ (-?\d+)$", re.M)
ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))


def counted_per_dump(path):
    """Calls of CountTarget.counted in each CPU TIME section of a report."""
    prof = ht.read_ascii(path)
    per_dump = []
    for _, body in prof.sections_named("CPU TIME (ms)"):
        calls = 0
        for line in body[1:]:
            m = ROW.match(line)
            assert m, f"bad row {line!r}"
            top = prof.traces[int(m.group(2))][1][0]
            calls += int(m.group(1)) if top[:2] == ("CountTarget", "counted") else 0
        per_dump.append(calls)
    return per_dump


def counted_old(path):
    """Calls of CountTarget.counted from run in a cpu=old report."""
    with open(path) as f:
        rows = [line.split(" ") for line in f.read().split("\n")]
    return sum(int(r[0]) for r in rows
               if len(r) == 4 and r[1:3] == ["CountTarget.counted(I)V", "CountTarget.run(I)V"])


class CountTargetTest(TargetTest):
    """CountTarget as the target: requests, probes, checks at its end."""
    folder = "attach_exact"

    def start_counting(self, agent_options=None):
        """CountTarget, with the agent from its start when given options."""
        env = self.env
        flag = [f"-agentpath:{env.agent}={agent_options}"] if agent_options else []
        self.target = Target(env, self.dir,
                             launcher=[env.java] + flag + ["-cp", env.jar, "CountTarget"])
        self.expected_out = "ready\n"

    def original_length(self):
        """CountTarget.counted's bytecode length in a JVM without the agent."""
        self.start_counting()
        length = self.probe()
        self.finish()
        return length

    def go(self, n, what="go"):
        """CountTarget calls counted() n times (or makes n objects: what is
        foos or ints); returns once it said so."""
        self.expected_out += f"ran {n}\n"
        self.target.proc.stdin.write(f"{what} {n}\n".encode())
        self.target.proc.stdin.flush()
        deadline = time.time() + 120
        while self.target.stdout() != self.expected_out:
            self.assertLess(time.time(), deadline, f"no 'ran {n}': {self.target.stderr()}")
            time.sleep(0.05)

    def probe(self, method="counted"):
        """The bytecode length of a CountTarget method as the JVM runs it now."""
        before = len(PROBE.findall(self.target.stderr()))
        self.jcmd("JVMTI.agent_load", ARGS["--probe"], f"CountTarget.{method}")
        found = PROBE.findall(self.target.stderr())
        self.assertEqual(len(found), before + 1)
        self.assertGreater(int(found[-1]), 0)
        return int(found[-1])

    def times_again(self, original):
        """cpu=times attached once more counts exactly the calls after it,
        and its stop leaves CountTarget.counted `original` bytes long."""
        self.load(f"cpu=times,cutoff=0,file={self.path('again.txt')}")
        self.go(700)
        self.load("stop")
        self.assertEqual(counted_per_dump(self.path("again.txt")), [700])
        self.assertEqual(self.probe(), original)

    def finish(self):
        """Ends the target: its output and exit code as without an agent."""
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), self.expected_out + "done\n")
        err = self.target.stderr()
        for bad in ("HPROF ERROR", "SIGSEGV", "hs_err", "Exception", "cannot rewrite",
                    "cannot restore"):
            self.assertNotIn(bad, err)


class ExactAttachTest(CountTargetTest):
    def test_cpu_times_counts_exactly_stop_restores_start_again(self):
        self.start_counting()
        self.go(300)  # before the attach: not counted
        original = self.probe()
        self.load(f"cpu=times,cutoff=0,file={self.path('times.txt')}")
        self.assertGreater(self.probe(), original)  # rewritten
        self.go(1000)
        self.jcmd("JVMTI.data_dump")
        self.go(500)
        self.load("stop")
        self.assertEqual(self.probe(), original)  # its own bytes again
        self.assertEqual(counted_per_dump(self.path("times.txt")), [1000, 500])
        prelude = " ".join(ht.read_ascii(self.path("times.txt")).prelude)
        self.assertIn("counts the calls that began after the attach", prelude)
        self.go(200)  # between recordings: not counted
        self.load(f"cpu=samples,interval=4,file={self.path('samples.txt')}")
        self.go(100)
        self.load("stop")
        self.times_again(original)
        self.finish()

    def test_startup_cpu_times_stopped_restored_and_attached_again(self):
        original = self.original_length()
        self.start_counting(f"cpu=times,cutoff=0,file={self.path('startup.txt')}")
        self.go(1000)
        self.assertGreater(self.probe(), original)  # rewritten as it loaded
        self.load("stop")
        self.assertEqual(self.probe(), original)  # the bytes the JVM kept
        self.assertEqual(counted_per_dump(self.path("startup.txt")), [1000])
        self.go(200)  # after the stop: counted nowhere
        self.times_again(original)
        self.finish()
        self.assertEqual(counted_per_dump(self.path("startup.txt")), [1000])

    def test_startup_cpu_old_stopped_then_sampled(self):
        original = self.original_length()
        self.start_counting(f"cpu=old,file={self.path('old.txt')}")
        self.go(900)
        self.load("stop")
        self.assertEqual(counted_old(self.path("old.txt")), 900)
        self.assertEqual(self.probe(), original)
        self.load(f"cpu=samples,interval=4,file={self.path('samples.txt')}")
        self.go(300)
        self.load("stop")
        self.assertTrue(ht.read_ascii(self.path("samples.txt")).sections_named("CPU SAMPLES"))
        self.finish()

    def test_cpu_old_target_exits_during_recording(self):
        self.start_counting()
        self.load(f"cpu=old,file={self.path('old.txt')}")
        self.go(900)
        self.finish()  # the exit dump ends the report
        self.assertEqual(counted_old(self.path("old.txt")), 900)


if __name__ == "__main__":
    run(ExactAttachTest)

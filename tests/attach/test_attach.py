"""Attaching the agent to a running JVM with jcmd: a 3:1 CPU split recorded
after the start, data_dump, stop and start again on one JVM, a second
attach refused, the sampled modes, a startup agent stopped and restarted, a
target exiting mid-recording; the target's output and exit code are those
of a run without the agent. The exact modes attached: test_attach_exact.py.
Usage (from CTest): test_attach.py --java-home H --agent LIB --jar JAR"""
import os
import re
import subprocess
import time
import unittest

import hproftest as ht

TARGET_OUT = "ready\ndone\n"  # AttachTarget's whole stdout
TARGET_EXIT = 3
ROW = re.compile(r"^\s*\d+\s+\S+%\s+\S+%\s+(\d+)\s+(\d+) ")


def cpu_split(prof):
    """Samples under AttachTarget.heavy and .light over all CPU SAMPLES sections."""
    heavy = light = 0
    for _, body in prof.sections_named("CPU SAMPLES"):
        for line in body[1:]:
            m = ROW.match(line)
            assert m, f"bad row {line!r}"
            methods = [f[1] for f in prof.traces[int(m.group(2))][1]]
            heavy += int(m.group(1)) if "heavy" in methods else 0
            light += int(m.group(1)) if "light" in methods else 0
    return heavy, light


class Target:
    """AttachTarget running in the background, output into files."""

    def __init__(self, env, work, agent_options=None, extra_jvm=(), launcher=None):
        """`launcher`: a command that runs the JVM itself (in a container)."""
        self.out_path = os.path.join(work, "target.out")
        self.err_path = os.path.join(work, "target.err")
        flag = [f"-agentpath:{env.agent}={agent_options}"] if agent_options else []
        cmd = launcher or [env.java] + flag + list(extra_jvm) + ["-cp", env.jar, "AttachTarget"]
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(cmd, cwd=work, stdin=subprocess.PIPE, stdout=out,
                                         stderr=err)
        deadline = time.time() + 60
        while self.stdout() != "ready\n":
            if time.time() > deadline or self.proc.poll() is not None:
                self.quit()
                raise AssertionError(f"target did not start: {self.stderr()}")
            time.sleep(0.1)

    def stdout(self):
        with open(self.out_path) as f:
            return f.read()

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def quit(self):
        """Ends the target through its stdin; returns its exit code."""
        try:
            self.proc.stdin.write(b"q\n")
            self.proc.stdin.close()
            self.proc.wait(120)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(30)
        return self.proc.returncode


class TargetTest(unittest.TestCase):
    """A fresh directory per test under work/<folder>; the target, if one
    was started into self.target, is ended afterwards."""
    env = None
    folder = "attach"

    def setUp(self):
        self.dir = os.path.join(self.env.work, self.folder, self._testMethodName)
        os.makedirs(self.dir, exist_ok=True)
        for name in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, name))
        self.target = None

    def tearDown(self):
        if self.target and self.target.proc.poll() is None:
            self.target.quit()

    def path(self, name):
        return os.path.join(self.dir, name)

    def jcmd(self, *args):
        p = subprocess.run([self.env.jcmd, str(self.target.proc.pid)] + list(args),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def load(self, options, ok=True):
        """jcmd JVMTI.agent_load; the options in quotes, as jcmd's parser needs
        for a value holding '='."""
        out = self.jcmd("JVMTI.agent_load", self.env.agent, f'"{options}"')
        self.assertIn("return code: 0" if ok else "return code: -1", out)


class AttachTest(TargetTest):
    def start(self, **kw):
        self.target = Target(self.env, self.dir, **kw)
        return self.target

    def record(self, name, samples=1000, limit=180):
        """Dumps every 2 s until the recording into `name` holds enough
        samples of the work: on a loaded machine the target gets little CPU.
        With 1000 samples the split's binomial error is 1.4 points, so the
        5-point bound is not reached by chance (at 400 it is 2.2 points, and
        one clean-clone run measured 5.3)."""
        deadline = time.time() + limit
        while time.time() < deadline:
            time.sleep(2)
            self.jcmd("JVMTI.data_dump")
            if sum(cpu_split(ht.read_ascii(self.path(name)))) >= samples:
                return
        self.fail(f"fewer than {samples} samples in {limit} s")

    def assert_split(self, name):
        heavy, light = cpu_split(ht.read_ascii(self.path(name)))
        self.assertGreater(heavy + light, 150, "too few samples to judge")
        share = heavy / (heavy + light)
        print(f"{name}: heavy {heavy}, light {light}: {share:.1%}")
        self.assertLess(abs(share - 0.75), 0.05)

    def assert_target_unchanged(self):
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), TARGET_OUT)
        err = self.target.stderr()
        for bad in ("HPROF ERROR", "SIGSEGV", "hs_err", "Exception"):
            self.assertNotIn(bad, err)
        return err

    def test_split_recorded_after_start_stop_start_again_exit_mid_recording(self):
        self.start()
        time.sleep(1)
        self.load(f"cpu=samples,interval=4,file={self.path('first.txt')}")
        self.record("first.txt")
        self.load("stop")
        prof = ht.read_ascii(self.path("first.txt"))
        self.assertGreaterEqual(len(prof.sections_named("CPU SAMPLES")), 2)
        self.assertIn("attached to a running JVM", "\n".join(prof.prelude))
        self.assert_split("first.txt")
        self.load(f"cpu=samples,interval=4,file={self.path('second.txt')}")
        self.record("second.txt")
        self.load("stop")
        self.assert_split("second.txt")
        # The target exits while a third recording runs: the exit dump ends it.
        self.load(f"cpu=samples,interval=4,file={self.path('third.txt')}")
        self.record("third.txt", samples=600)
        err = self.assert_target_unchanged()
        self.assert_split("third.txt")
        if self.env.java_version() >= 21:  # JEP 451, once per agent library
            self.assertEqual(err.count("WARNING: A JVM TI agent has been loaded dynamically"), 1)

    def test_second_attach_is_refused_and_changes_nothing(self):
        self.start()
        self.load(f"cpu=samples,interval=4,file={self.path('a.txt')}")
        self.load(f"cpu=samples,interval=4,file={self.path('b.txt')}", ok=False)
        self.assertFalse(os.path.exists(self.path("b.txt")))
        self.assertIn("already recording into " + self.path("a.txt"), self.target.stderr())
        self.record("a.txt")
        self.load("stop")
        self.load("stop", ok=False)
        self.assertIn("no hprof recording is running", self.target.stderr())
        self.assert_split("a.txt")
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), TARGET_OUT)

    def test_sampled_sites_monitor_and_heap_dump(self):
        self.start(extra_jvm=["-XX:+EnableDynamicAgentLoading"])
        self.load(f"heap=sites,alloc_interval=4096,monitor=y,file={self.path('sites.txt')}")
        time.sleep(3)
        self.load("stop")
        prof = ht.read_ascii(self.path("sites.txt"))
        sites = prof.sections_named("SITES")
        self.assertEqual(len(sites), 1)
        self.assertTrue(any(line.endswith(" byte[]") for line in sites[0][1]), sites[0][1])
        self.assertEqual(len(prof.sections_named("MONITOR DUMP")), 1)
        self.assertIn(("WAITED", "Ljava/lang/Object;"), [e[:2] for e in prof.monitor_events])
        self.load(f"heap=dump,format=b,file={self.path('heap.hprof')}")
        self.load("stop")
        dump = ht.read_binary(self.path("heap.hprof"))
        self.assertTrue(dump.named("HEAP DUMP SEGMENT") or dump.named("HEAP DUMP"))
        err = self.assert_target_unchanged()
        self.assertNotIn("WARNING", err)  # -XX:+EnableDynamicAgentLoading silences JEP 451

    def test_startup_agent_stopped_and_restarted(self):
        self.start(agent_options=f"cpu=samples,interval=4,file={self.path('startup.txt')}")
        self.record("startup.txt")
        self.load("stop")
        self.assert_split("startup.txt")
        self.load(f"cpu=samples,interval=4,file={self.path('restarted.txt')}")
        self.record("restarted.txt")
        self.assert_target_unchanged()
        self.assert_split("restarted.txt")


def run(case):
    """Runs the TargetTest class `case` with the command line's paths."""
    def factory(env):
        case.env = env
        return case

    ht.main(factory)


if __name__ == "__main__":
    run(AttachTest)

"""hprof record against running JVMs, with no JDK tool on PATH: the 3:1
CPU split recorded after the start, --flame, --list, Ctrl-C, a JVM that
exits during the recording, and the exit code of each failure (no such JVM,
not a JVM, another user's JVM, attach disabled, agent refusing).
Usage (from CTest): test_record.py --java-home H --agent LIB --jar JAR --cli HPROF"""
import os
import shutil
import signal
import subprocess
import time

import hproftest as ht
from test_attach import TARGET_EXIT, TARGET_OUT, Target, TargetTest, cpu_split, run

NO_JVM, DENIED, REFUSED, EXITED = 5, 6, 7, 8
NO_TOOLS = {"PATH": "/nonexistent", "HOME": os.environ.get("HOME", "/")}


class RecordTest(TargetTest):
    folder = "record"

    def cmd(self, *args):
        return [self.env.cli, "record"] + [str(a) for a in args]

    def record(self, *args, rc=0):
        p = subprocess.run(self.cmd(*args), capture_output=True, text=True, timeout=300,
                           cwd=self.dir, env=NO_TOOLS)
        self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p

    def started(self, rec):
        """Waits until the agent started by `rec` (an hprof record process)
        has opened its report in the JVM's /tmp."""
        report = f"/tmp/hprof-record-{self.target.proc.pid}-{rec.pid}.txt"
        deadline = time.time() + 60
        while not os.path.exists(report) and rec.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        self.assertTrue(os.path.exists(report), rec.poll())

    def background(self, *args):
        return subprocess.Popen(self.cmd(*args), cwd=self.dir, env=NO_TOOLS,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_split_flame_and_list(self):
        self.target = Target(self.env, self.dir)
        listed = self.record("--list").stdout.splitlines()
        mine = [l.split("\t") for l in listed if l.startswith(f"{self.target.proc.pid}\t")]
        self.assertEqual(len(mine), 1, listed)
        self.assertTrue(mine[0][1].startswith(str(self.env.java_version())), mine)
        self.assertEqual(mine[0][2], "AttachTarget")
        # Recordings of 6 s until the split rests on enough samples (the
        # target may get little CPU on a loaded machine).
        heavy = light = 0
        for i in range(10):
            out = self.path(f"r{i}.txt")
            p = self.record(self.target.proc.pid, "-d", "6s", "-o", out, "--flame",
                            "cpu=samples,interval=4")
            self.assertIn("CPU SAMPLES BEGIN", p.stdout)
            self.assertIn("AttachTarget.heavy", open(out + ".html").read())
            h, l = cpu_split(ht.read_ascii(out))
            heavy, light = heavy + h, light + l
            if heavy + light >= 400:
                break
        share = heavy / (heavy + light)
        print(f"heavy {heavy}, light {light}: {share:.1%}")
        self.assertGreater(heavy + light, 150)
        self.assertLess(abs(share - 0.75), 0.05)
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), TARGET_OUT)
        self.assertNotIn("HPROF ERROR", self.target.stderr())

    def test_ctrl_c_stops_and_a_second_recording_is_refused(self):
        self.target = Target(self.env, self.dir)
        first = self.background(self.target.proc.pid, "-o", self.path("a.txt"))
        self.started(first)
        time.sleep(2)
        p = self.record(self.target.proc.pid, "-d", "1", "-o", self.path("b.txt"), rc=REFUSED)
        self.assertIn("return code: -1", p.stderr)
        self.assertIn("already recording", self.target.stderr())
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=120)
        self.assertEqual(first.returncode, 0, out + err)
        self.assertTrue(ht.read_ascii(self.path("a.txt")).sections_named("CPU SAMPLES"))
        self.assertFalse(os.path.exists(self.path("b.txt")))
        self.assertEqual(self.target.quit(), TARGET_EXIT)

    def test_jvm_exiting_during_the_recording(self):
        self.target = Target(self.env, self.dir)
        rec = self.background(self.target.proc.pid, "-o", self.path("exit.txt"))
        self.started(rec)
        time.sleep(2)
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        out, err = rec.communicate(timeout=120)
        self.assertEqual(rec.returncode, EXITED, out + err)
        self.assertIn("exited during the recording", err)
        self.assertTrue(ht.read_ascii(self.path("exit.txt")).sections_named("CPU SAMPLES"))

    def test_failures_have_their_exit_codes(self):
        p = self.record(2 ** 22 + 12345, rc=NO_JVM)
        self.assertIn("no such process", p.stderr)
        sleeper = subprocess.Popen(["sleep", "60"])
        try:
            p = self.record(sleeper.pid, rc=NO_JVM)
            self.assertIn("not a HotSpot JVM", p.stderr)
            self.assertIsNone(sleeper.poll())  # never signalled
        finally:
            sleeper.kill()
            sleeper.wait()
        self.assertIn("usage: hprof record", self.record("--help").stdout)
        self.record(1, "-d", "x", rc=2)
        self.record(1, "file=/tmp/x", rc=2)
        self.target = Target(self.env, self.dir, extra_jvm=["-XX:+DisableAttachMechanism"])
        p = self.record(self.target.proc.pid, "-d", "1", rc=REFUSED)
        self.assertIn("DisableAttachMechanism", p.stderr)
        self.assertEqual(self.target.quit(), TARGET_EXIT)
        self.assertEqual(self.target.stdout(), TARGET_OUT)
        self.target = Target(self.env, self.dir)
        p = self.record(self.target.proc.pid, "-d", "1", "cpu=samples,depth=2000", rc=REFUSED)
        self.assertIn("depth option value must be at most 1024", self.target.stderr())
        setpriv = shutil.which("setpriv")  # util-linux
        if os.geteuid() == 0 and setpriv:  # another user's JVM, seen by nobody
            p = subprocess.run([setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                self.env.cli, "record", str(self.target.proc.pid)],
                               capture_output=True, text=True, timeout=60, env=NO_TOOLS)
            self.assertEqual(p.returncode, DENIED, p.stderr)
        self.assertEqual(self.target.quit(), TARGET_EXIT)


if __name__ == "__main__":
    run(RecordTest)

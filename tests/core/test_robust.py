"""The agent never crashes, hangs or changes the program it profiles: the
cheapest cases of the kinds that once did. A modular application under every
mode, option values at their limits, outputs that block or fill up, what is
reachable after a GC, -Xcheck:jni, files left by killed runs."""
import os
import resource
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import unittest

import hproftest as ht

# Every mode, as a user would start it.
MODES = ("heap=sites", "heap=sites,depth=8", "heap=sites,alloc_interval=524288", "heap=all",
         "heap=dump,format=b", "cpu=samples", "cpu=times", "cpu=old", "monitor=y",
         "heap=sites,cpu=samples,thread=y")


def make_case(env):
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    modular_src = args["--modular-src"]
    javac = os.path.join(env.java_home, "bin", "javac")
    jlink = os.path.join(env.java_home, "bin", "jlink")

    class Robust(unittest.TestCase):
        def setUp(self):
            self.dir = os.path.join(env.work, "robust", self._testMethodName)
            shutil.rmtree(self.dir, ignore_errors=True)
            os.makedirs(self.dir)

        def java(self, options, main_args, extra_jvm=(), use_jar=True, **kw):
            flag = f"-agentpath:{env.agent}" + (f"={options}" if options else "")
            cmd = [env.java, flag] + list(extra_jvm)
            if use_jar:
                cmd += ["-cp", env.jar]
            return subprocess.run(cmd + list(main_args), cwd=self.dir, capture_output=True,
                                  text=True, timeout=kw.pop("timeout", 180), **kw)

        def assert_no_crash(self, p):
            crashes = [f for f in os.listdir(self.dir) if f.startswith("hs_err")]
            self.assertEqual(crashes, [], p.stdout + p.stderr)
            self.assertNotIn("A fatal error has been detected", p.stdout + p.stderr)

        def assert_well_formed(self, path, options):
            if "format=b" in options:
                r = subprocess.run([env.cli, "verify", path], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            elif "cpu=old" not in options:
                ht.read_ascii(path)

        def compile_modular(self):
            mods = os.path.join(self.dir, "mods", "m")
            srcs = [os.path.join(root, f) for root, _, files in os.walk(modular_src)
                    for f in files if f.endswith(".java")]
            r = subprocess.run([javac, "-d", mods] + srcs, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            return os.path.dirname(mods)

        # ------------------------------------------------ modular programs

        def test_module_path_every_mode(self):
            # heap=sites crashed every program launched from --module-path:
            # linking a tracker native ran hooks that called it again.
            mods = self.compile_modular()
            for options in MODES:
                with self.subTest(options):
                    out = os.path.join(self.dir, "out-" + options.replace(",", "_"))
                    p = self.java(f"{options},file={out}", ["--module-path", mods, "-m", "m/p.Main"],
                                  use_jar=False)
                    self.assert_no_crash(p)
                    self.assertEqual((p.returncode, p.stdout), (0, "100000\n"), p.stderr)
                    self.assertNotIn("HPROF ERROR", p.stderr)
                    self.assert_well_formed(out, options)

        def test_other_boot_layers(self):
            # What else builds the boot layer in Java at start: patched and
            # added modules, module options, and a jlinked image.
            mods = self.compile_modular()
            patch = os.path.join(self.dir, "patch")
            os.makedirs(patch)
            runs = {
                "patch-module": ["--patch-module", f"m={patch}", "--module-path", mods,
                                 "-m", "m/p.Main"],
                "add-modules": ["--add-modules", "java.sql", "--module-path", mods,
                                "-m", "m/p.Main"],
                "limit-modules": ["--limit-modules", "java.base,m", "--module-path", mods,
                                  "-m", "m/p.Main"],
                "add-opens": ["--add-opens", "java.base/java.lang=m", "--module-path", mods,
                              "-m", "m/p.Main"],
            }
            for name, jvm in runs.items():
                for options in ("heap=sites", "heap=sites,depth=8", "cpu=times"):
                    with self.subTest(f"{name} {options}"):
                        out = os.path.join(self.dir, f"{name}-{options.replace(',', '_')}.txt")
                        p = self.java(f"{options},file={out}", jvm, use_jar=False)
                        self.assert_no_crash(p)
                        self.assertEqual((p.returncode, p.stdout), (0, "100000\n"), p.stderr)
                        self.assert_well_formed(out, options)

        def test_jlinked_image(self):
            mods = self.compile_modular()
            image = os.path.join(self.dir, "image")
            r = subprocess.run([jlink, "--module-path", mods, "--add-modules", "m",
                                "--output", image], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            java = os.path.join(image, "bin", "java")
            for options in ("heap=sites", "cpu=times"):
                with self.subTest(options):
                    out = os.path.join(self.dir, f"jlink-{options.replace(',', '_')}.txt")
                    p = subprocess.run([java, f"-agentpath:{env.agent}={options},file={out}",
                                        "-m", "m/p.Main"], cwd=self.dir, capture_output=True,
                                       text=True, timeout=180)
                    self.assert_no_crash(p)
                    self.assertEqual((p.returncode, p.stdout), (0, "100000\n"), p.stderr)
                    self.assert_well_formed(out, options)

        # ------------------------------------------------ many threads

        def test_thousands_of_short_threads(self):
            # The trackers' spin lock, without a way to yield, let 200
            # waiting threads starve its holder on 2 cores: 7 to 60 s (and
            # runs stopped at 190 s) for 0.5 s of work.
            for options in ("heap=sites", "heap=sites,depth=8", "cpu=times"):
                with self.subTest(options):
                    out = os.path.join(self.dir, "threads-" + options.replace(",", "_"))
                    p = self.java(f"{options},file={out}", ["ManyThreads", "2000"])
                    self.assert_no_crash(p)
                    self.assertEqual((p.returncode, p.stdout),
                                     (0, "compat: threads=2000 work=444500 shared=444500\n"),
                                     p.stderr)
                    self.assert_well_formed(out, options)

        def test_dumps_during_class_churn(self):
            # 50 SIGQUITs while classes load and unload and threads allocate:
            # a SITES report overran its rows (glibc: double free), and a
            # heap dump cited traces written after it.
            out = os.path.join(self.dir, "churn.txt")
            proc = subprocess.Popen(
                [env.java, f"-agentpath:{env.agent}=heap=all,file={out}", "-cp", env.jar,
                 "ClassChurn", "1000"], cwd=self.dir, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            ht.wait_for_line(proc.stdout, r"^compat: ready")
            for _ in range(50):
                proc.send_signal(signal.SIGQUIT)
                time.sleep(0.02)
            out_rest, err = proc.communicate(timeout=300)
            self.assertEqual(proc.returncode, 0, err)
            self.assertIn("compat: churn rounds=", out_rest)
            self.assertNotIn("corruption", err)
            prof = ht.read_ascii(out)
            self.assertGreater(len(prof.sections_named("HEAP DUMP")), 1)
            written = set()
            with open(out, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = re.match(r"TRACE (\d+):", line)
                    if m:
                        written.add(int(m.group(1)))
                    for t in re.findall(r"\btrace=(\d+)", line):
                        self.assertIn(int(t), written | {0}, line)

        # ------------------------------------------------ option limits

        def test_depth_limit(self):
            p = self.java("depth=2147483647,cpu=times", ["Minimal"])
            self.assert_no_crash(p)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("HPROF ERROR: hprof option error: depth option value must be at most "
                          "1024", p.stderr)
            for options in ("cpu=times", "cpu=samples", "heap=sites"):
                with self.subTest(options):
                    p = self.java(f"depth=1024,{options}", ["Minimal"])
                    self.assertEqual((p.returncode, p.stdout), (0, "minimal\n"), p.stderr)

        def test_mandatory_class_data_sharing_is_explained(self):
            # The exact modes turn class data sharing off; with it made
            # mandatory the JVM refuses to start, and the agent says why.
            # The other modes keep it and run.
            for options in ("heap=sites", "cpu=times"):
                for how in ([["-Xshare:on"], None], [[], {"JAVA_TOOL_OPTIONS": "-Xshare:on"}]):
                    with self.subTest(options=options, how=how):
                        env_vars = dict(os.environ, **how[1]) if how[1] else None
                        p = self.java(options, ["Minimal"], extra_jvm=how[0], env=env_vars)
                        self.assertNotEqual(p.returncode, 0, p.stderr)
                        self.assertIn("HPROF ERROR: -Xshare:on makes class data sharing mandatory",
                                      p.stderr)
            for options in ("heap=sites,alloc_interval=524288", "cpu=samples", "heap=dump"):
                with self.subTest(options=options):
                    p = self.java(options, ["Minimal"], extra_jvm=["-Xshare:on"])
                    self.assertEqual((p.returncode, p.stdout), (0, "minimal\n"), p.stderr)
                    self.assertNotIn("HPROF ERROR", p.stderr)

        # ------------------------------------------------ outputs that block

        def test_fifo_without_reader(self):
            fifo = os.path.join(self.dir, "fifo")
            os.mkfifo(fifo)
            start = time.monotonic()
            p = self.java(f"heap=sites,file={fifo}", ["Minimal"], timeout=120)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(f"HPROF ERROR: can't create profile file: {fifo}", p.stderr)
            print(f"gave up on a FIFO without reader after {time.monotonic() - start:.1f} s")

        def test_fifo_reader_that_never_reads(self):
            fifo = os.path.join(self.dir, "fifo")
            os.mkfifo(fifo)
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader that never reads
            try:
                p = self.java(f"heap=all,file={fifo}", ["Reachability", "hold"], timeout=120)
            finally:
                os.close(fd)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("held", p.stdout)
            self.assertIn("HPROF ERROR: output lost: cannot write to", p.stderr)
            self.assertIn("nothing was read for 10 s", p.stderr)

        def test_silent_net_peer(self):
            with socket.socket() as server:
                server.bind(("127.0.0.1", 0))
                server.listen(1)
                port = server.getsockname()[1]
                # A dump larger than the socket buffers: the exit dump blocks.
                proc = subprocess.Popen(
                    [env.java, f"-agentpath:{env.agent}=heap=dump,format=b,net=127.0.0.1:{port}",
                     "-cp", env.jar, "Reachability", "hold"], cwd=self.dir,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                conn, _ = server.accept()
                try:
                    out, err = proc.communicate(timeout=120)
                finally:
                    conn.close()
            self.assertEqual(proc.returncode, 0, err)
            self.assertIn("held", out)
            self.assertIn("HPROF ERROR: output lost: cannot write to 127.0.0.1:", err)

        # ------------------------------------------------ full disk

        def test_file_size_limit_ends_at_a_whole_record(self):
            # RLIMIT_FSIZE fails writes as a full disk does, part way.
            def limit():
                resource.setrlimit(resource.RLIMIT_FSIZE, (300000, 300000))
            for options in ("heap=all", "heap=all,format=b", "heap=dump,format=b"):
                with self.subTest(options):
                    out = os.path.join(self.dir, "full-" + options.replace(",", "_"))
                    p = self.java(f"{options},file={out}", ["Reachability", "hold"],
                                  preexec_fn=limit)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertIn("HPROF ERROR: output lost", p.stderr)
                    size = os.path.getsize(out)
                    self.assertLessEqual(size, 300000)
                    if "format=b" in options:
                        r = subprocess.run([env.cli, "verify", out], capture_output=True,
                                           text=True)
                        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    else:
                        with open(out, "rb") as f:
                            self.assertTrue(f.read().endswith(b"\n"))

        # ------------------------------------------------ reachability

        def run_reachability(self, name, options, args, **kw):
            """Runs Reachability with `args` under `options`: no crash, exit 0,
            nothing it dropped KEPT."""
            out = os.path.join(self.dir, name + "-" + options.replace(",", "_"))
            p = self.java(f"{options},file={out}", ["Reachability"] + args, **kw)
            self.assert_no_crash(p)
            self.assertEqual(p.returncode, 0, p.stderr)
            kept = [line for line in p.stdout.splitlines() if line.endswith(" KEPT")]
            self.assertEqual(kept, [])
            return p

        def test_reachability_every_mode(self):
            # Objects and classes the program dropped are collected by its own
            # GC (the classes unloaded), and a program that recovers from
            # OutOfMemoryError still does.
            for options in MODES:
                with self.subTest(options):
                    p = self.run_reachability("reach", options, ["oom"],
                                              extra_jvm=("-Xmx64m",), timeout=300)
                    self.assertIn("recovered from OutOfMemoryError 5 times", p.stdout)

        def test_reachability_of_ended_virtual_threads(self):
            # A virtual thread's state stays registered after it ends (no
            # ThreadEnd); it must not keep the thread, nor what its task held.
            # cpu=times and cpu=old (HprofTracker) still do until the state is
            # reused (cpu_times README).
            for options in [m for m in MODES if m not in ("cpu=times", "cpu=old")]:
                with self.subTest(options):
                    p = self.run_reachability("vt", options, ["vthread"])
                    if "no virtual threads" in p.stdout:
                        self.assertLess(env.java_version(), 21, p.stdout)
                        continue
                    self.assertEqual(p.stdout.count(" collected"), 4, p.stdout)

        def test_reachability_every_collector(self):
            # The same under the other collectors, through both caller routes
            # of the exact heap=sites tracker and heap=all: the tracker's weak
            # class keys are read by Reference.get under each collector's
            # barriers (read by Unsafe, Shenandoah crashed), and no exit may
            # wait for a GC (Shenandoah hung on JDK 17).
            for gc in ("-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseZGC",
                       "-XX:+UseShenandoahGC"):
                for options in ("heap=sites,depth=8", "heap=all"):
                    with self.subTest(gc=gc, options=options):
                        p = self.run_reachability("gc", options, [],
                                                  extra_jvm=(gc, "-Xmx256m"), timeout=300)
                        self.assertIn("class loader (warm) collected", p.stdout)

        # ------------------------------------------------ JNI use

        def test_checked_jni_every_mode(self):
            # -Xcheck:jni finds nothing to say of the agent's JNI use: JVM TI's
            # class lists made HotSpot warn "JNI local refs: 646, exceeds
            # capacity: 32" at each dump, and the JVM's own heap dumper a call
            # left unchecked for its exception.
            for options in MODES:
                with self.subTest(options):
                    out = os.path.join(self.dir, "jni-" + options.replace(",", "_"))
                    p = self.java(f"{options},file={out}", ["ClassChurn", "20"],
                                  extra_jvm=("-Xcheck:jni",))
                    self.assert_no_crash(p)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    # HotSpot prints them on standard output
                    warnings = [line for line in (p.stdout + p.stderr).splitlines()
                                if "WARNING" in line or "FATAL ERROR" in line]
                    self.assertEqual(warnings, [], p.stdout + p.stderr)

        # ------------------------------------------------ heap walk

        def test_walk_on_a_minimal_program(self):
            # The JVM TI walk linked wrapper classes it had read unlinked and
            # wrote their static values as zero, and shifted the field
            # indices of reflection's field accessors, whose hidden field it
            # counted ("field values matched no field of their class").
            for options in ("heap=all", "heap=dump,heap=sites,format=b", "heap=dump"):
                for args in ([], ["reflect"]):
                    with self.subTest(f"{options} {args}"):
                        out = os.path.join(self.dir, "walk-" + options.replace(",", "_"))
                        p = self.java(f"{options},file={out}", ["Minimal"] + args)
                        self.assertEqual(p.returncode, 0, p.stderr)
                        self.assertTrue(p.stdout.endswith("minimal\n"), p.stdout)
                        self.assertNotIn("HPROF ERROR", p.stderr)
                        self.assert_well_formed(out, options)

        # ------------------------------------------------ killed runs

        def test_temporary_files_of_dead_runs_are_removed(self):
            dead = subprocess.Popen(["true"])
            dead.wait()
            stale = [f".hprof-dump-{dead.pid}-1.hprof", f".hprof-dump-{dead.pid}-1.hprof.p0"]
            alive = f".hprof-dump-{os.getpid()}-1.hprof"  # this driver lives on
            for name in stale + [alive]:
                with open(os.path.join(self.dir, name), "w") as f:
                    f.write("x")
            out = os.path.join(self.dir, "dump.hprof")
            p = self.java(f"heap=dump,format=b,file={out}", ["Minimal"])
            self.assertEqual(p.returncode, 0, p.stderr)
            left = sorted(f for f in os.listdir(self.dir) if f.startswith(".hprof-dump-"))
            self.assertEqual(left, [alive])

        def test_sigkill_mid_dump_then_next_run(self):
            out = os.path.join(self.dir, "killed.hprof")
            proc = subprocess.Popen(
                [env.java, f"-agentpath:{env.agent}=heap=dump,format=b,file={out}",
                 "-cp", env.jar, "Reachability", "hold"], cwd=self.dir,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                if any(f.startswith(".hprof-dump-") for f in os.listdir(self.dir)):
                    proc.kill()
                    break
                time.sleep(0.005)
            proc.communicate(timeout=60)
            p = self.java(f"heap=dump,format=b,file={out}", ["Minimal"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".hprof-dump-")],
                             [])

    return Robust


if __name__ == "__main__":
    ht.main(make_case)

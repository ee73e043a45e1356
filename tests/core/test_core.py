"""Agent core on a real JVM: options, errors, output sink, ascii and binary
streams, threads, traces, dumps on demand, net=, robustness at exit."""
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import unittest

import hproftest as ht


def free_port(family=socket.AF_INET, host="127.0.0.1"):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Listener(threading.Thread):
    """Accepts one connection and collects everything sent until EOF."""

    def __init__(self, family, host):
        super().__init__(daemon=True)
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind((host, 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.data = b""

    def run(self):
        self.sock.settimeout(120)
        conn, _ = self.sock.accept()
        with conn:
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                self.data += chunk
        self.sock.close()


def make_case(env):
    help_path = dict(zip(sys.argv[1::2], sys.argv[2::2]))["--help-text"]

    class CoreTest(unittest.TestCase):
        def setUp(self):
            self.dir = os.path.join(env.work, "core", self._testMethodName)
            shutil.rmtree(self.dir, ignore_errors=True)
            os.makedirs(self.dir)

        def run_java(self, options, args, **kw):
            return ht.run_java(env, options, args, cwd=self.dir, **kw)

        def expect_error(self, options, message, args=("-version",), **kw):
            p = ht.run_java(env, options, [], cwd=self.dir, extra_jvm=args, **kw)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("HPROF ERROR: " + message + "\n", p.stderr)

        # ------------------------------------------------ options and errors

        def test_help(self):
            with open(help_path) as f:
                want = f.read()
            for flag in (f"-agentpath:{env.agent}=help",):
                p = ht.run_java(env, None, ["-version"], agent_flag=flag, cwd=self.dir)
                self.assertEqual(p.returncode, 0)
                self.assertEqual(p.stdout, want)

        def test_agentlib_xrun_and_tool_options(self):
            with open(help_path) as f:
                want = f.read()
            lib_env = {"LD_LIBRARY_PATH": os.path.dirname(env.agent)}
            for flag in ("-agentlib:hprof=help", "-Xrunhprof:help"):
                p = ht.run_java(env, None, ["-version"], agent_flag=flag, env_vars=lib_env,
                                cwd=self.dir)
                self.assertEqual((p.returncode, p.stdout), (0, want), flag + p.stderr)
            p = ht.run_java(env, None, ["-version"], agent_flag="", cwd=self.dir,
                            env_vars={"JAVA_TOOL_OPTIONS": f"-agentpath:{env.agent}=help"})
            self.assertEqual((p.returncode, p.stdout), (0, want), p.stderr)

        def test_option_errors(self):
            cases = {
                "depth=x": "depth option value must be decimal and >= 0",
                "heap=sites,help": "Unknown option: help",
                "format=b,cpu=times": "cpu=times|old is not supported with format=b",
                "monitor=y,format=b": "monitor=y is not supported with format=b",
                "file=a,file=b": "file or net options should only appear once",
                "thread=maybe": "thread option value must be y|n",
            }
            for options, what in cases.items():
                self.expect_error(options, f"hprof option error: {what} ({options})")

        def test_env_options_are_appended(self):
            self.expect_error("cpu=samples", "hprof option error: depth option value must be "
                              "decimal and >= 0 (cpu=samples,depth=-3)",
                              env_vars={"_JAVA_HPROF_OPTIONS": "depth=-3"})

        def test_loaded_twice(self):
            p = ht.run_java(env, None, ["-version"], cwd=self.dir,
                            agent_flag=f"-agentpath:{env.agent}=cpu=samples",
                            extra_jvm=[f"-agentpath:{env.agent}=heap=sites"])
            self.assertEqual(p.returncode, 1)
            self.assertIn("HPROF ERROR: Cannot load this JVM TI agent twice", p.stderr)

        def test_unwritable_file(self):
            self.expect_error("file=/nonexistent/dir/out.txt",
                              "can't create profile file: /nonexistent/dir/out.txt")

        def test_unreachable_net(self):
            port = free_port()
            self.expect_error(f"net=127.0.0.1:{port}", f"can't connect to 127.0.0.1:{port}")

        def test_msa_is_accepted(self):
            p = self.run_java("msa=y,file=out.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("msa=y has no effect on this platform", p.stderr)

        # ------------------------------------------------ output streams

        def check_threads(self, starts, ends):
            """starts: [(serial, name)]: every thread of CoreThreads, once."""
            names = [n for _, n in starts]
            for n in ["main", "sleeper"] + [f"worker-{i}" for i in range(5)]:
                self.assertEqual(names.count(n), 1, f"THREAD START for {n}: {names}")
            # threads that existed before VM_INIT are listed too
            self.assertIn("Reference Handler", names)
            self.assertIn("Finalizer", names)
            serials = [s for s, _ in starts]
            self.assertEqual(len(set(serials)), len(serials))
            self.assertTrue(all(s > 200000 for s in serials))
            by_name = {n: s for s, n in starts}
            for i in range(5):
                self.assertIn(by_name[f"worker-{i}"], ends)
            self.assertNotIn(by_name["sleeper"], ends)
            for e in ends:
                self.assertIn(e, serials, "THREAD END without THREAD START")

        def test_ascii_stream(self):
            p = self.run_java("thread=y,depth=6,file=out.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            self.check_threads([(s, n) for _, s, n, _ in prof.thread_starts], prof.thread_ends)
            groups = {n: g for _, _, n, g in prof.thread_starts}
            self.assertEqual(groups["main"], "main")
            self.assertEqual(groups["Reference Handler"], "system")
            self.assertIn(300000, prof.traces)
            self.assertEqual(prof.traces[300000], (None, []))
            deep = [t for t in prof.traces.values() if t[1]]
            self.assertTrue(deep, "no trace with frames")
            # 200000 is the format's "unknown thread": allocations the JVM makes
            # before VM_INIT, when no thread is known yet
            serials = {s for _, s, _, _ in prof.thread_starts} | {200000}
            for thread, frames in deep:
                self.assertLessEqual(len(frames), 6)
                self.assertIn(thread, serials, "thread=y trace without a known thread")
            lines = [f for _, fr in deep for f in fr if f[0] == "CoreThreads"]
            self.assertTrue(any(f[1] == "depth" and f[2] == "CoreThreads.java" and f[3].isdigit()
                                for f in lines), lines)

        def test_lineno_n(self):
            p = self.run_java("lineno=n,file=out.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            frames = [f for _, fr in prof.traces.values() for f in fr]
            self.assertTrue(frames)
            self.assertTrue(all(f[3] in ("Unknown line", "Native method") for f in frames))

        def test_binary_stream(self):
            p = self.run_java("format=b,depth=6,file=out.hprof", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            prof = ht.read_binary(os.path.join(self.dir, "out.hprof"))
            self.assertEqual((prof.magic, prof.id_size), ("JAVA PROFILE 1.0.2", 8))
            self.assertEqual(ht.TAGS[prof.records[0][0]], "CONTROL SETTINGS")
            self.assertEqual(prof.control, (0x1, 6))
            self.check_threads([(t[0], t[3]) for t in prof.thread_starts], prof.thread_ends)
            names = {name for _, name, _ in prof.classes.values()}
            for n in ("java.lang.Object", "java.lang.String", "CoreThreads"):
                self.assertIn(n, names)
            self.assertTrue(any(n.endswith("[]") for n in names), "no array class")
            self.assertTrue(prof.traces, "no TRACE records")
            for _, frames in prof.traces.values():
                self.assertLessEqual(len(frames), 6)
            # a second opinion from our front end, when it is built
            if env.cli and os.path.exists(env.cli):
                v = subprocess.run([env.cli, "verify", "--strict",
                                    os.path.join(self.dir, "out.hprof")],
                                   capture_output=True, text=True)
                self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

        def test_force_n_picks_unique_name(self):
            path = os.path.join(self.dir, "prof.txt")
            with open(path, "w") as f:
                f.write("keep me\n")
            p = self.run_java("file=prof.txt,force=n", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path) as f:
                self.assertEqual(f.read(), "keep me\n")
            made = [n for n in os.listdir(self.dir) if n.startswith("prof.") and n != "prof.txt"]
            self.assertEqual(len(made), 1, made)
            self.assertRegex(made[0], r"^prof\.\d+\.txt$")
            ht.read_ascii(os.path.join(self.dir, made[0]))

        def test_force_y_replaces(self):
            path = os.path.join(self.dir, "prof.txt")
            with open(path, "w") as f:
                f.write("old\n" * 100000)
            p = self.run_java("file=prof.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            ht.read_ascii(path)

        def test_default_names(self):
            p = self.run_java("", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            ht.read_ascii(os.path.join(self.dir, "java.hprof.txt"))
            p = self.run_java("format=b", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            ht.read_binary(os.path.join(self.dir, "java.hprof"))

        def net_run(self, family, host, fmt):
            listener = Listener(family, host)
            listener.start()
            target = f"[{host}]" if family == socket.AF_INET6 else host
            p = self.run_java(f"net={target}:{listener.port},format={fmt}", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            listener.join(60)
            return listener.data

        def test_net_delivers_the_stream(self):
            data = self.net_run(socket.AF_INET, "127.0.0.1", "a")
            prof = ht.AsciiProfile(data.decode())
            self.check_threads([(s, n) for _, s, n, _ in prof.thread_starts], prof.thread_ends)
            # the same program to a file gives the same records, dates aside
            p = self.run_java("file=same.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            fprof = ht.read_ascii(os.path.join(self.dir, "same.txt"))
            # net= adds the agent's listener thread, as the original did
            self.assertEqual(sorted([n for _, _, n, _ in fprof.thread_starts] +
                                    ["HPROF listener thread"]),
                             sorted(n for _, _, n, _ in prof.thread_starts))
            self.assertEqual([s[0].split(" BEGIN")[0] for s in fprof.sections],
                             [s[0].split(" BEGIN")[0] for s in prof.sections])

        def test_net_ipv6_binary(self):
            if not socket.has_ipv6:
                self.skipTest("no IPv6")
            try:
                data = self.net_run(socket.AF_INET6, "::1", "b")
            except OSError as e:
                self.skipTest(f"IPv6 loopback unavailable: {e}")
            prof = ht.BinaryProfile(data)
            self.check_threads([(t[0], t[3]) for t in prof.thread_starts], prof.thread_ends)

        # ------------------------------------------------ dumps and exit

        def dump_session(self, options, trigger_names):
            proc = ht.start_java(env, options, ["WaitForDump"], cwd=self.dir)
            try:
                ht.wait_for_line(proc.stdout, "READY")
                for trigger in trigger_names:
                    proc.stdin.write("work\n")
                    proc.stdin.flush()
                    ht.wait_for_line(proc.stdout, "OK work")
                    ht.request_dump(env, proc, trigger)
            finally:
                status = ht.finish(proc, "exit\n")
            self.assertEqual(status, 0)

        def test_dumps_on_demand_append(self):
            self.dump_session("heap=sites,doe=n,file=out.txt", ["sigquit", "jcmd"])
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            self.assertEqual(len(prof.sections_named("SITES")), 2)
            # with doe=y the exit adds a third
            self.dump_session("heap=sites,file=out2.txt", ["jcmd", "sigquit"])
            prof = ht.read_ascii(os.path.join(self.dir, "out2.txt"))
            self.assertEqual(len(prof.sections_named("SITES")), 3)

        def test_dumps_on_demand_binary(self):
            self.dump_session("heap=sites,format=b,doe=n,file=out.hprof", ["jcmd", "sigquit"])
            prof = ht.read_binary(os.path.join(self.dir, "out.hprof"))
            self.assertEqual(len(prof.named("ALLOC SITES")), 2)

        def test_sigkill_leaves_whole_records(self):
            for fmt, name in (("b", "out.hprof"), ("a", "out.txt")):
                proc = ht.start_java(env, f"heap=sites,format={fmt},file={name}",
                                     ["WaitForDump"], cwd=self.dir)
                try:
                    ht.wait_for_line(proc.stdout, "READY")
                    proc.stdin.write("work\n")
                    proc.stdin.flush()
                    ht.wait_for_line(proc.stdout, "OK work")
                    ht.request_dump(env, proc, "sigquit")
                    proc.stdin.write("work\n")  # more records, maybe unflushed
                    proc.stdin.flush()
                    ht.wait_for_line(proc.stdout, "OK work")
                    proc.kill()
                    proc.wait(60)
                finally:
                    for s in (proc.stdin, proc.stdout, proc.stderr):
                        s.close()
                path = os.path.join(self.dir, name)
                if fmt == "b":
                    prof = ht.read_binary(path)  # raises on a partial record
                    self.assertEqual(len(prof.named("ALLOC SITES")), 1)
                else:
                    prof = ht.read_ascii(path)  # raises on a partial line or section
                    self.assertEqual(len(prof.sections_named("SITES")), 1)

        def test_verbose_n_is_quiet(self):
            p = self.run_java("verbose=n,file=out.txt", ["CoreThreads"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotIn("Dumping", p.stderr)

        def test_exit_with_many_threads_running(self):
            # A hang would hit the timeout; the run must end and write its dump.
            p = self.run_java("file=out.txt", ["ManyThreadsExit"], timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("exiting", p.stdout)
            prof = ht.read_ascii(os.path.join(self.dir, "out.txt"))
            self.assertGreaterEqual(len(prof.thread_starts), 200)

        def test_exit_dumps_under_zgc_and_shenandoah(self):
            # ZGC and Shenandoah stop their threads before VM death: a
            # collection requested then never ends (ZGC on JDK 25, Shenandoah
            # on JDK 17). The exit dumps must be made without one.
            for gc, name in (("-XX:+UseZGC", "ZGC"), ("-XX:+UseShenandoahGC", "Shenandoah")):
                for opts in ("heap=sites", "heap=sites,alloc_interval=65536", "heap=all",
                             "heap=dump,format=b"):
                    p = self.run_java(opts + ",file=out", ["CoreThreads"], extra_jvm=[gc],
                                      timeout=300)
                    self.assertEqual(p.returncode, 0, opts + p.stderr)
                    self.assertIn("HPROF: no garbage collection at VM death under " + name,
                                  p.stderr)
                    if "format=b" in opts:
                        self.assertTrue(ht.read_binary(os.path.join(self.dir, "out")).named(
                            "HEAP DUMP END"), opts)
                    else:
                        prof = ht.read_ascii(os.path.join(self.dir, "out"))
                        self.assertTrue(prof.sections_named("SITES") or
                                        prof.sections_named("HEAP DUMP"), opts)
                    os.remove(os.path.join(self.dir, "out"))

    return CoreTest


if __name__ == "__main__":
    ht.main(make_case)

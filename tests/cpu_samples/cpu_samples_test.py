"""cpu=samples integration tests: sampling accuracy (3:1 work ratio),
blocked threads not counted, report format (ascii and binary), thread=y,
depth, cutoff, interval, reset after each dump, and survival of class
unloading and deoptimisation. Usage (from CTest):
  cpu_samples_test.py --java-home H --agent LIB --jar JAR --lib DIR --work DIR"""
import os
import re
import signal
import struct
import sys
import time
import unittest

ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
sys.path.insert(0, ARGS["--lib"])
import hproftest as ht  # noqa: E402

ROW = re.compile(r"^\s*(\d+)\s+(\d+\.\d\d)%\s+(\d+\.\d\d)%\s+(\d+)\s+(\d+) (.+)$")
BEGIN = re.compile(r"^CPU SAMPLES BEGIN \(total = (\d+)\) " + ht.DATE + "$")
HEADER = "rank   self  accum   count trace method"


def cpu_sections(path):
    """Every CPU SAMPLES section of an ascii file, strictly checked against the
    original's format: [(total, [(count, trace, method)])]. Each trace listed
    must have been written before its table, and the method column must be
    that trace's top frame."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # A method whose class was unloaded before the agent could name it is
    # written as <Unknown Class>.<Unknown Method>; the shared parser's frame
    # pattern has no room for the spaces in it.
    text = text.replace("\t<Unknown Class>.<Unknown Method>(",
                        "\t<Unknown_Class>.<Unknown_Method>(")
    prof = ht.AsciiProfile(text)  # whole-file grammar
    lines = text.split("\n")
    trace_line = {int(m.group(1)): i for i, l in enumerate(lines)
                  for m in [ht.TRACE_HEAD.match(l)] if m}
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("CPU SAMPLES BEGIN"):
            continue
        m = BEGIN.match(line)
        assert m, f"bad title {line!r}"
        total = int(m.group(1))
        end = lines.index("CPU SAMPLES END", i)
        body = lines[i + 1:end]
        rows = []
        if body:
            assert body[0] == HEADER, f"bad header {body[0]!r}"
        accum = 0.0
        for rank, row in enumerate(body[1:], 1):
            r = ROW.match(row)
            assert r, f"bad row {row!r}"
            count, trace, method = int(r.group(4)), int(r.group(5)), r.group(6)
            self_ = count / total
            accum += self_
            want = "%4u %5.2f%% %5.2f%% %7u %5u %s" % (rank, self_ * 100, accum * 100, count,
                                                     trace, method)
            assert row == want, f"row {row!r}, expected {want!r}"
            assert trace in trace_line and trace_line[trace] < i, \
                f"trace {trace} not written before its CPU SAMPLES table"
            frames = prof.traces[trace][1]
            top = f"{frames[0][0]}.{frames[0][1]}" if frames else "<empty trace>"
            top = top.replace("<Unknown_Class>", "<Unknown Class>").replace(
                "<Unknown_Method>", "<Unknown Method>")
            assert method == top, f"row method {method!r}, trace top {top!r}"
            rows.append((count, trace, method))
        counts = [c for c, _, _ in rows]
        assert counts == sorted(counts, reverse=True), "rows not ranked by count"
        assert all(c > 0 for c in counts), "row with no samples"
        assert sum(counts) <= total
        out.append((total, rows))
    return prof, out


def frames_of(prof, trace):
    return [f"{c}.{m}" for c, m, _, _ in prof.traces[trace][1]]


class CpuSamplesTest(unittest.TestCase):
    env = None

    def run_java(self, name, options, main, extra_jvm=()):
        out = os.path.join(self.env.work, name)
        if os.path.exists(out):
            os.remove(out)
        p = ht.run_java(self.env, f"cpu=samples,file={out}" + (f",{options}" if options else ""),
                        main, extra_jvm=extra_jvm)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("HPROF ERROR", p.stderr)
        self.assertNotIn("#  SIGSEGV", p.stdout + p.stderr)
        return out, p

    def test_ratio_3_to_1_with_thread_y(self):
        out, _ = self.run_java("ratio.txt", "thread=y,cutoff=0", ["CpuRatio", "20"])
        prof, sections = cpu_sections(out)
        self.assertEqual(len(sections), 1)
        total, rows = sections[0]
        heavy = sum(c for c, t, _ in rows if "CpuRatio.heavy" in frames_of(prof, t))
        light = sum(c for c, t, _ in rows if "CpuRatio.light" in frames_of(prof, t))
        self.assertGreater(heavy + light, 100, "too few samples to judge")
        share = heavy / (heavy + light)
        print(f"heavy {heavy}, light {light}: {share:.1%} / {1 - share:.1%} (total {total})")
        self.assertLess(abs(share - 0.75), 0.05)
        # thread=y: every sampled trace of the work belongs to "main".
        main = [s for _, s, n, _ in prof.thread_starts if n == "main"]
        self.assertEqual(len(main), 1)
        for c, t, _ in rows:
            if "CpuRatio.unit" in frames_of(prof, t):
                self.assertEqual(prof.traces[t][0], main[0])

    def test_blocked_threads_get_no_samples(self):
        out, _ = self.run_java("blocked.txt", "thread=y,cutoff=0", ["CpuBlocked", "2000", "6"])
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        names = {s: n for _, s, n, _ in prof.thread_starts}
        self.assertEqual(sum(n.startswith("blocked-") for n in names.values()), 30)
        by_thread = {}
        for c, t, _ in rows:
            name = names.get(prof.traces[t][0], "?")
            kind = "blocked" if name.startswith("blocked-") else name
            by_thread[kind] = by_thread.get(kind, 0) + c
        print(f"samples by thread: {by_thread} (total {total})")
        self.assertGreater(total, 100, "too few samples to judge")
        # A blocked thread uses a little CPU starting and blocking; the first
        # sample of a thread falls at a random point of its first interval, so
        # that CPU is sampled at its true rate (1-2 samples of 30 threads).
        self.assertLess(by_thread.get("blocked", 0) / total, 0.03)
        self.assertGreater(by_thread.get("busy", 0) / total, 0.90)

    def test_thread_started_before_vm_init_is_sampled(self):
        out, _ = self.run_java("finalizer.txt", "thread=y,cutoff=0", ["CpuFinalizer"])
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        finalizer = [s for _, s, n, _ in prof.thread_starts if n == "Finalizer"]
        self.assertEqual(len(finalizer), 1)
        on_it = sum(c for c, t, _ in rows if prof.traces[t][0] == finalizer[0]
                    and "CpuFinalizer$Heavy.finalize" in frames_of(prof, t))
        print(f"{on_it} of {total} samples in finalize() on the Finalizer thread")
        self.assertGreater(on_it, 25)  # 500 ms of CPU at 10 ms

    def test_survives_thread_churn(self):
        out, p = self.run_java("churn.txt", "thread=y,cutoff=0,interval=1", ["CpuChurn", "800"])
        self.assertIn("churned 800", p.stdout)
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        names = {s: n for _, s, n, _ in prof.thread_starts}
        sampled = {prof.traces[t][0] for c, t, _ in rows
                   if names.get(prof.traces[t][0], "").startswith("churn-")}
        print(f"{len(sampled)} of 800 short-lived threads sampled, {total} samples")
        self.assertGreater(len(sampled), 50)

    def test_no_frame_of_the_agent_classes(self):
        # With exact heap=sites, samples land inside the allocation hooks;
        # they are charged to the allocating method, never shown.
        out = os.path.join(self.env.work, "agent-frames.txt")
        if os.path.exists(out):
            os.remove(out)
        p = ht.run_java(self.env, f"heap=sites,cpu=samples,interval=1,depth=8,file={out}",
                        ["CpuAlloc", "3000000"])
        self.assertEqual(p.returncode, 0, p.stderr)
        prof, sections = cpu_sections(out)
        self.assertGreater(sections[-1][0], 100)
        agent = [(t, f) for t, (_, frames) in prof.traces.items() for f in frames
                 if f[0].startswith("java.lang.Hprof")]
        self.assertEqual(agent, [])
        # The allocating method itself carries the hooks' time.
        self.assertIn("CpuAlloc.main", [m for _, _, m in sections[-1][1]])

    def test_virtual_thread_samples_show_its_own_frames(self):
        if self.env.java_version() < 21:
            self.skipTest("no virtual threads before JDK 21")
        out, _ = self.run_java("virtual.txt", "thread=y,cutoff=0,depth=12", ["CpuVirtual"])
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        names = {s: n for _, s, n, _ in prof.thread_starts}
        virtual = [(c, t) for c, t, _ in rows if "CpuVirtual.virtualWork" in frames_of(prof, t)]
        n = sum(c for c, _ in virtual)
        print(f"{n} of {total} samples in the virtual thread's code")
        self.assertGreater(n, 30)  # 600 ms of CPU at 10 ms
        for _, t in virtual:
            frames = frames_of(prof, t)
            # Its own frames only: the carrier's below the continuation entry are cut.
            self.assertFalse([f for f in frames if "ForkJoin" in f or "enterSpecial" in f],
                             frames)
            # With thread=y the sample belongs to the one "<virtual threads>" serial.
            self.assertEqual(names[prof.traces[t][0]], "<virtual threads>")

    def test_native_code_on_cpu_counts(self):
        out, _ = self.run_java("native.txt", "cutoff=0", ["CpuNative", "600"])
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        native = sum(c for c, t, _ in rows if prof.traces[t][1]
                     and prof.traces[t][1][0][3] == "Native method"
                     and "java.util.zip.Deflater.deflate" in frames_of(prof, t))
        print(f"{native} of {total} samples in zlib under Deflater.deflate")
        self.assertGreater(native, 0.7 * total)
        self.assertGreater(native, 30)  # 600 ms of CPU at 10 ms

    def test_binary_record(self):
        out, _ = self.run_java("ratio.hprof", "format=b,cutoff=0", ["CpuRatio", "6"])
        prof = ht.read_binary(out)
        recs = prof.named("CPU SAMPLES")
        self.assertEqual(len(recs), 1)
        body = recs[0][2]
        total, n = struct.unpack_from(">II", body, 0)
        self.assertEqual(len(body), 8 + 8 * n)
        pairs = [struct.unpack_from(">II", body, 8 + 8 * i) for i in range(n)]
        counts = [c for c, _ in pairs]
        self.assertGreater(total, 20)
        self.assertEqual(sum(counts), total)  # cutoff=0 lists every trace
        self.assertEqual(counts, sorted(counts, reverse=True))
        pos = [i for i, r in enumerate(prof.records) if r[0] == 0x0D][0]
        defined = set()
        for tag, _, b in prof.records[:pos]:
            if tag == 0x05:
                defined.add(struct.unpack_from(">I", b, 0)[0])
        for _, trace in pairs:
            self.assertIn(trace, defined, "CPU SAMPLES cites a trace not written before it")
        self.assertTrue(any("heavy" in [f[1] for f in prof.traces[t][1]] for _, t in pairs))
        if self.env.cli and os.path.exists(self.env.cli):
            import subprocess
            v = subprocess.run([self.env.cli, "verify", out], capture_output=True, text=True)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

    def test_depth_0_reports_nothing(self):
        out, _ = self.run_java("depth0.txt", "depth=0", ["CpuRatio", "2"])
        _, sections = cpu_sections(out)
        self.assertEqual(sections, [(0, [])])

    def test_depth_cutoff_interval_lineno(self):
        out, p = self.run_java("depth2.txt", "depth=2,cutoff=0.3,interval=5,lineno=n",
                               ["CpuRatio", "10"])
        prof, sections = cpu_sections(out)
        total, rows = sections[0]
        for t in prof.traces:
            self.assertLessEqual(len(prof.traces[t][1]), 2)
            for frame in prof.traces[t][1]:
                self.assertEqual(frame[3], "Unknown line")  # lineno=n
        # Only unit() under heavy() holds >= 30% of the samples (~75%).
        self.assertEqual(len(rows), 1, rows)
        self.assertEqual(frames_of(prof, rows[0][1]), ["CpuRatio.unit", "CpuRatio.heavy"])
        self.assertLess(rows[0][0], total)
        # One sample per 5 ms of the thread's CPU time (the JVM's own start-up
        # and exit add a little; kernel tick granularity takes a little).
        cpu_ms = int(re.search(r"cpu_ms=(\d+)", p.stdout).group(1))
        print(f"interval=5: {total} samples for {cpu_ms} ms of main's CPU time")
        self.assertGreater(total, 0.75 * cpu_ms / 5)
        self.assertLess(total, 1.25 * cpu_ms / 5)

    def test_counts_reset_after_each_dump(self):
        out = os.path.join(self.env.work, "phases.txt")
        p = ht.start_java(self.env, f"cpu=samples,file={out},cutoff=0", ["CpuPhases", "500"])
        try:
            ht.wait_for_line(p.stdout, "phase1 done", timeout=120)
            p.send_signal(signal.SIGQUIT)
            deadline = time.time() + 60
            while time.time() < deadline:
                with open(out, encoding="utf-8", errors="replace") as f:
                    if "CPU SAMPLES END" in f.read():
                        break
                time.sleep(0.1)
            p.stdin.write("go\n")
            p.stdin.flush()
            _, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertEqual(p.returncode, 0, err)
        prof, sections = cpu_sections(out)
        self.assertEqual(len(sections), 2)

        def samples(section, method):
            return sum(c for c, t, _ in section[1] if method in frames_of(prof, t))
        first, second = sections
        print(f"dump 1: heavy {samples(first, 'CpuPhases.heavy')} light "
              f"{samples(first, 'CpuPhases.light')}; dump 2: heavy "
              f"{samples(second, 'CpuPhases.heavy')} light {samples(second, 'CpuPhases.light')}")
        self.assertGreater(samples(first, "CpuPhases.heavy"), 10)
        self.assertEqual(samples(first, "CpuPhases.light"), 0)
        self.assertGreater(samples(second, "CpuPhases.light"), 10)
        self.assertEqual(samples(second, "CpuPhases.heavy"), 0)

    def test_survives_class_unloading_and_deoptimisation(self):
        out = os.path.join(self.env.work, "unload.txt")
        log = os.path.join(self.env.work, "unload.log")
        p = ht.start_java(self.env, f"cpu=samples,file={out},interval=1,depth=8",
                          ["CpuUnload", "3000"],
                          extra_jvm=[f"-Xlog:class+unload=info:file={log}",
                                     "-XX:+PrintCompilation"])
        try:
            for _ in range(3):  # dumps while classes come and go
                time.sleep(0.7)
                p.send_signal(signal.SIGQUIT)
            stdout, err = p.communicate(timeout=180)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("unloaded ok", stdout)
        with open(log) as f:
            text = f.read()
        unloaded = text.count("unloading class UnloadPayload")
        deopts = len(re.findall(r"UnloadPayload::sum .*made not entrant", stdout))
        print(f"{unloaded} payload classes unloaded, sum() deoptimised {deopts} times "
              "while sampled")
        self.assertGreater(unloaded, 10)
        self.assertGreater(deopts, 5)
        prof, sections = cpu_sections(out)
        self.assertGreaterEqual(len(sections), 2)
        payload = sum(c for s in sections for c, t, _ in s[1]
                      if any(f.startswith("UnloadPayload") for f in frames_of(prof, t)))
        self.assertGreater(payload, 10)


def main():
    env = ht.Env([sys.argv[0]] + [x for k, v in ARGS.items() if k != "--lib" for x in (k, v)])
    if not os.path.exists(env.java):
        print(f"JDK not found at {env.java_home}: skipped")
        sys.exit(ht.SKIP)
    env.work = os.path.join(ARGS["--work"], os.path.basename(env.java_home.rstrip("/")))
    os.makedirs(env.work, exist_ok=True)
    CpuSamplesTest.env = env
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(CpuSamplesTest)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
